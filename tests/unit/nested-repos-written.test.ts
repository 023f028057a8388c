/**
 * NestedRepos.checkWritten, the check right after a file tool's write (the folders of what was
 * written, not a walk), and the git dirs no check may change: real git, real files.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NestedRepos } from "../../src/tools/sandbox/nested-repos.js";

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8", env: GIT_ENV });
const EVIL = '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch x"\n';

let dirs: string[] = [];
const tmp = () => {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-nested-w-")));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** What a file tool does: the folders, then the file. */
function write(file: string, content: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

const configOf = (gitDir: string) => fs.readFileSync(path.join(gitDir, "config"), "utf8");

describe("NestedRepos.checkWritten", () => {
  it("a write inside a new sub/.git is checked by that write's folders, once git would take it for a git dir; one elsewhere finds nothing", async () => {
    const d = tmp();
    git(d, "init", "-q");
    const nested = new NestedRepos();
    nested.preexisting(d);
    expect(await nested.checkWritten([d], () => true, [write(path.join(d, "src", "a.ts"), "x\n")])).toEqual([]);
    const gd = path.join(d, "sub", ".git");
    // A config with no HEAD and refs beside it is no git dir git would use: nothing yet.
    expect(await nested.checkWritten([d], () => true, [write(path.join(gd, "config"), EVIL)])).toEqual([]);
    for (const name of ["HEAD", "objects/x"]) expect(await nested.checkWritten([d], () => true, [write(path.join(gd, name), "ref: refs/heads/main\n")])).toEqual([]);
    const reports = await nested.checkWritten([d], () => true, [write(path.join(gd, "refs", "heads", "x"), "x\n")]);
    expect(reports.map((r) => [path.relative(d, r.entry), r.removed])).toEqual([["sub/.git", ["core.fsmonitor"]]]);
    expect(configOf(gd)).not.toContain("fsmonitor");
  });

  it("two agents writing one new repository at once (config, hook, HEAD…, each write checked as it lands): nothing of theirs is left to run", async () => {
    const d = tmp();
    git(d, "init", "-q");
    const nested = new NestedRepos();
    nested.preexisting(d);
    const gd = path.join(d, "sub", ".git");
    const one = ["config", "HEAD", "objects/x", "refs/heads/x", "config"];
    const two = ["hooks/pre-commit", "config", "hooks/post-checkout", "config.worktree", "config"];
    // Each agent's write is followed by its check, as in the executor; the two interleave.
    const agent = async (files: string[]) => {
      const reports = [];
      for (const name of files) {
        const file = write(path.join(gd, name), name.startsWith("config") ? EVIL : name === "HEAD" ? "ref: refs/heads/main\n" : "#!/bin/sh\ntouch x\n");
        reports.push(...(await nested.checkWritten([d], () => true, [file])));
      }
      return reports;
    };
    const [a, b] = await Promise.all([agent(one), agent(two)]);
    expect([...a, ...b].length).toBeGreaterThan(0);
    expect(configOf(gd)).not.toContain("fsmonitor");
    expect(fs.existsSync(path.join(gd, "config.worktree"))).toBe(false);
    expect(fs.readdirSync(path.join(gd, "hooks"))).toEqual([]);
  });

  it("a .git link written before its git dir exists: the write that completes the git dir is checked", async () => {
    const d = tmp();
    git(d, "init", "-q");
    const nested = new NestedRepos();
    nested.preexisting(d);
    fs.mkdirSync(path.join(d, "sub"));
    fs.symlinkSync("../store", path.join(d, "sub", ".git"));
    expect(await nested.checkWritten([d], () => true, [path.join(d, "sub", ".git")])).toEqual([]);
    const store = path.join(d, "store");
    // Split so that no folder looks like a repository of its own: HEAD here, refs and config in the common dir.
    for (const [name, content] of [["HEAD", "ref: refs/heads/main\n"], ["commondir", "../common\n"]]) await nested.checkWritten([d], () => true, [write(path.join(store, name!), content!)]);
    for (const name of ["objects/x", "refs/heads/x"]) await nested.checkWritten([d], () => true, [write(path.join(d, "common", name), "x\n")]);
    const reports = await nested.checkWritten([d], () => true, [write(path.join(d, "common", "config"), EVIL)]);
    expect(reports.map((r) => [path.relative(d, r.gitDir), r.removed])).toEqual([["common", ["core.fsmonitor"]]]);
  });
});

describe("the git dirs no check changes", () => {
  it("one inside a protected folder of the first look (.claude/), even one that looks like a git dir", async () => {
    const d = tmp();
    git(d, "init", "-q");
    const inClaude = path.join(d, ".claude");
    for (const [name, content] of [["HEAD", "ref: refs/heads/main\n"], ["refs/heads/x", "x\n"], ["config", EVIL], ["hooks/guard.sh", "#!/bin/sh\n"]]) write(path.join(inClaude, name!), content!);
    const nested = new NestedRepos();
    nested.preexisting(d);
    fs.mkdirSync(path.join(d, "sub"));
    fs.symlinkSync("../.claude", path.join(d, "sub", ".git"));
    expect(await nested.check([d], () => true)).toEqual([]);
    expect(await nested.checkWritten([d], () => true, [path.join(d, "sub", ".git")])).toEqual([]);
    expect(configOf(inClaude)).toBe(EVIL);
    expect(fs.readdirSync(path.join(inClaude, "hooks"))).toEqual(["guard.sh"]);
  });

  it("one outside the roots (a temp dir commands share): left as it is, and the user is told", async () => {
    const d = tmp();
    const elsewhere = tmp();
    git(d, "init", "-q");
    git(elsewhere, "init", "-q");
    git(elsewhere, "config", "core.fsmonitor", "touch x");
    const nested = new NestedRepos();
    nested.preexisting(d);
    fs.mkdirSync(path.join(d, "sub"));
    fs.writeFileSync(path.join(d, "sub", ".git"), `gitdir: ${path.join(elsewhere, ".git")}\n`);
    const reports = await nested.check([d], () => true);
    expect(reports.map((r) => [path.relative(d, r.entry), r.failed])).toEqual([["sub/.git", `its git dir ${path.join(elsewhere, ".git")} is outside the workspace, which orca does not change`]]);
    expect(git(elsewhere, "config", "core.fsmonitor")).toBe("touch x\n");
  });
});
