import { describe, expect, it } from "vitest";
import { RunBudget } from "../../src/agent/budget.js";
import type { OrcaEvent } from "../../src/events/types.js";
import { stoppedRun } from "../../src/sessions/stopped-run.js";

/** What a resumed run carries of the run it continues: read from the log, then charged to a fresh RunBudget. */

let ts = 0;
const at = (t: number) => (ts = t);
const ev = (e: Record<string, unknown>): OrcaEvent => ({ ts: ++ts, sessionId: "s", ...e }) as unknown as OrcaEvent;
const session = (resumedFrom?: string) => ev({ type: "session_started", agentId: "coordinator", workspace: "/w", model: "m", ...(resumedFrom ? { resumedFrom } : {}) });
const turn = () => ev({ type: "checkpoint", agentId: "coordinator", id: `turn-${ts}`, reason: "turn", label: "go" });
const request = (agentId: string, parentId?: string) => ev({ type: "model_request", agentId, parentId, step: 1, messageCount: 2, tokenEstimate: 1 });
const usage = (agentId: string, cost: number, parentId?: string) => ev({ type: "usage", agentId, parentId, input: 100, output: 10, cached: 0, cost });
const limit = (agentId: string, parentId: string, limits: Record<string, number>) => ev({ type: "budget_set", agentId, parentId, scope: "agent", ...limits });
const call = (agentId: string, callId: string) => ev({ type: "tool_started", agentId, callId, name: "bash" });
const continued = () => ev({ type: "agent_continued", agentId: "coordinator", held: [], team: ["coordinator", "tester-1"] });

describe("stoppedRun", () => {
  it("counts the last run only, with each agent's logged limits, steps, spend and calls, parents first", () => {
    at(0);
    const log = [
      session(),
      turn(),
      request("coordinator"),
      usage("coordinator", 5), // an earlier run: not this one's
      turn(),
      request("coordinator"),
      usage("coordinator", 0.01),
      // The child's first event names its parent before the parent's account is seen again.
      limit("tester-1", "coordinator", { maxCostUsd: 0.2, maxSteps: 4 }),
      request("tester-1", "coordinator"),
      usage("tester-1", 0.25, "coordinator"),
      call("tester-1", "c1"),
    ];
    const run = stoppedRun(log, "coordinator");
    expect(run.accounts).toEqual([
      { id: "coordinator", limits: {}, steps: 1 },
      { id: "tester-1", parentId: "coordinator", limits: { maxCostUsd: 0.2, maxSteps: 4 }, steps: 1 },
    ]);
    expect(run.usage.map((u) => [u.agentId, u.cost])).toEqual([
      ["coordinator", 0.01],
      ["tester-1", 0.25],
    ]);
    expect(run.toolCalls).toBe(1);

    // Charged to a run's budget: the tester's own limit is reached, and so is a run limit of $0.20.
    const budget = new RunBudget({ maxCostUsd: 0.2 });
    budget.carry(run);
    expect(budget.tree.get("tester-1")?.cost).toBeCloseTo(0.25);
    expect(budget.tree.get("tester-1")?.limits).toEqual({ maxCostUsd: 0.2, maxSteps: 4 });
    expect(budget.tree.get("tester-1")?.steps).toBe(1);
    expect(budget.tree.run.cost).toBeCloseTo(0.26);
    expect(budget.exceeded()?.message).toBe("cost budget reached ($0.2600 of $0.2000 spent)");
  });

  it("a resume that went on with it (`--resume ID -p …`) and crashed again belongs to the same run; the time between crash and resume is not counted", () => {
    at(1000);
    const log: OrcaEvent[] = [session(), turn(), usage("coordinator", 0.05)];
    at(1100); // the run (from its turn, ts 1002) ran to ts 1101
    log.push(usage("tester-1", 0.05, "coordinator"));
    at(90_000); // the crash, then the resume much later
    log.push(session("s"), turn(), continued());
    at(90_050);
    log.push(usage("tester-1", 0.05, "coordinator"));
    const run = stoppedRun(log, "coordinator");
    expect(run.usage).toHaveLength(3);
    expect(run.elapsedMs).toBe(1101 - 1002 + (90_051 - 90_001));
    // A resume that only reopened the session, then a new turn: that turn is a run of its own.
    log.push(session("s"), turn(), usage("coordinator", 0.01));
    expect(stoppedRun(log, "coordinator").usage.map((u) => u.cost)).toEqual([0.01]);
  });

  it("max_duration: the time the run had taken counts", () => {
    const budget = new RunBudget({ maxDuration: 60 });
    budget.carry({ accounts: [], usage: [], toolCalls: 0, elapsedMs: 59_000, delegations: [] });
    expect(budget.timeLeftMs).toBeLessThanOrEqual(1000);
    budget.carry({ accounts: [], usage: [], toolCalls: 0, elapsedMs: 2000, delegations: [] });
    expect(budget.exceeded()?.message).toBe("time budget reached (60s)");
  });
  it("the fan-out guard's count: delegate calls since the person's last approval, less those it refused", () => {
    const delegates = (...ids: string[]) => ev({ type: "assistant_message", agentId: "coordinator", content: "", toolCalls: ids.map((id) => ({ id, name: "delegate", args: { agent: "tester" }, raw: "{}" })) });
    const checked = (decision: string, refused: string[]) => ev({ type: "fanout_checked", agentId: "coordinator", calls: 2, estimateUsd: null, reason: "r", decision, decidedBy: "user", refused });
    const log = [session(), turn(), delegates("d1", "d2"), checked("approved", []), delegates("d3", "d4"), checked("limited", ["d4"]), delegates("d5")];
    expect(stoppedRun(log, "coordinator").delegations.map((d) => d.callId)).toEqual(["d3", "d5"]);
  });
});
