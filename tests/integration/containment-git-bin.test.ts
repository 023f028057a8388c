/**
 * The attacks of issue 26 on the git orca runs for its agents (snapshots, worktrees, commits,
 * merge-back), through the real bin: a scripted model calls the tools, headless, no --yes,
 * `permissions.allow: ["bash"]`, real bwrap, real git. Each asserts that no marker was written
 * outside the sandbox and no hook or config reached the user's repository.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedServer } from "../../src/model/scripted.js";
import { agentOf, perAgent, runOrca, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, sharedOutsideDir, workspace } from "../fixtures/rig.js";

const outside = sharedOutsideDir();

const agentFile = (name: string, isolated: boolean) => `---
name: ${name}
description: Runs commands${isolated ? " in its own git worktree" : ""}.
tools: [bash]
${isolated ? "isolation: worktree\n" : ""}---
You run commands.
`;

const CONFIG = 'permissions:\n  allow: ["bash"]\n';

const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=test", "-c", "user.email=test@localhost", "-c", "init.defaultBranch=main", ...args], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  }).trim();

/** A repository with one commit, the two agents and the config; nothing else. */
function repo(files: Record<string, string> = {}): TempWorkspace {
  const w = workspace({
    "a.txt": "one\n",
    ".orca/agents/wt-shell.md": agentFile("wt-shell", true),
    ".orca/agents/helper.md": agentFile("helper", false),
    ".orca/config.yaml": CONFIG,
    ...files,
  });
  git(w.dir, "init", "-q");
  git(w.dir, "add", "-A");
  git(w.dir, "commit", "-qm", "start");
  return w;
}

const bash = (command: string) => ({ toolCalls: [{ name: "bash", args: { command } }] });
const delegate = (agent: string, task: string) => ({ name: "delegate", args: { agent, task } });
const toolResults = (r: RecordedRequest) => r.body.messages.filter((m) => m.role === "tool").map((m) => m.content ?? "");
const requestsOf = (s: ScriptedServer, id: string) => s.requests.filter((r) => agentOf(r) === id);

async function run(server: ScriptedServer, w: TempWorkspace, args: string[] = []) {
  const result = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "stream-json", ...args], { ws: w, timeoutMs: 90_000 });
  expect(result.code, result.stderr).toBe(0);
  return result;
}

