import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { gitBinary, safePath } from "./git-binary.js";

/**
 * The environment and config every git call of orca's runs with. Config given this way (the
 * GIT_CONFIG_COUNT variables, git ≥ 2.31) wins over every config file, the repository's and the
 * files it includes alike, so each key below holds whatever `.git/config` says; the variables pass
 * on to any git that git starts. What cannot be named in advance — a filter, diff or merge driver
 * is looked up by the name an attribute gives — is read from the repository's config and switched
 * off by name (contained-repo.ts).
 */

/** Keys that would make git run a program, or reach out, each set to something inert. */
export const CONTAINED_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ["core.hooksPath", "/dev/null"],
  ["core.fsmonitor", "false"],
  ["core.untrackedCache", "false"],
  ["core.pager", "cat"],
  ["core.editor", "false"],
  ["sequence.editor", "false"],
  ["core.askPass", ""],
  ["core.sshCommand", "false"],
  ["core.gitProxy", ""],
  ["core.attributesFile", "/dev/null"],
  ["core.alternateRefsCommand", ""],
  ["credential.helper", ""],
  ["diff.external", ""],
  // Without it `git add` runs `git status` in every gitlink's repository, under that repository's config.
  ["diff.ignoreSubmodules", "all"],
  ["status.submoduleSummary", "false"],
  ["submodule.recurse", "false"],
  ["fetch.recurseSubmodules", "false"],
  ["protocol.allow", "never"],
  ["commit.gpgSign", "false"],
  ["tag.gpgSign", "false"],
  ["gpg.program", "false"],
  ["gc.auto", "0"],
  ["maintenance.auto", "false"],
  ["uploadpack.packObjectsHook", ""],
];

/** Where a checked repository's pieces are: given to git outright, never read from files in it. */
export interface RepoPaths {
  gitDir: string;
  commonDir: string;
  workTree: string;
  /** Its drivers, switched off by name (contained-repo.ts). */
  overrides: ReadonlyArray<readonly [string, string]>;
}

/** Inherited variables git or the programs it could start would read. */
const DROPPED = /^(GIT_|XDG_CONFIG_HOME$|PAGER$|EDITOR$|VISUAL$|SSH_ASKPASS$|SSH_AUTH_SOCK$|LESS(OPEN|CLOSE)?$)/;

export function containedEnvironment(repo?: RepoPaths, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!DROPPED.test(name)) env[name] = value;
  const home = emptyHome();
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: home,
    // What git starts by name (its own helpers, a shell) is not taken from where commands write.
    PATH: safePath(),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_SYSTEM: "/dev/null",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_PAGER: "cat",
    GIT_EDITOR: "false",
    GIT_SEQUENCE_EDITOR: "false",
    GIT_ASKPASS: "false",
    GIT_SSH_COMMAND: "false",
    GIT_ALLOW_PROTOCOL: "",
    GIT_PROTOCOL_FROM_USER: "0",
  });
  const config = [...CONTAINED_CONFIG, ...userSafeDirectories(env).map((dir) => ["safe.directory", dir] as const), ...(repo?.overrides ?? [])];
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  if (repo) Object.assign(env, { GIT_DIR: repo.gitDir, GIT_COMMON_DIR: repo.commonDir, GIT_WORK_TREE: repo.workTree });
  return Object.assign(env, extra);
}

let safeDirectories: string[] | undefined;

/**
 * The user's `safe.directory` values, read once from their global config: the global config is
 * off for orca's git, and without them a repository another uid owns (a devcontainer, a Docker
 * volume) fails every call. Only this key is taken; none when there are none or git cannot say.
 */
function userSafeDirectories(contained: NodeJS.ProcessEnv): string[] {
  if (safeDirectories) return safeDirectories;
  safeDirectories = [];
  const binary = gitBinary();
  if (!binary) return safeDirectories;
  const env: NodeJS.ProcessEnv = { ...contained, GIT_CONFIG_COUNT: "0" };
  delete env.GIT_CONFIG_GLOBAL;
  delete env.XDG_CONFIG_HOME;
  if (process.env.HOME) env.HOME = process.env.HOME;
  if (process.env.XDG_CONFIG_HOME) env.XDG_CONFIG_HOME = process.env.XDG_CONFIG_HOME;
  try {
    const out = execFileSync(binary, ["config", "--global", "--get-all", "safe.directory"], { cwd: "/", env, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    safeDirectories = out.split("\n").filter(Boolean);
  } catch {
    // Exit code 1: the key is not set.
  }
  return safeDirectories;
}

let home: string | null = null;

/**
 * An empty directory for HOME: nothing under it is read (global config and attributes are off
 * above), and being empty and read-only to its owner, nothing is there to read should a git
 * version look anyway. One per user, made once; a private one when that one is not as expected.
 */
function emptyHome(): string {
  if (home && isEmptyOwnDir(home)) return home;
  const shared = path.join(os.tmpdir(), `orca-git-home-${process.getuid?.() ?? "user"}`);
  try {
    fs.mkdirSync(shared, { mode: 0o500 });
  } catch {
    // There already, or not possible: checked below.
  }
  home = isEmptyOwnDir(shared) ? shared : fs.mkdtempSync(path.join(os.tmpdir(), "orca-git-home-"));
  fs.chmodSync(home, 0o500);
  return home;
}

function isEmptyOwnDir(dir: string): boolean {
  try {
    const stat = fs.lstatSync(dir);
    return stat.isDirectory() && (process.getuid === undefined || stat.uid === process.getuid()) && fs.readdirSync(dir).length === 0;
  } catch {
    return false;
  }
}
