import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import type { SessionSetup } from "../../src/orchestrator/create.js";
import { perAgent, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
import { testOrchestra } from "../fixtures/orchestra.js";

/**
 * Issue 32 (fan-out): sub-agents that one response starts together were started by promise
 * continuations alone, and Node reads no socket until the microtask queue is empty: the first
 * sub-agent's answer waited until the last one had started, and every step after went in lockstep.
 * Now each start takes its own turn of the event loop (util/loop-turns.ts).
 */

let server: ScriptedServer | undefined;
let ws: TempWorkspace | undefined;
let orchestra: SessionSetup | undefined;

afterEach(async () => {
  await orchestra?.session.close();
  await server?.close();
  ws?.cleanup();
  orchestra = server = ws = undefined;
});

const COUNT = 6;

describe("sub-agents started by one response", () => {
  it("let the event loop turn between their starts", async () => {
    const calls = Array.from({ length: COUNT }, (_, i) => ({ id: `call_d${i + 1}`, name: "delegate", args: { agent: "explorer", task: `look at part ${i + 1}` } }));
    const explorers = Object.fromEntries(calls.map((_, i) => [`explorer-${i + 1}`, [{ text: `part ${i + 1} seen` }]]));
    server = await startScriptedServer(perAgent({ coordinator: [{ toolCalls: calls }, { text: "all seen" }], ...explorers }));
    ws = tempWorkspace({ "a.txt": "a\n" });
    orchestra = await testOrchestra(ws, server.url, { config: `agents:\n  max_parallel: ${COUNT}\n  confirm_fanout: false\n` });
    const started: string[] = [];
    // How many sub-agents had started when a turn of the loop asked for at the first start came.
    let startedAtFirstTurn: number | undefined;
    orchestra.session.bus.subscribe((event) => {
      if (event.type !== "agent_started" || !event.parentId) return;
      started.push(event.agentId);
      if (started.length === 1) setImmediate(() => (startedAtFirstTurn = started.length));
    });

    const result = await orchestra.session.run("look at every part");
    expect(result.status).toBe("done");
    expect(started).toHaveLength(COUNT);
    // In the order of the calls, as before.
    expect(started).toEqual(calls.map((_, i) => `explorer-${i + 1}`));
    expect(startedAtFirstTurn).toBeDefined();
    expect(startedAtFirstTurn!).toBeLessThan(COUNT);
  });
});