describe("merge-back is a write like any other", () => {
  it("a symlink the coordinator made to .git is not followed: no hook lands in the real .git/hooks", async () => {
    const marker = path.join(outside.dir, "hook-ran");
    const server = await scriptedServer(
      perAgent({
        coordinator: [bash("ln -s .git foo"), { toolCalls: [delegate("wt-shell", "write the hook")] }, { text: "done" }],
        "wt-shell-1": [bash(`rm foo && mkdir -p foo/hooks && printf '#!/bin/sh\\ntouch ${marker}\\n' > foo/hooks/pre-commit && chmod +x foo/hooks/pre-commit`), { text: "written" }],
      }),
    );
    const ws = repo();
    await run(server, ws);
    expect(fs.existsSync(ws.file(".git/hooks/pre-commit"))).toBe(false);
    expect(fs.lstatSync(ws.file("foo")).isSymbolicLink()).toBe(true);
    const result = toolResults(requestsOf(server, "coordinator")[2]!).at(-1)!;
    expect(result).toMatch(/worktree: NOT merged — .*foo\/hooks\/pre-commit: foo is a symlink in the main tree/);
    git(ws.dir, "commit", "--allow-empty", "-qm", "the user's next commit");
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("the same through a symlink to .orca: the main config gets no hook", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [bash("ln -s .orca foo"), { toolCalls: [delegate("wt-shell", "write the config")] }, { text: "done" }],
        "wt-shell-1": [bash(`rm foo && mkdir foo && printf 'sandbox:\\n  hooks: false\\nhooks:\\n  SessionStart:\\n    - hooks: [{type: command, command: "touch PWNED"}]\\n' > foo/config.yaml`), { text: "written" }],
      }),
    );
    // The workspace has no .orca/config.yaml yet (the config comes from --config): the merge would create it.
    const ws = repo();
    git(ws.dir, "rm", "-q", ".orca/config.yaml");
    git(ws.dir, "commit", "-qm", "config elsewhere");
    const config = path.join(ws.home, "config.yaml");
    fs.writeFileSync(config, CONFIG);
    await run(server, ws, ["--config", config]);
    expect(fs.existsSync(ws.file(".orca/config.yaml"))).toBe(false);
  });

  it("a protected path the branch changes (a nested .vscode/tasks.json) is refused headless, and named", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("wt-shell", "add a task")] }, { text: "done" }],
        "wt-shell-1": [bash(`mkdir -p sub/.vscode && echo '{"tasks":[]}' > sub/.vscode/tasks.json && echo fine > ok.txt`), { text: "written" }],
      }),
    );
    const ws = repo();
    const result = await run(server, ws);
    expect(fs.existsSync(ws.file("sub/.vscode/tasks.json"))).toBe(false);
    expect(fs.existsSync(ws.file("ok.txt"))).toBe(false);
    const note = toolResults(requestsOf(server, "coordinator")[1]!)[0]!;
    expect(note).toMatch(/worktree: NOT merged — sub\/\.vscode\/tasks\.json: protected path: sub\/\.vscode\/tasks\.json, not written \(denied: headless run without --yes/);
    expect(result.stdout).toMatch(/"type":"permission_decided"[^\n]*"tool":"write_file"[^\n]*"decision":"deny"[^\n]*protected path: sub\/\.vscode\/tasks\.json/);
  });
});

describe("orca's own git runs nothing a sandboxed command wrote", () => {
  it("a worktree admin dir's commondir pointed at a copy of the repository with a core.fsmonitor: the commit runs no fsmonitor", async () => {
    const marker = path.join(outside.dir, "fsmonitor-ran");
    // The isolated agent waits in its worktree while the helper (in the main workspace) rewrites its admin dir.
    let worktreeMade = () => {};
    const made = new Promise<void>((resolve) => (worktreeMade = resolve));
    let tampered = () => {};
    const done = new Promise<void>((resolve) => (tampered = resolve));
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("wt-shell", "wait, then change a file"), delegate("helper", "rewrite the admin dir")] }, { text: "done" }],
        "wt-shell-1": [
          async () => {
            worktreeMade();
            await done;
            return bash("echo changed > a.txt");
          },
          { text: "changed" },
        ],
        "helper-1": [
          async () => {
            await made;
            return bash(`cp -r .git evil && printf '[core]\\n\\tfsmonitor = "touch ${marker}"\\n' >> evil/config && for d in .git/worktrees/*/; do echo "$PWD/evil" > "$d/commondir"; done; cat .git/worktrees/*/commondir`);
          },
          () => {
            tampered();
            return { text: "rewritten" };
          },
        ],
      }),
    );
    const ws = repo();
    await run(server, ws);
    expect(fs.existsSync(marker)).toBe(false);
    // The sandbox keeps every admin dir's commondir read-only; orca's git would refuse a changed one anyway.
    const helper = toolResults(requestsOf(server, "helper-1")[1]!)[0]!;
    expect(helper).toMatch(/commondir: Read-only file system/);
    expect(helper).not.toMatch(/\/evil$/m);
  });

  it("a nested repository recorded in the index as a gitlink: the snapshot before the next isolated agent runs nothing in it", async () => {
    const marker = path.join(outside.dir, "nested-fsmonitor-ran");
    const nested = [
      "mkdir X && cd X && git init -q",
      `git config core.fsmonitor "touch ${marker}"`,
      "echo x > x && git add x && git -c user.name=a -c user.email=a@b commit -qm x && echo y >> x && cd ..",
      "git update-index --add --cacheinfo 160000,$(git -C X rev-parse HEAD),X",
      "git ls-files -s X",
    ].join(" && ");
    const server = await scriptedServer(
      perAgent({
        coordinator: [bash(nested), { toolCalls: [delegate("wt-shell", "look")] }, { text: "done" }],
        "wt-shell-1": [bash("ls"), { text: "looked" }],
      }),
    );
    const ws = repo();
    await run(server, ws);
    expect(toolResults(requestsOf(server, "coordinator")[1]!)[0]).toMatch(/^160000 /m);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a filter driver named by a .gitattributes and defined in an included config file does not run", async () => {
    const marker = path.join(outside.dir, "filter-ran");
    const ws = repo();
    // The user's own config includes a file in the tree (writable to commands): the agent defines a driver there.
    // a.txt keeps its size ("one" → "two"): the snapshot's copy of the index keeps the index's mtime,
    // so a change in the index's own second is content-checked, not trusted to stat (racy git).
    git(ws.dir, "config", "include.path", "../shared.gitconfig");
    const server = await scriptedServer(
      perAgent({
        coordinator: [
          bash(`printf '[filter "x"]\\n\\tclean = "touch ${marker}; cat"\\n\\tsmudge = "touch ${marker}; cat"\\n' > shared.gitconfig && echo '* filter=x' > .gitattributes && echo two > a.txt`),
          { toolCalls: [delegate("wt-shell", "change a file")] },
          { text: "done" },
        ],
        "wt-shell-1": [bash("echo three > a.txt"), { text: "changed" }],
      }),
    );
    await run(server, ws);
    expect(fs.existsSync(marker)).toBe(false);
    expect(ws.read("a.txt")).toBe("three\n");
  });
});

