/**
 * Attacks on "approve all waiting that this rule covers": an "always" answered for one call
 * releases the other calls waiting in the dialog queue that the new session rule covers. A call
 * that waits for a reason a session rule does not answer — leaving the sandbox (a person only, this
 * exact call), a protected path (only an "always" for that very path) — must stay in the queue.
 * A scripted coordinator starts two sub-agents at once, each makes one of the calls; the person's
 * approver answers only the harmless one.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SessionSetup } from "../../src/orchestrator/create.js";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import type { Approver, PermissionAnswer, PermissionRequest } from "../../src/tools/approver.js";
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
