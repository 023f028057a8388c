import { afterEach, describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { EventOf, OrcaEvent } from "../../src/events/types.js";
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from "../../src/model/scripted.js";
import { runOrca, sessionLogs, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

/** Attacks on the money budget (issue 29's review): ways a run could spend without being charged. */

let server: ScriptedServer | undefined;
let ws: TempWorkspace | undefined;

afterEach(async () => {
  await server?.close();
  ws?.cleanup();
  server = undefined;
  ws = undefined;
});

const CONFIG = (budget: string) => `model:\n  name: house-model\n  price: { input: 2, output: 8 }\n${budget}`;

function of<T extends OrcaEvent["type"]>(all: OrcaEvent[], type: T): EventOf<T>[] {
  return all.filter((e): e is EventOf<T> => e.type === type);
}

describe("money budget attacks (bin, scripted server)", () => {
  it("a server that never reports usage is still charged: an estimate, marked estimated, stops the run with status budget", async () => {
    // About 4,000 output tokens a step ($0.032 at $8 per million) and never a usage report.
    const step = (i: number): ScriptedReply => ({ text: "word ".repeat(4000), toolCalls: [{ name: "grep", args: { pattern: `w${i}` } }], omitUsage: true });
    server = await startScriptedServer(Array.from({ length: 30 }, (_, i) => step(i)));
    ws = tempWorkspace({ "a.txt": "alpha\n", ".orca/config.yaml": CONFIG("") });
    const run = await runOrca(["-p", "survey", "--base-url", server.url, "--max-cost", "0.1", "--output-format", "json"], { ws, timeoutMs: 90_000 });
    expect(run.code, run.stderr).toBe(3);
    const out = JSON.parse(run.stdout) as { status: string; usage: { cost_usd: number } };
    expect(out.status).toBe("budget");
    const usage = of(readLog(sessionLogs(ws)[0]!).events, "usage");
    expect(usage.length).toBe(server.requests.length);
    expect(usage.every((u) => u.estimated === true && u.output >= 4000)).toBe(true);
    const spent = usage.reduce((sum, u) => sum + u.cost!, 0);
    expect(out.usage.cost_usd).toBeCloseTo(spent, 10);
    expect(spent).toBeGreaterThan(0.05);
    expect(server.requests.length).toBeLessThanOrEqual(4);
  });
});
