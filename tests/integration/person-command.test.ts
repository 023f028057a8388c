/**
 * `!command` in the dashboard runs the person's command through the session (real wiring, real
 * bwrap): in the sandbox the bash tool uses, so it writes the workspace and nothing outside it, and
 * in plan mode not even the workspace. Its output and exit code come back for the next prompt.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import type { SessionSetup } from "../../src/orchestrator/create.js";
import { tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
import { testOrchestra } from "../fixtures/orchestra.js";
import { outsideDir } from "../fixtures/sandbox.js";

let ws: TempWorkspace | undefined;
let server: ScriptedServer | undefined;
let orchestra: SessionSetup | undefined;
let outside: ReturnType<typeof outsideDir> | undefined;

afterEach(async () => {
  await orchestra?.session.close();
  orchestra = undefined;
  await server?.close();
  server = undefined;
  ws?.cleanup();
  ws = undefined;
  outside?.cleanup();
  outside = undefined;
});

describe("!command through the session", () => {
  it("runs in the sandbox: the workspace is writable, outside is not, plan mode writes nothing", { timeout: 60_000 }, async () => {
    ws = tempWorkspace();
    outside = outsideDir();
    server = await startScriptedServer([]);
    orchestra = await testOrchestra(ws, server.url);
    const input = orchestra.session.input;
    const logged: unknown[] = [];
    orchestra.session.bus.subscribe((e) => {
      if (e.type === "user_shell") logged.push({ command: e.command, output: e.output, exitCode: e.exitCode, sandbox: e.sandbox, agentId: e.agentId });
    });
    const signal = new AbortController().signal;

    const hi = await input.shell("echo hi; echo in > inside.txt", signal);
    expect(hi).toEqual({ output: "hi", exitCode: 0, sandbox: "workspace-write" });
    expect(fs.readFileSync(ws.file("inside.txt"), "utf8")).toBe("in\n");
    // The log and the dashboard get it as the coordinator's user_shell event.
    expect(logged[0]).toEqual({ command: "echo hi; echo in > inside.txt", output: "hi", exitCode: 0, sandbox: "workspace-write", agentId: orchestra.session.rootAgentId });

    const marker = path.join(outside.dir, "marker");
    const escaped = await input.shell(`touch ${marker}`, signal);
    expect(escaped.exitCode).not.toBe(0);
    expect(fs.existsSync(marker)).toBe(false);

    orchestra.session.setPermissionMode("plan");
    const planned = await input.shell("echo no > plan.txt", signal);
    expect(planned.sandbox).toBe("read-only");
    expect(planned.exitCode).not.toBe(0);
    expect(fs.existsSync(ws.file("plan.txt"))).toBe(false);
    // Nothing here asked the model anything.
    expect(server.requests).toHaveLength(0);
  });
});
