import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { autoApprovalProblem } from "../../src/tools/permissions/command-policy.js";
import { revisionPaths } from "../../src/tools/permissions/git-content.js";
import { analyseCommand, loadShellParser } from "../../src/tools/shell/index.js";
import { Workspace } from "../../src/tools/workspace.js";

/** Security review of issue 26's git content reads: the path a REV:path word names, and what "cannot tell" means. */

let dir: string;
const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@localhost", ...args], { cwd: dir, env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } });

beforeAll(async () => {
  await loadShellParser();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-git-content-"));
  fs.writeFileSync(path.join(dir, ".env"), "SECRET=x\n");
  fs.writeFileSync(path.join(dir, "a.txt"), "a\n");
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "one");
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const problemOf = (command: string) =>
  autoApprovalProblem(analyseCommand(command), { workspace: new Workspace(dir), readDenied: (p) => (p.startsWith(".env") ? "read_file(.env*)" : undefined), knownWordsOnly: false });

describe("revisionPaths", () => {
  it("reads past a stage spec and past ^{…} / @{…} groups, and keeps every suffix after a colon", () => {
    expect(revisionPaths(":0:.env")).toContain(".env");
    expect(revisionPaths(":3:.env")).toContain(".env");
    expect(revisionPaths("HEAD^{/[:]?}:.env")).toContain(".env");
    expect(revisionPaths("main@{1:2}:.env")).toContain(".env");
    expect(revisionPaths("HEAD:a.txt")).toEqual(["a.txt"]);
    expect(revisionPaths("HEAD")).toEqual([]);
  });
});

describe("git content in the auto-approval check", () => {
  it("a stage spec and a colon in braces name .env", () => {
    expect(problemOf("git show :0:.env")).toMatch(/\.env, which read_file/);
    expect(problemOf("git show 'HEAD^{/[:]?}:.env'")).toMatch(/\.env, which read_file/);
    expect(problemOf("git show HEAD:a.txt")).toBeNull();
    // A REV: with no path is the whole tree.
    expect(problemOf("git archive HEAD:")).toMatch(/\.env is tracked/);
  });

  it("when git cannot list the files (a damaged index), a command printing every file asks", () => {
    const index = path.join(dir, ".git", "index");
    const good = fs.readFileSync(index);
    fs.writeFileSync(index, "not an index");
    try {
      expect(problemOf("git log -p")).toMatch(/git cannot list/);
    } finally {
      fs.writeFileSync(index, good);
    }
    expect(problemOf("git log -p")).toMatch(/\.env is tracked/);
  });
});
