import fs from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import type { SessionSetup } from "../../src/orchestrator/create.js";
import { agentOf, perAgent, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
import { testOrchestra } from "../fixtures/orchestra.js";

/**
 * Issue 32 (fan-out): a delegate call's start must be on disk before its sub-agent runs, as every
 * call that is not a pure read; but N delegate calls of one response made N syncs in a row
 * (~1.5 ms each on the event loop) before the last sub-agent could start. Now the starts of one
 * turn share one sync, which each delegate call awaits before its sub-agent starts.
 */

let server: ScriptedServer | undefined;
let ws: TempWorkspace | undefined;
let orchestra: SessionSetup | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await orchestra?.session.close();
  await server?.close();
  ws?.cleanup();
  orchestra = server = ws = undefined;
});

type Op = { kind: "start"; callId: string } | { kind: "sub"; agentId: string } | { kind: "sync" };

describe("the session log and delegate calls", () => {
  it("syncs the starts of one turn's delegate calls once, before any of their sub-agents writes a line", async () => {
    const calls = Array.from({ length: 4 }, (_, i) => ({ id: `call_d${i + 1}`, name: "delegate", args: { agent: "explorer", task: `look at part ${i + 1}` } }));
    const explorers = Object.fromEntries(calls.map((_, i) => [`explorer-${i + 1}`, [{ text: `part ${i + 1} seen` }]]));
    server = await startScriptedServer(perAgent({ coordinator: [{ toolCalls: calls }, { text: "all seen" }], ...explorers }));
    ws = tempWorkspace({ "a.txt": "a\n" });
    orchestra = await testOrchestra(ws, server.url);
    const ops: Op[] = [];
    const write = fs.writeSync.bind(fs) as (fd: number, buffer: Buffer, offset: number) => number;
    vi.spyOn(fs, "writeSync").mockImplementation(((fd: number, buffer: Buffer, offset: number) => {
      const line = Buffer.isBuffer(buffer) ? buffer.toString("utf8") : String(buffer);
      const start = /^\{"type":"tool_started","agentId":"coordinator","callId":"(call_d\d)","name":"delegate"/.exec(line);
      const sub = /"agentId":"(explorer-\d+)"/.exec(line);
      if (start) ops.push({ kind: "start", callId: start[1]! });
      else if (sub && !ops.some((o) => o.kind === "sub" && o.agentId === sub[1])) ops.push({ kind: "sub", agentId: sub[1]! });
      return write(fd, buffer, offset);
    }) as typeof fs.writeSync);
    const sync = fs.fdatasyncSync.bind(fs);
    vi.spyOn(fs, "fdatasyncSync").mockImplementation((fd) => {
      ops.push({ kind: "sync" });
      sync(fd);
    });

    const result = await orchestra.session.run("look at every part");
    expect(result.status).toBe("done");
    expect(new Set(server.requests.map(agentOf))).toEqual(new Set(["coordinator", "explorer-1", "explorer-2", "explorer-3", "explorer-4"]));

    const starts = ops.flatMap((o, i) => (o.kind === "start" ? [i] : []));
    const subs = ops.flatMap((o, i) => (o.kind === "sub" ? [i] : []));
    expect(starts).toHaveLength(4);
    expect(subs).toHaveLength(4);
    // Every sub-agent's first line comes after a sync that follows every delegate start before it.
    for (const at of subs) {
      const lastStart = Math.max(...starts.filter((s) => s < at));
      expect(ops.slice(lastStart, at).some((o) => o.kind === "sync"), JSON.stringify(ops)).toBe(true);
    }
    // One sync for the four starts, not four.
    const syncsAmongStarts = ops.slice(starts[0], Math.min(...subs)).filter((o) => o.kind === "sync").length;
    expect(syncsAmongStarts, JSON.stringify(ops)).toBe(1);
  });
});
