/**
 * Attacks on #27's permission flow, each through a scripted model and the real engine, sandbox and
 * git: what an "always" releases from the dialog queue, what a prefix rule covers with no sandbox,
 * and what a command run unasked (sandboxed_commands: auto) may write in a repository's git dirs.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { EventOf, OrcaEvent } from "../../src/events/types.js";
import type { SessionSetup } from "../../src/orchestrator/create.js";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import type { Approver, PermissionAnswer, PermissionRequest } from "../../src/tools/approver.js";
import { HeadlessApprover } from "../../src/tools/headless-approver.js";
import { perAgent, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
import { testOrchestra } from "../fixtures/orchestra.js";
import { outsideDir } from "../fixtures/sandbox.js";

let server: ScriptedServer | undefined;
let ws: TempWorkspace | undefined;
let orchestra: SessionSetup | undefined;
let outside: { dir: string; cleanup(): void } | undefined;

afterEach(async () => {
  await orchestra?.session.close();
  await server?.close();
  ws?.cleanup();
  outside?.cleanup();
  server = orchestra = ws = outside = undefined;
});

// Attacks on "approve all waiting that this rule covers": an "always" answered for one call
// releases the other calls waiting in the dialog queue that the new session rule covers. A call
// that waits for a reason a session rule does not answer — leaving the sandbox (a person only, this
// exact call), a protected path (only an "always" for that very path) — must stay in the queue.
// A scripted coordinator starts two sub-agents at once, each makes one of the calls; the person's
// approver answers only the harmless one.
/** A person's dialog queue: every request waits until the test answers it. */
class Queue implements Approver {
  readonly decidedBy = "user" as const;
  readonly waiting: { request: PermissionRequest; answer: (a: PermissionAnswer) => void; signal: AbortSignal }[] = [];
  request(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    return new Promise((answer) => this.waiting.push({ request, answer, signal }));
  }
}

/** Sub-agents start on a shared, busy machine: conditions are waited for, with room. */
const WAIT = { timeout: 30_000 };
const delegate = (agent: string) => ({ name: "delegate", args: { agent, task: "do your part" } });
const argsOf = (w: Queue["waiting"][number]) => w.request.args as Record<string, unknown>;

describe("an 'always' releases only the waiting calls its rule may answer", () => {
  it("a waiting call that leaves the sandbox stays waiting when another call's 'always' is the bare rule bash", async () => {
    outside = outsideDir();
    const marker = path.join(outside.dir, "escaped");
    server = await startScriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("tester"), delegate("tester")] }, { text: "done" }],
        "tester-1": [{ toolCalls: [{ name: "bash", args: { command: "echo hi > a.txt" } }] }, { text: "done" }],
        "tester-2": [{ toolCalls: [{ name: "bash", args: { command: `touch ${marker}`, dangerously_disable_sandbox: true } }] }, { text: "done" }],
      }),
    );
    ws = tempWorkspace({});
    const queue = new Queue();
    orchestra = await testOrchestra(ws, server.url, { approver: queue, config: "sandbox:\n  enabled: true\n" });
    const run = orchestra.session.run("go");
    await vi.waitFor(() => expect(queue.waiting).toHaveLength(2), WAIT);
    const harmless = queue.waiting.find((w) => argsOf(w).command === "echo hi > a.txt")!;
    const escape = queue.waiting.find((w) => argsOf(w).dangerously_disable_sandbox === true)!;
    expect(escape.request.outsideSandbox).toBe(true);
    // The person edits the rule to every command (in the sandbox): not a yes to leaving it.
    harmless.answer({ decision: "always", rule: "bash" });
    await vi.waitFor(() => expect(fs.existsSync(ws!.file("a.txt"))).toBe(true), WAIT);
    expect(escape.signal.aborted).toBe(false);
    escape.answer({ decision: "deny" });
    await run;
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a waiting write to a protected path stays waiting when another write's 'always' covers its folder", async () => {
    server = await startScriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("editor"), delegate("editor")] }, { text: "done" }],
        "editor-1": [{ toolCalls: [{ name: "write_file", args: { path: "vendor/lib/a.ts", content: "a\n" } }] }, { text: "done" }],
        "editor-2": [{ toolCalls: [{ name: "write_file", args: { path: "vendor/lib/.git/hooks/post-checkout", content: "#!/bin/sh\ntouch pwned\n" } }] }, { text: "done" }],
      }),
    );
    ws = tempWorkspace({ "vendor/lib/.git/HEAD": "ref: refs/heads/main\n" });
    const queue = new Queue();
    orchestra = await testOrchestra(ws, server.url, { approver: queue });
    const run = orchestra.session.run("go");
    await vi.waitFor(() => expect(queue.waiting).toHaveLength(2), WAIT);
    const harmless = queue.waiting.find((w) => argsOf(w).path === "vendor/lib/a.ts")!;
    const hook = queue.waiting.find((w) => argsOf(w).path !== "vendor/lib/a.ts")!;
    // The suggested rule: the folder's glob, vendor/lib/**.
    expect(harmless.request.always?.rule).toBe("write_file(vendor/lib/**)");
    harmless.answer({ decision: "always" });
    await vi.waitFor(() => expect(fs.existsSync(ws!.file("vendor/lib/a.ts"))).toBe(true), WAIT);
    expect(hook.signal.aborted).toBe(false);
    hook.answer({ decision: "deny" });
    await run;
    expect(fs.existsSync(ws.file("vendor/lib/.git/hooks/post-checkout"))).toBe(false);
  });
});

