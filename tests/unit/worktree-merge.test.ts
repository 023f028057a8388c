/**
 * The 3-way merge of a worktree's changes into the main tree, on real git repositories: every
 * kind of change (edit, add, delete, exec bit, symlink), edits on both sides of one file, and the
 * all-or-nothing rule when one file conflicts or cannot be merged (binary).
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Workspace } from "../../src/tools/workspace.js";
import { openRepo } from "../../src/worktrees/contained-repo.js";
import { applyPlans, changesBetween, mergeInto, planMerge } from "../../src/worktrees/merge.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  dir = undefined;
});

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" }).trim();

/** A repo with `files` committed as base, then `agent` applied and committed as head; HEAD back at base. */
function setup(files: Record<string, string>, agent: (root: string) => void): { root: string; base: string; head: string } {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-merge-test-")));
  const root = path.join(dir, "repo");
  fs.mkdirSync(root);
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "base");
  const base = git(root, "rev-parse", "HEAD");
  agent(root);
  git(root, "add", "-A");
  git(root, "commit", "-qm", "agent");
  const head = git(root, "rev-parse", "HEAD");
  git(root, "reset", "-q", "--hard", base);
  return { root, base, head };
}

const repoAt = (root: string) => openRepo({ gitDir: path.join(root, ".git"), commonDir: path.join(root, ".git"), workTree: root });

async function merge(root: string, base: string, head: string) {
  const repo = await repoAt(root);
  return mergeInto(repo, new Workspace(root), await changesBetween(repo, base, head), { ours: "main", theirs: "agent" });
}

