import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatConfig, neutraliseGitDir } from "../../src/tools/sandbox/git-dir-check.js";
import { GitEntryWalker, NestedRepos } from "../../src/tools/sandbox/nested-repos.js";

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8", env: GIT_ENV });

let dirs: string[] = [];
const tmp = () => {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-nested-")));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

describe("neutraliseGitDir", () => {
  it("leaves what git init, git config user.* and git remote add write", async () => {
    const d = tmp();
    git(d, "init", "-q", "r");
    git(path.join(d, "r"), "config", "user.name", "a b");
    git(path.join(d, "r"), "remote", "add", "origin", "https://example.com/x.git");
    expect(await neutraliseGitDir(path.join(d, "r", ".git"))).toBeNull();
  });

  it("keeps the allowed keys, byte for byte as git reads them, and quarantines the rest", async () => {
    const d = tmp();
    git(d, "init", "-q", "r");
    const r = path.join(d, "r");
    const odd = 'a "quoted" \\ back\tslash';
    git(r, "config", "user.name", odd);
    git(r, "config", 'branch.we "ird.x.merge', "refs/heads/we");
    git(r, "config", "core.fsmonitor", "touch x");
    git(r, "config", "alias.st", "!touch x");
    git(r, "config", "include.path", "../../evil.cfg");
    git(r, "config", "filter.lfs.clean", "touch x");
    const before = git(r, "config", "--list", "--local").split("\n").filter((l) => !/fsmonitor|alias|include|filter/.test(l));
    const done = await neutraliseGitDir(path.join(r, ".git"));
    expect(done?.removed.sort()).toEqual(["alias.st", "core.fsmonitor", "filter.lfs.clean", "include.path"]);
    expect(git(r, "config", "--list", "--local").split("\n")).toEqual(before);
    expect(git(r, "config", "user.name")).toBe(`${odd}\n`);
    expect(fs.readFileSync(path.join(done!.quarantine, "config"), "utf8")).toContain("fsmonitor");
  });

  it("moves hooks but not the samples, a config.worktree, and a hooks or config that is a link", async () => {
    const d = tmp();
    git(d, "init", "-q", "r");
    const gd = path.join(d, "r", ".git");
    fs.writeFileSync(path.join(gd, "hooks", "pre-commit"), "#!/bin/sh\n", { mode: 0o755 });
    fs.writeFileSync(path.join(gd, "config.worktree"), "[core]\n\tfsmonitor = x\n");
    const done = await neutraliseGitDir(gd);
    expect(done?.removed.sort()).toEqual(["config.worktree", "hooks/pre-commit"]);
    expect(fs.readdirSync(path.join(gd, "hooks")).every((n) => n.endsWith(".sample"))).toBe(true);
    fs.writeFileSync(path.join(d, "evil.cfg"), "[core]\n\tbare = false\n\tpager = touch x\n");
    fs.rmSync(path.join(gd, "config"));
    fs.symlinkSync(path.join(d, "evil.cfg"), path.join(gd, "config"));
    const again = await neutraliseGitDir(gd);
    expect(again?.removed).toEqual(["config (a link)"]);
    expect(fs.lstatSync(path.join(gd, "config")).isFile()).toBe(true);
    expect(fs.readFileSync(path.join(gd, "config"), "utf8")).toBe('[core]\n\tbare = "false"\n');
  });

  it("formatConfig: a standalone key stays one git reads as true", () => {
    expect(formatConfig([{ name: "core.bare", value: null }])).toBe("[core]\n\tbare\n");
  });
});

describe("GitEntryWalker", () => {
  it("finds .git folders, files and links and bare repositories below the root, follows no link, skips the root's own", () => {
    const d = tmp();
    git(d, "init", "-q");
    git(d, "init", "-q", "a/b");
    fs.mkdirSync(path.join(d, "c"));
    fs.writeFileSync(path.join(d, "c", ".git"), "gitdir: ../a/b/.git\n");
    git(d, "init", "-q", "--bare", "d.git");
    const outside = tmp();
    git(outside, "init", "-q", "x");
    fs.symlinkSync(outside, path.join(d, "link"));
    const found = new GitEntryWalker(d).walk().map((e) => [path.relative(d, e.entry), e.gitDir && path.relative(d, e.gitDir)]);
    expect(found.sort()).toEqual([
      ["a/b/.git", "a/b/.git"],
      ["c/.git", "a/b/.git"],
      ["d.git", "d.git"],
    ]);
  });

  it("a walk after a change finds what was made in a folder it had read before", () => {
    const d = tmp();
    fs.mkdirSync(path.join(d, "deep", "er"), { recursive: true });
    const walker = new GitEntryWalker(d);
    expect(walker.walk()).toEqual([]);
    git(path.join(d, "deep", "er"), "init", "-q", "sub");
    expect(walker.walk().map((e) => path.relative(d, e.entry))).toEqual(["deep/er/sub/.git"]);
  });
});

describe("NestedRepos", () => {
  it("the repositories there at the first look are the user's: listed to protect, never changed; later ones are checked", async () => {
    const d = tmp();
    git(d, "init", "-q", "mine");
    git(path.join(d, "mine"), "config", "core.fsmonitor", "the user's own");
    const reported: string[] = [];
    const nested = new NestedRepos((reports) => reported.push(...reports.map((r) => path.relative(d, r.entry))));
    expect(nested.preexisting(d)).toEqual([path.join(d, "mine", ".git")]);
    git(d, "init", "-q", "theirs");
    git(path.join(d, "theirs"), "config", "core.hooksPath", "x");
    const reports = await nested.check([d], () => true);
    expect(reports.map((r) => [path.relative(d, r.entry), r.removed])).toEqual([["theirs/.git", ["core.hookspath"]]]);
    expect(git(path.join(d, "mine"), "config", "core.fsmonitor")).toBe("the user's own\n");
    await nested.check([d], () => true);
    expect(reported).toEqual(["theirs/.git"]);
  });

  it("a link or gitdir: file a command made that leads to the workspace's own git dir, or a user's, changes nothing there", async () => {
    const d = tmp();
    git(d, "init", "-q");
    git(d, "config", "alias.st", "status");
    git(d, "init", "-q", "mine");
    git(path.join(d, "mine"), "config", "core.hooksPath", "the user's hooks");
    const nested = new NestedRepos();
    nested.preexisting(d);
    fs.mkdirSync(path.join(d, "a"));
    fs.symlinkSync("../.git", path.join(d, "a", ".git"));
    fs.mkdirSync(path.join(d, "b"));
    fs.writeFileSync(path.join(d, "b", ".git"), "gitdir: ../mine/.git\n");
    expect(await nested.check([d], () => true)).toEqual([]);
    expect(git(d, "config", "alias.st")).toBe("status\n");
    expect(git(path.join(d, "mine"), "config", "core.hooksPath")).toBe("the user's hooks\n");
  });

  it("a user's .git file whose git dir was missing at the first look: a git dir a command makes there is checked", async () => {
    const d = tmp();
    git(d, "init", "-q");
    fs.mkdirSync(path.join(d, "c"));
    fs.writeFileSync(path.join(d, "c", ".git"), "gitdir: ../store\n");
    const nested = new NestedRepos();
    expect(nested.preexisting(d)).toEqual([path.join(d, "c", ".git")]);
    git(d, "init", "-q", "--separate-git-dir", path.join(d, "store"), "tmp-wt");
    git(d, "--git-dir=store", "config", "core.fsmonitor", "touch x");
    const reports = await nested.check([d], () => true);
    expect(reports.map((r) => r.removed)).toEqual([["core.fsmonitor"]]);
  });
});