// Attack: where there is no sandbox (off, or a platform without one) a command an allow rule covers
// runs as the user, and the sandbox's read-only protected paths are not there to stop it. An
// "always" now saves a prefix rule (`bash(cp *)`) rather than the exact command, so the next `cp`
// the model makes — into `.git/hooks/` — must still ask, as a write_file there would.
/** A person who answers "always" (the suggested rule) to the first question and "no" to the rest. */
class FirstAlways implements Approver {
  readonly decidedBy = "user" as const;
  readonly asked: PermissionRequest[] = [];
  async request(request: PermissionRequest): Promise<PermissionAnswer> {
    this.asked.push(request);
    return this.asked.length === 1 ? { decision: "always" } : { decision: "deny" };
  }
}

describe("a prefix rule with no sandbox", () => {
  it("does not cover a command that writes a protected path", async () => {
    server = await startScriptedServer([
      { toolCalls: [{ name: "bash", args: { command: "cp a.txt b.txt" } }] },
      { toolCalls: [{ name: "bash", args: { command: "cp hook.sh .git/hooks/pre-commit" } }] },
      { text: "done" },
    ]);
    ws = tempWorkspace({ "a.txt": "a\n", "hook.sh": "#!/bin/sh\ntouch pwned\n" });
    execFileSync("git", ["init", "-q"], { cwd: ws.dir });
    const person = new FirstAlways();
    orchestra = await testOrchestra(ws, server.url, { approver: person, config: "sandbox:\n  enabled: false\n" });
    const result = await orchestra.session.run("go");
    expect(result.status).toBe("done");
    expect(person.asked[0]!.always?.rule).toBe("bash(cp *)");
    expect(fs.existsSync(ws.file("b.txt"))).toBe(true);
    await vi.waitFor(() => expect(person.asked).toHaveLength(2));
    expect(fs.existsSync(ws.file(".git/hooks/pre-commit"))).toBe(false);
  });
});

// Attack: a submodule's git dir lives in the superproject's `.git/modules/<name>`, with its own
// config and hooks. The user's plain `git status` in the workspace runs git inside each submodule,
// under that config — so a `core.fsmonitor` written there runs as the user, outside any sandbox.
// A sandboxed command (here run unasked: accept-edits, sandboxed_commands auto) spells the write so
// that it names no protected path (`git -C sub config …`); the sandbox must keep that config
// read-only as it keeps the workspace's own `.git/config`.
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

/** A workspace whose repository has a submodule at sub/ (its git dir in .git/modules/sub). */
function withSubmodule(): TempWorkspace {
  const w = tempWorkspace({ "a.txt": "a\n", "payload": "gitdir: ../elsewhere\n" });
  const lib = path.join(w.home, "lib");
  fs.mkdirSync(lib);
  fs.writeFileSync(path.join(lib, "l.txt"), "l\n");
  git(lib, "init", "-q");
  git(lib, "add", "-A");
  git(lib, "commit", "-qm", "lib");
  git(w.dir, "init", "-q");
  git(w.dir, "submodule", "add", "-q", lib, "sub");
  git(w.dir, "add", "-A");
  git(w.dir, "commit", "-qm", "start");
  return w;
}

