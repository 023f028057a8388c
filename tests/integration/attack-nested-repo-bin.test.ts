/**
 * A git repository planted inside the workspace by a sandboxed command (`git init sub`, or a
 * `.git` folder written by hand, a `.git` file pointing at an agent-written git dir, one inside an
 * ignored folder), or an existing untracked one the agent changes: its config or hooks name code
 * that runs when the user later runs git there, outside any sandbox. Through the real bin, real
 * bwrap and real git, headless, `permissions.sandboxed_commands: auto` (so the commands run
 * unasked in the workspace-write sandbox): after the run the test runs git in the folder as a
 * user would and asserts that the marker the planted command would write is not there.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from "../../src/model/scripted.js";
import { lastToolResult, perAgent, runOrca, type TempWorkspace } from "../fixtures/harness.js";
import { bash, fsmonitor, git, plant, repo, userGit } from "../fixtures/planted-repo.js";
import { outsideDir } from "../fixtures/sandbox.js";

let server: ScriptedServer | undefined;
let ws: TempWorkspace | undefined;
let outside: ReturnType<typeof outsideDir>;

beforeAll(() => {
  outside = outsideDir();
});
afterAll(() => outside.cleanup());
afterEach(async () => {
  await server?.close();
  ws?.cleanup();
  server = undefined;
  ws = undefined;
});

async function orca(w: TempWorkspace, replies: ScriptedReply[]) {
  server = await startScriptedServer([...replies, { text: "done" }]);
  const run = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "stream-json"], { ws: w, timeoutMs: 90_000 });
  expect(run.code, run.stderr).toBe(0);
  return { run, results: replies.map((_, i) => lastToolResult(server!.requests[i + 1]!)) };
}


describe("a git repository a sandboxed command plants in the workspace runs nothing when the user runs git there", () => {
  it("git init sub + core.fsmonitor: the user's git status in sub runs no fsmonitor", async () => {
    const marker = path.join(outside.dir, "fsmonitor-init");
    ws = repo();
    const { run, results } = await orca(ws, [bash(`git init -q sub && git -C sub config core.fsmonitor '${fsmonitor(marker)}' && echo x > sub/f.txt`)]);
    userGit(ws.file("sub"), "status");
    expect(fs.existsSync(marker)).toBe(false);
    // The repository itself is kept, the key is not (kept aside, not lost); the user and the model
    // are told in one line, and the log has the detail.
    expect(fs.existsSync(ws.file("sub/.git/HEAD"))).toBe(true);
    expect(userGit(ws.file("sub"), "config", "core.bare").stdout).toBe("false\n");
    const event = JSON.parse(run.stdout.split("\n").find((l) => l.includes('"nested_repo_neutralised"'))!) as { path: string; removed: string[]; quarantine: string };
    expect(event).toMatchObject({ path: "sub/.git", removed: ["core.fsmonitor"] });
    expect(fs.readFileSync(path.join(event.quarantine, "config"), "utf8")).toContain("fsmonitor");
    expect(run.stderr).toMatch(/^orca: warning: sub\/\.git: a git repository an agent made held what would run code when you run git there \(core\.fsmonitor\); moved to /m);
    expect(results[0]).toMatch(/\[orca: sub\/\.git: a git repository an agent made held what would run code[^\n]*core\.fsmonitor/);
  });

  it("a .git folder written by hand (no git involved), with core.fsmonitor and a hooksPath", async () => {
    const marker = path.join(outside.dir, "fsmonitor-hand");
    ws = repo();
    const { results } = await orca(ws, [
      plant(
        `mkdir -p deep/er/sub/.git/objects deep/er/sub/.git/refs/heads hooks-here && echo 'ref: refs/heads/main' > deep/er/sub/.git/HEAD && ` +
          `printf '[core]\\n\\tfsmonitor = "${fsmonitor(marker)}"\\n\\thooksPath = ../../../../hooks-here\\n' > deep/er/sub/.git/config`,
      ),
    ]);
    expect(results[0]).toMatch(/planted/);
    userGit(ws.file("deep/er/sub"), "status");
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a hook in a nested repository's hooks/: the user's commit there runs it not", async () => {
    const marker = path.join(outside.dir, "hook-ran");
    ws = repo();
    const { results } = await orca(ws, [plant(`git init -q sub && printf '#!/bin/sh\\ntouch ${marker}\\n' > sub/.git/hooks/pre-commit && chmod +x sub/.git/hooks/pre-commit`)]);
    expect(results[0]).toMatch(/planted/);
    userGit(ws.file("sub"), "commit", "--allow-empty", "-qm", "the user's commit");
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a .git file pointing at a git dir the command wrote elsewhere in the workspace", async () => {
    const marker = path.join(outside.dir, "fsmonitor-pointer");
    ws = repo();
    const { results } = await orca(ws, [
      plant(`git init -q store && mv store/.git stash-dir && mkdir -p sub && echo 'gitdir: ../stash-dir' > sub/.git && git --git-dir=stash-dir config core.fsmonitor '${fsmonitor(marker)}'`),
    ]);
    expect(results[0]).toMatch(/planted/);
    userGit(ws.file("sub"), "status");
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a nested repository inside an ignored folder", async () => {
    const marker = path.join(outside.dir, "fsmonitor-ignored");
    ws = repo({ ".gitignore": "build/\n" });
    await orca(ws, [bash(`mkdir -p build && git init -q build/out && git -C build/out config core.fsmonitor '${fsmonitor(marker)}'`)]);
    userGit(ws.file("build/out"), "status");
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a bare repository (a folder with HEAD, objects and refs) with a pager: the key is gone", async () => {
    ws = repo();
    const { results } = await orca(ws, [plant("git init -q --bare tools.git && git --git-dir=tools.git config core.pager 'touch PAGER'")]);
    expect(results[0]).toMatch(/planted/);
    expect(userGit(ws.dir, "config", "--file", "tools.git/config", "core.pager").stdout).toBe("");
    expect(userGit(ws.dir, "config", "--file", "tools.git/config", "core.bare").stdout).toBe("true\n");
  });

  it("a background shell's repository is checked once it has ended", async () => {
    const waitUntil = (done: () => boolean) => vi.waitFor(() => expect(done()).toBe(true), { timeout: 60_000, interval: 10 });
    const marker = path.join(outside.dir, "fsmonitor-background");
    ws = repo();
    server = await startScriptedServer(async (request) => {
      const n = server!.requests.length;
      if (n === 1) return { toolCalls: [{ name: "bash", args: { command: `git init -q sub && git -C sub config core.fsmonitor '${fsmonitor(marker)}'; : > ran`, run_in_background: true } }] };
      if (/status: running/.test(lastToolResult(request)) || n === 2) {
        // Polled once the command's last line has run: what is left is the shell's exit, which
        // the step budget below covers however fast steps are.
        await waitUntil(() => fs.existsSync(ws!.file("ran")));
        return { toolCalls: [{ name: "bash_output", args: { shell_id: "shell_1" } }] };
      }
      return { text: "done" };
    });
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "stream-json", "--max-steps", "1000"], { ws, timeoutMs: 90_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(fs.existsSync(ws.file("sub/.git/HEAD"))).toBe(true);
    userGit(ws.file("sub"), "status");
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("an existing untracked nested repository of the user's: its config cannot be changed, and its own settings stay", async () => {
    const marker = path.join(outside.dir, "fsmonitor-existing");
    ws = repo({ ".gitignore": "vendor/\n" });
    git(ws.dir, "init", "-q", "vendor/lib");
    git(ws.file("vendor/lib"), "config", "user.name", "the user's");
    const before = fs.readFileSync(ws.file("vendor/lib/.git/config"), "utf8");
    const { results } = await orca(ws, [
      plant(`git -C vendor/lib config core.fsmonitor '${fsmonitor(marker)}'; printf '#!/bin/sh\\ntouch ${marker}\\n' > vendor/lib/.git/hooks/pre-commit; chmod +x vendor/lib/.git/hooks/pre-commit; echo tried`),
    ]);
    expect(results[0]).toMatch(/tried\nplanted/);
    userGit(ws.file("vendor/lib"), "commit", "--allow-empty", "-qm", "the user's commit");
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.readFileSync(ws.file("vendor/lib/.git/config"), "utf8")).toBe(before);
  });
});

describe("an agent's own nested repository still works", () => {
  it("git init + commit in one command, more commits in later ones, user settings and a remote kept", async () => {
    ws = repo();
    const { run, results } = await orca(ws, [
      bash("git init -q app && cd app && git config user.name agent && git config user.email agent@x && git remote add origin https://example.com/app.git && echo one > f.txt && git add f.txt && git commit -qm first && echo ok1"),
      bash("cd app && echo two >> f.txt && git commit -qam second && git log --format=%s && echo ok2"),
    ]);
    expect(results[0]).toMatch(/ok1/);
    expect(results[1]).toMatch(/second\nfirst\nok2/);
    expect(userGit(ws.file("app"), "log", "--format=%s").stdout).toBe("second\nfirst\n");
    expect(userGit(ws.file("app"), "config", "user.name").stdout).toBe("agent\n");
    expect(userGit(ws.file("app"), "remote", "get-url", "origin").stdout).toBe("https://example.com/app.git\n");
    expect(run.stdout).not.toMatch(/nested_repo_neutralised/);
  });
});

describe("orca's own git never runs a nested repository's config", () => {
  it("the user's nested repository with a core.fsmonitor: the snapshot, the worktree's commit and the merge-back run none of it", async () => {
    const marker = path.join(outside.dir, "fsmonitor-orca-git");
    ws = repo({ ".orca/agents/wt-shell.md": "---\nname: wt-shell\ndescription: Runs commands in its own git worktree.\ntools: [bash]\nisolation: worktree\n---\nYou run commands.\n" });
    git(ws.dir, "init", "-q", "vendor/lib");
    fs.writeFileSync(ws.file("vendor/lib/f.txt"), "x\n");
    git(ws.file("vendor/lib"), "config", "core.fsmonitor", fsmonitor(marker));
    // Uncommitted work in the main tree: the snapshot before the worktree has something to record.
    fs.appendFileSync(ws.file("a.txt"), "uncommitted\n");
    server = await startScriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [{ name: "delegate", args: { agent: "wt-shell", task: "change a.txt" } }] }, { text: "done" }],
        "wt-shell-1": [bash("echo two >> a.txt && echo x > vendor-new.txt"), { text: "changed" }],
      }),
    );
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "stream-json"], { ws, timeoutMs: 90_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/"type":"worktree"[^\n]*"action":"merged"/);
    expect(fs.readFileSync(ws.file("a.txt"), "utf8")).toBe("one\nuncommitted\ntwo\n");
    expect(fs.existsSync(marker)).toBe(false);
  });
});
