import fs from "node:fs";
import path from "node:path";
import { gitBytes, git, type GitOptions } from "./git.js";
import type { RepoPaths } from "../util/git-env.js";

/**
 * `git add -A`, done so that nothing in the work tree decides what runs or what is recorded:
 * orca lists the changed files itself, hashes them with no filter (a `.gitattributes` a command
 * wrote names no driver that runs), never records a nested repository (a gitlink would make later
 * git calls look inside it) and leaves out what `skip` says — the files a read deny hides, which
 * would otherwise reach the model through `git log -p` or `git cat-file`.
 */

/** True for a repository-relative path that must not be recorded. */
export type Skip = (repoRelative: string) => boolean;

const ZERO_SHA = "0".repeat(40);

export async function stageWorkTree(repo: RepoPaths, opts: { index?: string; untracked: boolean; skip: Skip; signal?: AbortSignal }): Promise<void> {
  const gopts: GitOptions = { cwd: repo.workTree, repo, env: opts.index ? { GIT_INDEX_FILE: opts.index } : {}, signal: opts.signal };
  const listing = await gitBytes(["ls-files", "-z", "--modified", "--deleted", ...(opts.untracked ? ["--others", "--exclude-standard"] : [])], gopts);
  const paths = [...new Set(listing.toString("utf8").split("\0").filter(Boolean))];
  const files: Array<{ path: string; mode: string }> = [];
  const links: string[] = [];
  const removed: string[] = [];
  for (const rel of paths) {
    // "dir/": an untracked directory git will not list into, a nested repository.
    if (rel.endsWith("/") || opts.skip(rel)) continue;
    const stat = fs.lstatSync(path.join(repo.workTree, rel), { throwIfNoEntry: false });
    if (!stat) removed.push(rel);
    else if (stat.isSymbolicLink()) links.push(rel);
    else if (stat.isFile()) files.push({ path: rel, mode: stat.mode & 0o111 ? "100755" : "100644" });
    // A directory where a file was (a nested repository, or a file turned folder): not recorded.
  }
  const entries: string[] = removed.map((rel) => `0 ${ZERO_SHA}\t${rel}`);
  const shas = await hashFiles(files.map((f) => f.path), gopts);
  files.forEach((f, i) => entries.push(`${f.mode} ${shas[i]}\t${f.path}`));
  for (const rel of links) {
    const sha = await git(["hash-object", "-w", "--no-filters", "--stdin"], gopts, fs.readlinkSync(path.join(repo.workTree, rel)));
    entries.push(`120000 ${sha}\t${rel}`);
  }
  if (entries.length) await git(["update-index", "-z", "--index-info"], gopts, entries.map((e) => `${e}\0`).join(""));
}

/** Blob ids of the files, written to the object store, with no filter applied. */
async function hashFiles(files: string[], gopts: GitOptions): Promise<string[]> {
  if (!files.length) return [];
  // --stdin-paths reads one path a line: a name with a newline in it is hashed on its own.
  const plain = files.filter((f) => !f.includes("\n"));
  const odd = files.filter((f) => f.includes("\n"));
  const out = new Map<string, string>();
  if (plain.length) {
    const shas = (await git(["hash-object", "-w", "--no-filters", "--stdin-paths"], gopts, plain.join("\n") + "\n")).split("\n");
    plain.forEach((f, i) => out.set(f, shas[i]!));
  }
  for (const f of odd) out.set(f, await git(["hash-object", "-w", "--no-filters", "--", f], gopts));
  return files.map((f) => out.get(f)!);
}
