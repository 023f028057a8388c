import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { EventOf, OrcaEvent } from "../../src/events/types.js";
import type { RecordedRequest, ScriptedReply, ScriptedServer } from "../../src/model/scripted.js";
import { logText, runAndKill, waitFor } from "../fixtures/crash-kill.js";
import { agentOf, perAgent, runOrca, sessionLogs, toolResults, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";
import { processesWith } from "../fixtures/processes.js";
import { requestTokens } from "../fixtures/requests.js";

/**
 * A limit survives a crash: `orca --resume` of a run killed (kill -9) while a sub-agent works goes
 * on under the same budgets — the sub-agent's own `delegate {budget}` and the run's budget.* — and
 * what was spent before the crash counts against them. The attack: the tester's first response
 * already spent past its limit (the server ignores max_tokens), then its bash call is in flight at
 * the kill; continued without its limit, it would go on spending.
 */

let ws: TempWorkspace | undefined;

const CONFIG = (budget = "") => `model:\n  name: house-model\n  price: { input: 2, output: 8 }\n${budget}`;
/** A reply whose usage is the request as orca counts it, and `output` tokens ($8 per million). */
const priced =
  (reply: ScriptedReply & { kind?: "reply" }, output: number) =>
  (request: RecordedRequest): ScriptedReply => ({ ...reply, usage: { prompt: requestTokens(request), completion: output } });
const MARKER = "30.4141";

function of<T extends OrcaEvent["type"]>(events: OrcaEvent[], type: T): EventOf<T>[] {
  return events.filter((e): e is EventOf<T> => e.type === type);
}

/** The coordinator delegates to a tester (with `budget`, if given), whose first response costs $0.24 and runs a long command: killed then. */
async function crashWithSpendingTester(budget?: Record<string, number>): Promise<string> {
  const first = await scriptedServer(
    perAgent({
      coordinator: [priced({ toolCalls: [{ id: "call_t", name: "delegate", args: { agent: "tester", task: "run the suite", label: "suite", ...(budget ? { budget } : {}) } }] }, 100), () => ({ kind: "hang" })],
      "tester-1": [priced({ toolCalls: [{ id: "call_sleep", name: "bash", args: { command: `echo ran >> ran.log; sleep ${MARKER}` } }] }, 30_000), () => ({ kind: "hang" })],
    }),
  );
  const killed = await runAndKill(
    ["-p", "run the suite", "--base-url", first.url, "--yes"],
    ws!,
    () => fs.existsSync(ws!.file("ran.log")) && /"tool_started"[^\n]*"call_sleep"/.test(logText(ws!)),
    "the tester's command in flight",
  );
  expect(killed.signal).toBe("SIGKILL");
  await waitFor(() => processesWith(MARKER).length === 0, "the sandboxed command to die with orca");
  const events = readLog(sessionLogs(ws!)[0]!).events;
  // Before the crash: the tester spent past $0.20 in one response.
  const spent = of(events, "usage").filter((u) => u.agentId === "tester-1").reduce((sum, u) => sum + u.cost!, 0);
  expect(spent).toBeGreaterThan(0.24);
  return events[0]!.sessionId;
}

/** The second run: a tester that would go on spending, and a coordinator that answers. */
async function resumeServer(): Promise<ScriptedServer> {
  return scriptedServer(
    perAgent({
      "tester-1": Array.from({ length: 5 }, (_, i) => priced({ toolCalls: [{ id: `call_more_${i}`, name: "bash", args: { command: `echo more >> more.log` } }] }, 30_000)),
      coordinator: [priced({ text: "the suite stopped on its budget" }, 50)],
    }),
  );
}

describe("budgets survive a crash (kill -9, then --resume)", () => {
  it("a sub-agent's delegate {budget: max_cost_usd} still holds: the continued tester is stopped by it, counting what it spent before the crash", { timeout: 120_000 }, async () => {
    ws = workspace({ ".orca/config.yaml": CONFIG() });
    const id = await crashWithSpendingTester({ max_cost_usd: 0.2 });
    const second = await resumeServer();
    const resumed = await runOrca(["--resume", id, "-p", "continue", "--base-url", second.url, "--yes", "--output-format", "json"], { ws: ws!, timeoutMs: 90_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    // The tester never asked again: its limit was reached before the crash.
    expect(second.requests.map(agentOf)).toEqual(["coordinator"]);
    expect(fs.existsSync(ws!.file("more.log"))).toBe(false);
    const report = toolResults(second.requests[0]!).get("call_t")!;
    expect(report).toMatch(/^agent: tester-1 \(tester, "suite"\)\nstatus: budget\n/);
    expect(report).toMatch(/cost budget of tester-1 reached \(\$0\.2\d{3} of \$0\.2000 spent\)/);
    const out = JSON.parse(resumed.stdout) as { agents: { id: string; status: string }[] };
    expect(out.agents.map((a) => [a.id, a.status])).toEqual([
      ["coordinator", "done"],
      ["tester-1", "budget"],
    ]);
  });

  it("the run's budget.max_cost_usd counts the spend before the crash: the continued run stops at once with status budget", { timeout: 120_000 }, async () => {
    ws = workspace({ ".orca/config.yaml": CONFIG("budget:\n  max_cost_usd: 0.2\n") });
    const id = await crashWithSpendingTester();
    const second = await resumeServer();
    const resumed = await runOrca(["--resume", id, "-p", "continue", "--base-url", second.url, "--yes", "--output-format", "json"], { ws: ws!, timeoutMs: 90_000 });
    expect(resumed.code, resumed.stderr).toBe(3);
    expect(JSON.parse(resumed.stdout).status).toBe("budget");
    expect(second.requests).toEqual([]);
    expect(fs.existsSync(ws!.file("more.log"))).toBe(false);
    expect(resumed.stderr).toMatch(/Stopped: cost budget reached \(\$0\.2\d{3} of \$0\.2000 spent\)/);
  });
});

describe("the fan-out count survives a crash (kill -9, then --resume)", () => {
  it("the continued sub-agents are not asked about again, but they count: one more delegation passes agents.confirm_fanout and is refused (headless)", { timeout: 120_000 }, async () => {
    ws = workspace({ ".orca/config.yaml": "agents:\n  confirm_fanout: 2\n" });
    const bg = (suite: string, id: string) => ({ id, name: "delegate", args: { agent: "tester", task: `run suite ${suite}`, label: suite, background: true } });
    const first = await scriptedServer(perAgent({ coordinator: [{ toolCalls: [bg("A", "call_a"), bg("B", "call_b")] }, () => ({ kind: "hang" })], "tester-1": [() => ({ kind: "hang" })], "tester-2": [() => ({ kind: "hang" })] }));
    const killed = await runAndKill(["-p", "run the suites", "--base-url", first.url, "--yes"], ws, () => first.requests.length === 4, "both testers and the coordinator waiting on the model");
    expect(killed.signal).toBe("SIGKILL");
    const id = readLog(sessionLogs(ws)[0]!).events[0]!.sessionId;

    const second = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [bg("C", "call_c")] }, ...Array.from({ length: 4 }, () => ({ text: "suites A and B ran" }))],
        "tester-1": [{ text: "passed" }],
        "tester-2": [{ text: "passed" }],
      }),
    );
    const resumed = await runOrca(["--resume", id, "-p", "continue", "--base-url", second.url, "--yes"], { ws, timeoutMs: 90_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    const events = readLog(sessionLogs(ws)[0]!).events;
    const after = events.slice(events.findIndex((e) => e.type === "session_started" && e.resumedFrom === id));
    // Only the third delegation was checked: 3 sub-agents in the run passed 2.
    expect(of(after, "fanout_checked").map((e) => [e.decision, e.refused, e.reason])).toEqual([["limited", ["call_c"], "3 sub-agents in this run, 1 in this turn (agents.confirm_fanout: 2)"]]);
    expect(of(after, "agent_started").map((e) => e.agentId)).toEqual([]);
    // Both testers went on from their histories (one request each), and no third one started.
    expect(second.requests.map(agentOf).filter((a) => a.startsWith("tester-")).sort()).toEqual(["tester-1", "tester-2"]);
    expect(toolResults(second.requests.filter((r) => agentOf(r) === "coordinator")[1]!).get("call_c")).toMatch(/^Error: not run: this turn started 3 sub-agents in this run/);
  });
});