describe("worktree merge", () => {
  it("applies edits, additions, deletions, an exec bit and a symlink; the main tree's own edit of another line stays", async () => {
    const { root, base, head } = setup({ "a.txt": "1\n2\n3\n4\n5\n", "gone.txt": "bye\n", "run.sh": "echo hi\n" }, (r) => {
      fs.writeFileSync(path.join(r, "a.txt"), "1\n2\n3\n4\nFIVE\n");
      fs.rmSync(path.join(r, "gone.txt"));
      fs.mkdirSync(path.join(r, "new"));
      fs.writeFileSync(path.join(r, "new", "b.txt"), "new file\n");
      fs.chmodSync(path.join(r, "run.sh"), 0o755);
      fs.symlinkSync("a.txt", path.join(r, "link"));
    });
    // The user's uncommitted edit in the main tree, on another line of the same file.
    fs.writeFileSync(path.join(root, "a.txt"), "ONE\n2\n3\n4\n5\n");
    const out = await merge(root, base, head);
    expect(out.conflicts).toEqual([]);
    expect(out.applied.sort()).toEqual(["a.txt", "gone.txt", "link", "new/b.txt", "run.sh"]);
    expect(fs.readFileSync(path.join(root, "a.txt"), "utf8")).toBe("ONE\n2\n3\n4\nFIVE\n");
    expect(fs.existsSync(path.join(root, "gone.txt"))).toBe(false);
    expect(fs.readFileSync(path.join(root, "new", "b.txt"), "utf8")).toBe("new file\n");
    expect(fs.statSync(path.join(root, "run.sh")).mode & 0o111).toBe(0o111);
    expect(fs.readlinkSync(path.join(root, "link"))).toBe("a.txt");
    // Nothing staged: the merge is an uncommitted change.
    expect(git(root, "diff", "--cached", "--name-only")).toBe("");
  });

  it("a change the main tree already has is not a conflict", async () => {
    const { root, base, head } = setup({ "a.txt": "x\n" }, (r) => fs.writeFileSync(path.join(r, "a.txt"), "y\n"));
    fs.writeFileSync(path.join(root, "a.txt"), "y\n");
    expect(await merge(root, base, head)).toEqual({ applied: [], conflicts: [], outside: [], refused: [] });
  });

  it("one conflicting file stops the whole merge: no file is written, none half-merged", async () => {
    const { root, base, head } = setup({ "a.txt": "1\n2\n3\n", "b.txt": "b\n" }, (r) => {
      fs.writeFileSync(path.join(r, "a.txt"), "1\nagent\n3\n");
      fs.writeFileSync(path.join(r, "b.txt"), "b changed\n");
    });
    fs.writeFileSync(path.join(root, "a.txt"), "1\nuser\n3\n");
    const out = await merge(root, base, head);
    expect(out).toEqual({ applied: [], conflicts: ["a.txt"], outside: [], refused: [] });
    expect(fs.readFileSync(path.join(root, "a.txt"), "utf8")).toBe("1\nuser\n3\n");
    expect(fs.readFileSync(path.join(root, "b.txt"), "utf8")).toBe("b\n");
  });

  it("binary files changed on both sides, a file deleted by one side and edited by the other: conflicts", async () => {
    const { root, base, head } = setup({ "img.bin": "\u0000\u0001\u0002", "doc.txt": "doc\n" }, (r) => {
      fs.writeFileSync(path.join(r, "img.bin"), "\u0000\u0001\u0003");
      fs.rmSync(path.join(r, "doc.txt"));
    });
    fs.writeFileSync(path.join(root, "img.bin"), "\u0000\u0001\u0004");
    fs.writeFileSync(path.join(root, "doc.txt"), "doc, edited by the user\n");
    const out = await merge(root, base, head);
    expect(out.conflicts.sort()).toEqual(["doc.txt", "img.bin"]);
    expect(fs.readFileSync(path.join(root, "doc.txt"), "utf8")).toBe("doc, edited by the user\n");
  });

  it("a change outside the workspace (a sub-directory of the repository) is never written", async () => {
    const { root, base, head } = setup({ "ws/in.txt": "in\n", "out.txt": "out\n" }, (r) => {
      fs.writeFileSync(path.join(r, "ws", "in.txt"), "in, changed\n");
      fs.writeFileSync(path.join(r, "out.txt"), "out, changed\n");
    });
    const repo = await repoAt(root);
    const out = await mergeInto(repo, new Workspace(path.join(root, "ws")), await changesBetween(repo, base, head), { ours: "main", theirs: "agent" });
    expect(out).toEqual({ applied: [], conflicts: [], outside: ["out.txt"], refused: [] });
    expect(fs.readFileSync(path.join(root, "out.txt"), "utf8")).toBe("out\n");
    expect(fs.readFileSync(path.join(root, "ws", "in.txt"), "utf8")).toBe("in\n");
  });

  it("a branch's gitlink and its symlink pointing out of the workspace are refused, each with why; nothing is written", async () => {
    const { root, base, head } = setup({ "a.txt": "a\n" }, (r) => {
      fs.writeFileSync(path.join(r, "a.txt"), "a, changed\n");
      fs.symlinkSync("/etc/passwd", path.join(r, "evil"));
      // A nested repository: `git add -A` records it as a gitlink.
      fs.mkdirSync(path.join(r, "sub"));
      git(path.join(r, "sub"), "init", "-q");
      git(path.join(r, "sub"), "commit", "-q", "--allow-empty", "-m", "nested");
    });
    const out = await merge(root, base, head);
    expect(out.applied).toEqual([]);
    expect(out.outside).toEqual(["evil"]);
    expect(out.refused).toEqual([{ path: "sub", why: "a nested repository (gitlink) is never merged" }]);
    expect(fs.readFileSync(path.join(root, "a.txt"), "utf8")).toBe("a\n");
    expect(fs.existsSync(path.join(root, "evil"))).toBe(false);
  });

  it("a directory of the main tree that is a symlink (to .git) is never written through", async () => {
    const { root, base, head } = setup({ "a.txt": "a\n" }, (r) => {
      fs.mkdirSync(path.join(r, "foo", "hooks"), { recursive: true });
      fs.writeFileSync(path.join(r, "foo", "hooks", "pre-commit"), "#!/bin/sh\nexit 1\n");
    });
    fs.symlinkSync(".git", path.join(root, "foo"));
    const out = await merge(root, base, head);
    expect(out.refused).toEqual([{ path: "foo/hooks/pre-commit", why: "foo is a symlink in the main tree; the merge follows none" }]);
    expect(fs.existsSync(path.join(root, ".git", "hooks", "pre-commit"))).toBe(false);
  });

  it("writes like write_file: each file through a temporary file in its own folder, announced before it exists, renamed over the target; the mode kept but for the exec bit", async () => {
    const { root, base, head } = setup({ "a.txt": "old\n", "deep/b.sh": "echo 1\n" }, (r) => {
      fs.writeFileSync(path.join(r, "a.txt"), "new\n");
      fs.writeFileSync(path.join(r, "deep", "b.sh"), "echo 2\n");
      fs.chmodSync(path.join(r, "deep", "b.sh"), 0o755);
    });
    fs.chmodSync(path.join(root, "a.txt"), 0o600);
    const inodeBefore = fs.statSync(path.join(root, "a.txt")).ino;
    const repo = await repoAt(root);
    const ws = new Workspace(root);
    const plan = await planMerge(repo, ws, await changesBetween(repo, base, head), { ours: "main", theirs: "agent" });
    const announced: Array<{ file: string; temp: string; existed: boolean }> = [];
    const out = await applyPlans(ws, plan.plans, (p, temp) => announced.push({ file: p.path, temp, existed: fs.existsSync(temp) }));
    expect(out.refused).toEqual([]);
    expect(announced.map((a) => path.relative(root, a.file)).sort()).toEqual(["a.txt", "deep/b.sh"]);
    for (const a of announced) {
      expect(path.dirname(a.temp)).toBe(path.dirname(a.file));
      expect(path.basename(a.temp)).toMatch(/^\.orca-tmp-/);
      expect(a.existed).toBe(false);
      expect(fs.existsSync(a.temp)).toBe(false);
    }
    expect(fs.readFileSync(path.join(root, "a.txt"), "utf8")).toBe("new\n");
    // Replaced, not rewritten in place: a crash leaves the old file or the new one.
    expect(fs.statSync(path.join(root, "a.txt")).ino).not.toBe(inodeBefore);
    expect(fs.statSync(path.join(root, "a.txt")).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(root, "deep", "b.sh")).mode & 0o111).not.toBe(0);
  });
});

