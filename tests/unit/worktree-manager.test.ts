/**
 * WorktreeManager on real git repositories: what a new worktree starts from (HEAD plus the main
 * tree's uncommitted changes, the user's index untouched), the untracked-files limit, finishing
 * (commit on the branch, merge, unlock), and an agent that rewrites its worktree's `.git` file.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Workspace } from "../../src/tools/workspace.js";
import { UNTRACKED_LIMIT, WorktreeManager, type Worktree } from "../../src/worktrees/worktree.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" }).trim();

function repo(files: Record<string, string>): { root: string; manager: WorktreeManager } {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-wt-test-")));
  const root = path.join(dir, "repo");
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "base");
  return { root, manager: new WorktreeManager({ dir: path.join(dir, "worktrees"), sessionId: "s1", workspace: new Workspace(root) }) };
}

async function open(manager: WorktreeManager, id: string): Promise<{ wt: Worktree; note?: string }> {
  const opened = await manager.open(id);
  if ("unavailable" in opened) throw new Error(opened.unavailable);
  return { wt: opened.worktree, note: opened.note };
}

const noMerge = { merge: false, labels: { ours: "main", theirs: "agent" }, withPaths: () => Promise.reject(new Error("no merge expected")) };

describe("WorktreeManager", () => {
  it("starts from HEAD plus the uncommitted changes (staged, unstaged, deleted, untracked); the main index is untouched", async () => {
    const { root, manager } = repo({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", ".gitignore": "ignored/\n" });
    fs.writeFileSync(path.join(root, "a.txt"), "a, staged\n");
    git(root, "add", "a.txt");
    fs.writeFileSync(path.join(root, "b.txt"), "b, unstaged\n");
    fs.rmSync(path.join(root, "c.txt"));
    fs.writeFileSync(path.join(root, "new.txt"), "untracked\n");
    fs.mkdirSync(path.join(root, "ignored"));
    fs.writeFileSync(path.join(root, "ignored", "x"), "ignored\n");
    const statusBefore = git(root, "status", "--porcelain");
    const { wt } = await open(manager, "editor-1");
    expect(fs.readFileSync(path.join(wt.path, "a.txt"), "utf8")).toBe("a, staged\n");
    expect(fs.readFileSync(path.join(wt.path, "b.txt"), "utf8")).toBe("b, unstaged\n");
    expect(fs.existsSync(path.join(wt.path, "c.txt"))).toBe(false);
    expect(fs.readFileSync(path.join(wt.path, "new.txt"), "utf8")).toBe("untracked\n");
    expect(fs.existsSync(path.join(wt.path, "ignored"))).toBe(false);
    expect(git(root, "status", "--porcelain")).toBe(statusBefore);
    expect(git(root, "rev-parse", `${wt.base}^`)).toBe(git(root, "rev-parse", "HEAD"));
    expect(git(wt.path, "status", "--porcelain")).toBe("");
    expect(git(root, "worktree", "list", "--porcelain")).toContain(`locked orca session s1 pid ${process.pid}`);
    // Opened again (a resumed agent): the same worktree and base.
    const again = await manager.open("editor-1");
    expect("worktree" in again && again.reused && again.worktree.base).toBe(wt.base);
  });

  it("sixteen agents started at once each get a worktree, in one session and across sessions (as two orca processes would); all are removed at once", async () => {
    const { root } = repo({ "a.txt": "a\n" });
    fs.writeFileSync(path.join(root, "a.txt"), "a, edited\n");
    // git's worktree commands read every other worktree's admin directory, which may be half made.
    // Three rounds: before the fix a round of sixteen lost at least one agent most of the time.
    for (let round = 1; round <= 3; round++) {
      const session = new WorktreeManager({ dir: path.join(dir!, "worktrees"), sessionId: `r${round}`, workspace: new Workspace(root) });
      const perSession = (k: number) => new WorktreeManager({ dir: path.join(dir!, "worktrees"), sessionId: `r${round}-${k}`, workspace: new Workspace(root) });
      const opened = await Promise.all([
        ...Array.from({ length: 16 }, (_, k) => open(session, `editor-${k}`).then((o) => ({ o, manager: session }))),
        ...Array.from({ length: 16 }, (_, k) => perSession(k)).map((m, k) => open(m, `other-${k}`).then((o) => ({ o, manager: m }))),
      ]);
      for (const { o } of opened) expect(fs.readFileSync(path.join(o.wt.path, "a.txt"), "utf8")).toBe("a, edited\n");
      await Promise.all(opened.map(({ o, manager }) => manager.remove(o.wt)));
      expect(git(root, "worktree", "list").split("\n")).toHaveLength(1);
      expect(git(root, "branch", "--list", "--format=%(refname:short)", "orca/*")).toBe("");
    }
  });

  it(`leaves untracked files out when there are more than ${UNTRACKED_LIMIT}, and says so`, async () => {
    const { root, manager } = repo({ "a.txt": "a\n" });
    fs.mkdirSync(path.join(root, "out"));
    for (let i = 0; i <= UNTRACKED_LIMIT; i++) fs.writeFileSync(path.join(root, "out", `f${i}`), "");
    fs.writeFileSync(path.join(root, "a.txt"), "a, edited\n");
    const { wt, note } = await open(manager, "editor-1");
    expect(note).toBe(`its worktree has none of the ${UNTRACKED_LIMIT + 1} untracked files of the main tree (more than ${UNTRACKED_LIMIT}; add them to .gitignore or commit them)`);
    expect(fs.existsSync(path.join(wt.path, "out"))).toBe(false);
    expect(fs.readFileSync(path.join(wt.path, "a.txt"), "utf8")).toBe("a, edited\n");
  });

  it("finish commits the agent's work on its branch and unlocks it; a rewritten .git file in the worktree is not followed", async () => {
    const { root, manager } = repo({ "a.txt": "a\n" });
    const { wt } = await open(manager, "editor-1");
    fs.writeFileSync(path.join(wt.path, "a.txt"), "a, by the agent\n");
    // The agent points its worktree's .git at the main repository: orca's commit must not touch the main index.
    fs.writeFileSync(path.join(wt.path, ".git"), `gitdir: ${path.join(root, ".git")}\n`);
    const indexBefore = fs.readFileSync(path.join(root, ".git", "index"));
    const done = await manager.finish(wt, { ...noMerge, message: "orca: work of editor-1" });
    expect(done.head).not.toBeNull();
    expect(git(root, "show", `${wt.branch}:a.txt`)).toBe("a, by the agent");
    expect(git(root, "log", "-1", "--format=%an %s", wt.branch)).toBe("orca orca: work of editor-1");
    expect(fs.readFileSync(path.join(root, ".git", "index")).equals(indexBefore)).toBe(true);
    expect(git(root, "rev-parse", "HEAD")).toBe(git(root, "rev-parse", `${wt.base}`));
    expect(git(root, "worktree", "list", "--porcelain")).not.toContain("locked");
    await manager.remove(wt);
    expect(fs.existsSync(wt.path)).toBe(false);
    expect(git(root, "branch", "--list", "orca/*")).toBe("");
    expect(git(root, "for-each-ref", "refs/orca/")).toBe("");
  });

  it("an admin dir whose commondir leads to a copy of the repository with a core.fsmonitor is refused before any git runs in it", async () => {
    const { root, manager } = repo({ "a.txt": "a\n" });
    const { wt } = await open(manager, "editor-1");
    fs.writeFileSync(path.join(wt.path, "a.txt"), "a, by the agent\n");
    const marker = path.join(dir!, "fsmonitor-ran");
    const evil = path.join(dir!, "evil");
    fs.cpSync(path.join(root, ".git"), evil, { recursive: true });
    fs.appendFileSync(path.join(evil, "config"), `[core]\n\tfsmonitor = "touch ${marker}"\n`);
    fs.writeFileSync(path.join(wt.gitDir, "commondir"), `${evil}\n`);
    await expect(manager.finish(wt, { ...noMerge, message: "work" })).rejects.toThrow(/has a commondir that leads elsewhere; orca will not use it/);
    expect(fs.existsSync(marker)).toBe(false);
    fs.writeFileSync(path.join(wt.gitDir, "commondir"), "../..\n");
    fs.writeFileSync(path.join(wt.gitDir, "gitdir"), `${path.join(evil, "x", ".git")}\n`);
    await expect(manager.finish(wt, { ...noMerge, message: "work" })).rejects.toThrow(/has a gitdir that leads elsewhere/);
  });

  it("a filter driver in the repository's config, named by a .gitattributes, runs neither in the snapshot nor in the worktree's checkout or commit", async () => {
    const { root, manager } = repo({ "a.txt": "a\n", ".gitattributes": "*.txt filter=evil\n" });
    const marker = path.join(dir!, "filter-ran");
    for (const key of ["clean", "smudge"]) git(root, "config", `filter.evil.${key}`, `touch ${marker}; cat`);
    git(root, "config", "filter.evil.process", `touch ${marker}`);
    git(root, "config", "filter.evil.required", "true");
    fs.writeFileSync(path.join(root, "a.txt"), "a, changed\n");
    const { wt } = await open(manager, "editor-1");
    expect(fs.readFileSync(path.join(wt.path, "a.txt"), "utf8")).toBe("a, changed\n");
    fs.writeFileSync(path.join(wt.path, "a.txt"), "a, by the agent\n");
    const done = await manager.finish(wt, { ...noMerge, message: "work" });
    expect(done.head).not.toBeNull();
    expect(fs.existsSync(marker)).toBe(false);
  });
  it("a same-size change in the index's own timestamp second (racy git) is in the snapshot, as git status sees it", async () => {
    const { root, manager } = repo({ "a.txt": "one\n" });
    // ctime cannot be set from a test; with trustctime off, stat data is size and mtime, both set below.
    git(root, "config", "core.trustctime", "false");
    const index = path.join(root, ".git", "index");
    const t = Math.floor(fs.statSync(index).mtimeMs / 1000) - 100;
    fs.utimesSync(path.join(root, "a.txt"), t, t);
    git(root, "add", "a.txt");
    // Same size, same inode, same mtime as the index entry, in the second the index was written.
    fs.writeFileSync(path.join(root, "a.txt"), "two\n");
    fs.utimesSync(path.join(root, "a.txt"), t, t);
    fs.utimesSync(index, t, t);
    expect(git(root, "--no-optional-locks", "status", "--porcelain")).toBe("M a.txt");
    const { wt } = await open(manager, "editor-1");
    expect(fs.readFileSync(path.join(wt.path, "a.txt"), "utf8")).toBe("two\n");
  });
});
