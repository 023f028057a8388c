import { describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { EventOf, OrcaEvent } from "../../src/events/types.js";
import type { Approver, PermissionAnswer, PermissionRequest } from "../../src/tools/approver.js";
import { agentOf, perAgent, runOrca, sessionLogs, toolResults } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";
import { orchestra } from "../fixtures/rig-orchestra.js";

/**
 * Issue 29 item 4: a turn that starts more sub-agents at once than agents.confirm_fanout (default 4),
 * or whose estimate passes agents.confirm_cost_usd, asks the person first; headless applies the
 * limits and refuses the excess calls with a result the model reads.
 */

const six = Array.from({ length: 6 }, (_, i) => ({ id: `call_d${i + 1}`, name: "delegate", args: { agent: "explorer", task: `look at part ${i + 1}`, label: `part ${i + 1}` } }));
const explorers = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`explorer-${i + 1}`, [{ text: `part ${i + 1} seen` }]]));

function of<T extends OrcaEvent["type"]>(all: OrcaEvent[], type: T): EventOf<T>[] {
  return all.filter((e): e is EventOf<T> => e.type === type);
}

describe("the fan-out guard", () => {
  it("headless: six delegate calls at once run the first four; the other two get an error result the model reads", async () => {
    const server = await scriptedServer(perAgent({ coordinator: [{ toolCalls: six }, { text: "four of six done" }], ...explorers(4) }));
    const ws = workspace({ "a.txt": "a\n" });
    const run = await runOrca(["-p", "survey", "--base-url", server.url, "--output-format", "json"], { ws, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(new Set(server.requests.map(agentOf))).toEqual(new Set(["coordinator", "explorer-1", "explorer-2", "explorer-3", "explorer-4"]));
    const results = toolResults(server.requests.at(-1)!);
    for (const id of ["call_d5", "call_d6"]) {
      expect(results.get(id)).toMatch(/^Error: not run: this turn started 6 sub-agents at once \(agents\.confirm_fanout: 4\), and a headless run has no one to ask, so only the first 4 ran\./);
    }
    for (const id of ["call_d1", "call_d4"]) expect(results.get(id)).toContain("status: done");
    const checked = of(readLog(sessionLogs(ws)[0]!).events, "fanout_checked");
    expect(checked).toEqual([expect.objectContaining({ agentId: "coordinator", calls: 6, decision: "limited", decidedBy: "headless", refused: ["call_d5", "call_d6"] })]);
  });

  it("headless: an estimate above agents.confirm_cost_usd refuses the calls past it (priced by the configured price)", async () => {
    const server = await scriptedServer(perAgent({ coordinator: [{ toolCalls: six.slice(0, 2) }, { text: "none started" }] }));
    const ws = workspace({ ".orca/config.yaml": "model:\n  name: house-model\n  price: { input: 2, output: 8 }\nagents:\n  confirm_cost_usd: 0.000001\n" });
    const run = await runOrca(["-p", "survey", "--base-url", server.url], { ws, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests.map(agentOf)).toEqual(["coordinator", "coordinator"]);
    const checked = of(readLog(sessionLogs(ws)[0]!).events, "fanout_checked")[0]!;
    expect(checked).toMatchObject({ calls: 2, decision: "limited", refused: ["call_d1", "call_d2"] });
    // Ten steps of a first request of some thousand tokens at $2/M plus 500 output tokens at $8/M each.
    expect(checked.estimateUsd!).toBeGreaterThan(2 * 10 * (1000 * 2 + 500 * 8) / 1e6);
    expect(checked.reason).toMatch(/^estimated \$0\.\d{4} \(agents\.confirm_cost_usd: \$0\.0000\)$/);
  });

  it("a person asked: denying runs none of them; the question lists each agent, its task and the estimate", async () => {
    const server = await scriptedServer(perAgent({ coordinator: [{ toolCalls: six }, { text: "nothing was started" }] }));
    const ws = workspace({ "a.txt": "a\n" });
    const asked: PermissionRequest[] = [];
    const person: Approver = {
      decidedBy: "user",
      request: async (request): Promise<PermissionAnswer> => {
        asked.push(request);
        return { decision: "deny", reason: "too many" };
      },
    };
    const setup = await orchestra(ws, server.url, { approver: person, config: "model:\n  price: { input: 1, output: 4 }\n" });
    const result = await setup.session.run("survey");
    expect(result.status).toBe("done");
    expect(server.requests.map(agentOf)).toEqual(["coordinator", "coordinator"]);
    expect(asked).toHaveLength(1);
    const question = asked[0]!.fanout!;
    expect(question.agents.map((a) => [a.agent, a.label, a.task])).toEqual(six.map((c) => ["explorer", c.args.label, c.args.task]));
    expect(question.estimateUsd).toBeCloseTo(question.agents.reduce((sum, a) => sum + a.estimateUsd!, 0), 12);
    expect(question.reason).toBe("6 sub-agents at once (agents.confirm_fanout: 4)");
    const results = toolResults(server.requests.at(-1)!);
    for (const call of six) expect(results.get(call.id)).toMatch(/^Error: not run: the person declined this fan-out .*: too many; none of its 6 sub-agents started\.$/);
    expect(setup.session.agents().map((a) => a.id)).toEqual(["coordinator"]);
  });

  it("a person asked: approving starts all six", async () => {
    const server = await scriptedServer(perAgent({ coordinator: [{ toolCalls: six }, { text: "all done" }], ...explorers(6) }));
    const ws = workspace({ "a.txt": "a\n" });
    const person: Approver = { decidedBy: "user", request: async () => ({ decision: "once" }) };
    const setup = await orchestra(ws, server.url, { approver: person });
    const result = await setup.session.run("survey");
    expect(result.status).toBe("done");
    expect(setup.session.agents()).toHaveLength(7);
    const results = toolResults(server.requests.at(-1)!);
    for (const call of six) expect(results.get(call.id)).toContain("status: done");
  });

  it("four at once (the default limit) asks nobody", async () => {
    const server = await scriptedServer(perAgent({ coordinator: [{ toolCalls: six.slice(0, 4) }, { text: "all done" }], ...explorers(4) }));
    const ws = workspace({ "a.txt": "a\n" });
    const asked: PermissionRequest[] = [];
    const person: Approver = { decidedBy: "user", request: async (r) => (asked.push(r), { decision: "deny" }) };
    const setup = await orchestra(ws, server.url, { approver: person });
    expect((await setup.session.run("survey")).status).toBe("done");
    expect(asked).toEqual([]);
    expect(setup.session.agents()).toHaveLength(5);
  });
});

describe("the fan-out guard counts a run, not a turn", () => {
  /** Four background delegate calls a turn, for three turns: twelve sub-agents, never more than four at once. */
  const turn = (t: number) => ({
    toolCalls: Array.from({ length: 4 }, (_, i) => ({ id: `call_t${t}_${i + 1}`, name: "delegate", args: { agent: "explorer", task: `part ${t}.${i + 1}`, background: true } })),
  });
  const coordinator = [turn(1), turn(2), turn(3), ...Array.from({ length: 20 }, () => ({ text: "ok" }))];

  it("headless: the fifth sub-agent of the run is refused, though no turn started more than four", async () => {
    const server = await scriptedServer(perAgent({ coordinator, ...explorers(12) }));
    const ws = workspace({ "a.txt": "a\n" });
    const setup = await orchestra(ws, server.url);
    expect((await setup.session.run("survey")).status).toBe("done");
    expect(setup.session.agents()).toHaveLength(5);
    const checked = of(readLog(sessionLogs(ws)[0]!).events, "fanout_checked");
    expect(checked.map((c) => [c.decision, c.refused.length])).toEqual([
      ["limited", 4],
      ["limited", 4],
    ]);
    expect(checked[0]!.reason).toBe("8 sub-agents in this run, 4 in this turn (agents.confirm_fanout: 4)");
  });

  it("a person is asked at the fifth; after a yes the count starts again", async () => {
    const server = await scriptedServer(perAgent({ coordinator, ...explorers(12) }));
    const ws = workspace({ "a.txt": "a\n" });
    const asked: PermissionRequest[] = [];
    const person: Approver = { decidedBy: "user", request: async (r) => (asked.push(r), { decision: "once" }) };
    const setup = await orchestra(ws, server.url, { approver: person });
    expect((await setup.session.run("survey")).status).toBe("done");
    expect(asked.map((r) => r.fanout!.agents.map((a) => a.task))).toEqual([["part 2.1", "part 2.2", "part 2.3", "part 2.4"]]);
    expect(setup.session.agents()).toHaveLength(13);
  });
});