/**
 * A bash loop racing the merge; stopped (and waited for) by the returned function. The loop runs
 * in a process group of its own and the whole group is killed: killing bash alone left its
 * running `ln`/`mv` to plant one more link after the test, and the folder's removal then failed
 * (ENOTEMPTY, seen under load).
 */
function raceLoop(script: string): () => Promise<void> {
  const child = spawn("bash", ["-c", `while :; do ${script}; done`], { stdio: "ignore", detached: true });
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      process.kill(-child.pid!, "SIGKILL");
    });
}

describe("merge-back against a background shell swapping folders for symlinks", () => {
  it("a branch's symlink is never renamed through a folder swapped for a link out (~/.bashrc stays)", async () => {
    const { root } = setup({ "payload.sh": "evil\n" }, (r) => fs.writeFileSync(path.join(r, "other.txt"), "x\n"));
    const home = path.join(dir!, "home");
    fs.mkdirSync(home);
    fs.writeFileSync(path.join(home, ".bashrc"), "mine\n");
    const d = path.join(root, "d");
    const stop = raceLoop(`ln -sT '${home}' '${d}' 2>/dev/null; rm -f '${d}' 2>/dev/null`);
    try {
      await vi.waitFor(() => expect(fs.lstatSync(d).isSymbolicLink()).toBe(true), { timeout: 10_000, interval: 1 });
      const plan = { path: path.join(d, ".bashrc"), before: { kind: "missing" as const, bytes: Buffer.alloc(0) }, write: { kind: "link" as const, bytes: Buffer.from("../payload.sh") } };
      for (let i = 0; i < 300; i++) {
        await applyPlans(new Workspace(root), [plan]);
        expect(fs.lstatSync(path.join(home, ".bashrc")).isFile()).toBe(true);
        expect(fs.readFileSync(path.join(home, ".bashrc"), "utf8")).toBe("mine\n");
        fs.rmSync(d, { recursive: true, force: true });
      }
      expect(fs.readdirSync(home)).toEqual([".bashrc"]);
    } finally {
      await stop();
    }
  });

  it("'ours' is never read through a folder swapped for a link: an exec-bit change does not merge a secret in", async () => {
    const { root, base, head } = setup({ "d/id_rsa": "not a secret\n" }, (r) => fs.chmodSync(path.join(r, "d", "id_rsa"), 0o755));
    const ssh = path.join(dir!, "ssh");
    fs.mkdirSync(ssh);
    fs.writeFileSync(path.join(ssh, "id_rsa"), "SECRET KEY\n");
    const d = path.join(root, "d");
    const moved = path.join(root, "d-real");
    const repo = await repoAt(root);
    const changes = await changesBetween(repo, base, head);
    const stop = raceLoop(`mv -T '${d}' '${moved}' && ln -sT '${ssh}' '${d}' && rm '${d}' && mv -T '${moved}' '${d}'`);
    try {
      await vi.waitFor(() => expect(fs.existsSync(moved)).toBe(true), { timeout: 10_000, interval: 1 });
      for (let i = 0; i < 300; i++) {
        const out = await planMerge(repo, new Workspace(root), changes, { ours: "main", theirs: "agent" });
        for (const p of out.plans) expect(p.write.bytes.toString()).not.toContain("SECRET");
      }
    } finally {
      await stop();
    }
    if (fs.existsSync(moved)) {
      fs.rmSync(d, { force: true });
      fs.renameSync(moved, d);
    }
    expect(fs.readFileSync(path.join(ssh, "id_rsa"), "utf8")).toBe("SECRET KEY\n");
  });
});

describe("a branch's symlinks that chain out of the workspace", () => {
  it("a target with `..` after a name is refused before anything is written (a/s -> .., x -> a/s/../../etc)", async () => {
    const { root, base, head } = setup({ "a/keep.txt": "k\n" }, (r) => {
      fs.symlinkSync("..", path.join(r, "a", "s"));
      fs.symlinkSync("a/s/../../etc", path.join(r, "x"));
    });
    const out = await merge(root, base, head);
    expect(out.applied).toEqual([]);
    expect(out.refused.map((r) => r.path)).toEqual(["x"]);
    expect(fs.existsSync(path.join(root, "x"))).toBe(false);
    expect(fs.existsSync(path.join(root, "a", "s"))).toBe(false);
  });

  it("a link through the main tree's own link out is removed again after the write, and said", async () => {
    const { root, base, head } = setup({ "k.txt": "k\n" }, (r) => fs.symlinkSync("data/secret", path.join(r, "peek")));
    const data = path.join(dir!, "data");
    fs.mkdirSync(data);
    fs.writeFileSync(path.join(data, "secret"), "s\n");
    fs.symlinkSync(data, path.join(root, "data")); // the user's own link, untracked
    const out = await merge(root, base, head);
    expect(out.applied).toEqual([]);
    expect(out.refused).toEqual([{ path: "peek", why: expect.stringContaining("leads out of the workspace") }]);
    expect(fs.existsSync(path.join(root, "peek"))).toBe(false);
    expect(fs.readFileSync(path.join(data, "secret"), "utf8")).toBe("s\n");
  });
});