describe("denied files stay out of git", () => {
  it("the snapshot does not record an untracked .env a read deny hides: git log --all -p cannot print it", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("wt-shell", "look")] }, bash("git log --all -p"), bash("git cat-file --batch-all-objects --batch"), { text: "done" }],
        "wt-shell-1": [bash("ls -a"), { text: "looked" }],
      }),
    );
    const ws = repo({ ".orca/config.yaml": 'permissions:\n  allow: ["bash"]\n  deny: ["read_file(.env*)"]\n' });
    fs.writeFileSync(ws.file(".env"), "SECRET=hunter2-in-git\n");
    const result = await run(server, ws);
    const calls = requestsOf(server, "coordinator");
    expect(toolResults(calls[1]!).join("\n")).toContain("worktree:");
    for (const r of [...toolResults(calls[2]!), ...toolResults(calls[3]!)]) expect(r).not.toContain("hunter2");
    expect(result.stdout).not.toContain("hunter2");
    // The isolated agent did not see it either.
    expect(toolResults(requestsOf(server, "wt-shell-1")[1]!)[0]).not.toContain(".env");
  });

  it("a committed .env.tracked: git show REV:path, git log -p and git diff ask (refused headless); what names no denied file runs unasked", async () => {
    const server = await scriptedServer([
      ...["git show HEAD:.env.tracked", "git log -p", "git diff HEAD~1", "git log --oneline", "git show HEAD:a.txt", "git log -p -- a.txt"].map((command) => bash(command)),
      { text: "done" },
    ]);
    const ws = repo({ ".orca/config.yaml": 'permissions:\n  deny: ["read_file(.env*)"]\n', ".env.tracked": "SECRET=hunter2-committed\n" });
    fs.writeFileSync(ws.file("a.txt"), "two\n");
    git(ws.dir, "commit", "-qam", "second");
    const result = await run(server, ws);
    expect(result.stdout).not.toContain("hunter2");
    for (const r of server.requests) expect(JSON.stringify(r.body.messages)).not.toContain("hunter2");
    const decisions = result.stdout
      .split("\n")
      .filter((l) => l.includes('"permission_decided"'))
      .map((l) => JSON.parse(l) as { decision: string; rule: string });
    expect(decisions.map((d) => [d.decision, d.rule])).toEqual([
      ["deny", "mode:default (names .env.tracked, which read_file(.env*) hides)"],
      ["deny", "mode:default (prints content from git, where .env.tracked is tracked and read_file(.env*) hides it)"],
      ["deny", "mode:default (prints content from git, where .env.tracked is tracked and read_file(.env*) hides it)"],
      ["allow", "mode:default"],
      ["allow", "mode:default"],
      ["allow", "mode:default"],
    ]);
  });

  it("a stage spec (:0:.env.tracked) and a colon inside ^{…} name the path git reads: they ask (refused headless)", async () => {
    const server = await scriptedServer([
      ...["git show :0:.env.tracked", "git show 'HEAD^{/[:]?}:.env.tracked'", "git show :2:.env.tracked"].map((command) => bash(command)),
      { text: "done" },
    ]);
    const ws = repo({ ".orca/config.yaml": 'permissions:\n  deny: ["read_file(.env*)"]\n', ".env.tracked": "SECRET=hunter2-staged\n" });
    const result = await run(server, ws);
    for (const r of server.requests) expect(JSON.stringify(r.body.messages)).not.toContain("hunter2");
    expect(decisionsOf(result.stdout).map((d) => [d.decision, d.rule])).toEqual(Array(3).fill(["deny", "mode:default (names .env.tracked, which read_file(.env*) hides)"]));
  });

  it("a .env committed once and untracked since is still in git log -p --all: that asks (refused headless)", async () => {
    const server = await scriptedServer([bash("git log -p --all"), { text: "done" }]);
    const ws = repo({ ".orca/config.yaml": 'permissions:\n  deny: ["read_file(.env*)"]\n', ".env.old": "SECRET=hunter2-history\n" });
    git(ws.dir, "rm", "-q", "--cached", ".env.old");
    git(ws.dir, "commit", "-qm", "untrack it");
    fs.rmSync(ws.file(".env.old"));
    const result = await run(server, ws);
    for (const r of server.requests) expect(JSON.stringify(r.body.messages)).not.toContain("hunter2");
    expect(decisionsOf(result.stdout).map((d) => [d.decision, d.rule])).toEqual([["deny", "mode:default (prints content from git, where .env.old is tracked and read_file(.env*) hides it)"]]);
  });
});

