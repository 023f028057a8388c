import fs from "node:fs";
import path from "node:path";
import { git, GitError } from "./git.js";
import type { RepoPaths } from "../util/git-env.js";

/**
 * A repository made ready for orca's git: its dirs given outright, and the drivers its config
 * defines (in `.git/config`, a `config.worktree`, or any file they include) switched off by name.
 * An attribute in a `.gitattributes` that a sandboxed command wrote can name a driver, but a
 * driver with no command runs nothing: git then treats the file as if it had none.
 */

/** A driver's keys that name a program to run (`required` makes a driver that ran nothing an error). */
const DRIVER_KEY = /^(filter|diff|merge)\.(.+)\.(clean|smudge|process|required|command|textconv|driver)$/i;

export async function openRepo(dirs: Omit<RepoPaths, "overrides">, signal?: AbortSignal): Promise<RepoPaths> {
  const bare: RepoPaths = { ...dirs, overrides: [] };
  let names: string[];
  try {
    names = (await git(["config", "-z", "--list", "--name-only"], { cwd: dirs.workTree, repo: bare, signal })).split("\0");
  } catch (error) {
    // No config at all (exit 1 with nothing listed) is no reason to stop; anything else is.
    if (error instanceof GitError && error.code === 1 && !error.stderr.trim()) names = [];
    else throw error;
  }
  const overrides: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (const name of names) {
    const m = DRIVER_KEY.exec(name);
    if (!m || seen.has(name)) continue;
    seen.add(name);
    overrides.push([name, m[3]!.toLowerCase() === "required" ? "false" : ""]);
  }
  return { ...dirs, overrides };
}

/**
 * Checks a linked worktree's admin dir (`.git/worktrees/<name>`) before orca's git uses it: it
 * must be a real directory in the common dir's `worktrees/`, its `commondir` must lead back to
 * that common dir and its `gitdir` to the worktree's `.git`. A sandboxed command that rewrote one
 * (to a copy of the repository with a config of its own) would otherwise choose the config orca's
 * git reads. Throws a GitError naming what is wrong.
 */
export function checkAdminDir(adminDir: string, commonDir: string, worktree: string): void {
  const bad = (what: string) => new GitError(`the worktree's git admin dir ${adminDir} ${what}; orca will not use it`, 128, "");
  const realCommon = fs.realpathSync(commonDir);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(adminDir);
  } catch {
    throw bad("is missing");
  }
  if (!stat.isDirectory() || path.dirname(fs.realpathSync(adminDir)) !== path.join(realCommon, "worktrees")) throw bad("is not a directory of the repository's worktrees/");
  const read = (name: string): string => {
    const file = path.join(adminDir, name);
    const st = fs.lstatSync(file, { throwIfNoEntry: false });
    if (!st?.isFile()) throw bad(`has no plain ${name} file`);
    return fs.readFileSync(file, "utf8").trim();
  };
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return null;
    }
  };
  if (real(path.resolve(adminDir, read("commondir"))) !== realCommon) throw bad("has a commondir that leads elsewhere");
  if (real(path.dirname(path.resolve(adminDir, read("gitdir")))) !== real(worktree)) throw bad("has a gitdir that leads elsewhere");
}