const AUTO = "permissions:\n  mode: accept-edits\n  sandboxed_commands: auto\nsandbox:\n  enabled: true\n";

describe("a submodule's git config is as protected as the workspace's own", () => {
  it("a command run unasked in the sandbox cannot set a core.fsmonitor the user's git status would run", async () => {
    ws = withSubmodule();
    const moduleConfig = path.join(ws.dir, ".git", "modules", "sub", "config");
    expect(fs.existsSync(moduleConfig)).toBe(true);
    const marker = path.join(ws.home, "fsmonitor-ran");

    server = await startScriptedServer([
      { toolCalls: [{ name: "bash", args: { command: `git -C sub config core.fsmonitor 'touch ${marker}; false'` } }] },
      { text: "done" },
    ]);
    orchestra = await testOrchestra(ws, server.url, {
      approver: new HeadlessApprover(false),
      config: AUTO,
    });
    const events: OrcaEvent[] = [];
    orchestra.session.bus.subscribe((e) => events.push(e));
    const result = await orchestra.session.run("go");
    expect(result.status).toBe("done");
    // Whether it was asked (and refused, headless) or ran and failed, the config is untouched.
    const decided = events.find((e): e is EventOf<"permission_decided"> => e.type === "permission_decided" && e.tool === "bash");
    expect(decided).toBeDefined();
    expect(fs.readFileSync(moduleConfig, "utf8")).not.toContain("fsmonitor");
    execFileSync("git", ["status"], { cwd: ws.dir, stdio: "ignore" });
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a command run unasked in the sandbox cannot point the submodule's .git file at another git dir", async () => {
    ws = withSubmodule();
    const dotGit = fs.readFileSync(ws.file("sub/.git"), "utf8");
    // Names no .git: find's pattern matches it, cp replaces it.
    server = await startScriptedServer([{ toolCalls: [{ name: "bash", args: { command: "find sub -maxdepth 1 -name '.gi?' -exec cp payload {} ';'" } }] }, { text: "done" }]);
    orchestra = await testOrchestra(ws, server.url, { approver: new HeadlessApprover(false), config: AUTO });
    const result = await orchestra.session.run("go");
    expect(result.status).toBe("done");
    expect(fs.readFileSync(ws.file("sub/.git"), "utf8")).toBe(dotGit);
  });

  it("nor in a submodule checked out with its git dir inside it (not absorbed into .git/modules)", async () => {
    ws = tempWorkspace({ "a.txt": "a\n", "vendor/lib/l.txt": "l\n", ".gitmodules": '[submodule "lib"]\n\tpath = vendor/lib\n\turl = ./vendor/lib\n' });
    git(ws.file("vendor/lib"), "init", "-q");
    git(ws.file("vendor/lib"), "add", "-A");
    git(ws.file("vendor/lib"), "commit", "-qm", "lib");
    git(ws.dir, "init", "-q");
    git(ws.dir, "add", "-A");
    git(ws.dir, "commit", "-qm", "start");
    expect(git(ws.dir, "ls-files", "-s", "vendor/lib")).toMatch(/^160000 /);
    const config = ws.file("vendor/lib/.git/config");
    const marker = path.join(ws.home, "fsmonitor-ran");
    server = await startScriptedServer([
      { toolCalls: [{ name: "bash", args: { command: `git -C vendor/lib config core.fsmonitor 'touch ${marker}; false'` } }] },
      { text: "done" },
    ]);
    orchestra = await testOrchestra(ws, server.url, { approver: new HeadlessApprover(false), config: AUTO });
    expect((await orchestra.session.run("go")).status).toBe("done");
    expect(fs.readFileSync(config, "utf8")).not.toContain("fsmonitor");
    execFileSync("git", ["status"], { cwd: ws.dir, stdio: "ignore" });
    expect(fs.existsSync(marker)).toBe(false);
  });
});