const decisionsOf = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => l.includes('"permission_decided"'))
    .map((l) => JSON.parse(l) as { decision: string; rule: string });

describe("orca's git is not one a command planted", () => {
  it("a git planted in <workspace>/node_modules/.bin, which is on PATH, is never run by orca's snapshot or worktree git", async () => {
    const marker = path.join(outside.dir, "planted-git-ran");
    const plant = `mkdir -p node_modules/.bin && printf '#!/bin/sh\\ntouch ${marker}\\nexec /usr/bin/git "$@"\\n' > node_modules/.bin/git && chmod +x node_modules/.bin/git`;
    const server = await scriptedServer(
      perAgent({
        coordinator: [bash(plant), { toolCalls: [delegate("wt-shell", "change a file")] }, { text: "done" }],
        "wt-shell-1": [bash("echo two > a.txt"), { text: "changed" }],
      }),
    );
    const ws = repo();
    const result = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "stream-json"], {
      ws,
      timeoutMs: 90_000,
      env: { PATH: `${ws.file("node_modules/.bin")}:${process.env.PATH ?? ""}` },
    });
    expect(result.code, result.stderr).toBe(0);
    // The plant worked: the file is there, executable, and the isolated agent's work came back through git.
    expect(fs.statSync(ws.file("node_modules/.bin/git")).mode & 0o111).not.toBe(0);
    expect(toolResults(requestsOf(server, "coordinator")[2]!).join("\n")).toContain("worktree:");
    expect(fs.existsSync(marker)).toBe(false);
  });
});
