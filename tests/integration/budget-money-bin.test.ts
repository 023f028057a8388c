import { describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { EventOf, OrcaEvent } from "../../src/events/types.js";
import type { RecordedRequest, ScriptedReply } from "../../src/model/scripted.js";
import { agentOf, perAgent, runOrca, sessionLogs, toolResults, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";
import { requestTokens } from "../fixtures/requests.js";

/**
 * Issue 29: money budgets that hold across a tree of agents, checked against the scripted server's
 * request log. The model has a configured price ($2 in, $8 out per million tokens); each reply
 * reports as its input what orca's tokenizer counts for the request, and an output it chooses — the
 * server does not honour max_tokens, so a response may pass what was set aside for it.
 */

const PRICE = { input: 2, output: 8 };
const CONFIG = (budget: string) => `model:\n  name: house-model\n  price: { input: ${PRICE.input}, output: ${PRICE.output} }\n${budget}`;
const outputCost = (tokens: number) => (tokens * PRICE.output) / 1_000_000;

/** A reply whose usage is the request as orca counts it, and `output` tokens. */
const priced =
  (reply: ScriptedReply & { kind?: "reply" }, output: number) =>
  (request: RecordedRequest): ScriptedReply => ({ ...reply, usage: { prompt: requestTokens(request), completion: output } });

/** An explorer that greps for a new word each step until it is stopped (never the same call twice: no loop stop). */
const busyExplorer = (output: number) => Array.from({ length: 40 }, (_, i) => priced({ toolCalls: [{ name: "grep", args: { pattern: `word${i}` } }] }, output));

const delegateCall = (task: string, label: string, extra: Record<string, unknown> = {}) => ({ name: "delegate", args: { agent: "explorer", task, label, ...extra } });

function events(ws: TempWorkspace): OrcaEvent[] {
  return readLog(sessionLogs(ws)[0]!).events;
}

function of<T extends OrcaEvent["type"]>(all: OrcaEvent[], type: T): EventOf<T>[] {
  return all.filter((e): e is EventOf<T> => e.type === type);
}

describe("money budgets across a tree of agents (bin, scripted server)", () => {
  it("max_cost_usd with three parallel sub-agents: status budget, exit 3, spend within the limit plus one response's output, every child stopped, no request after the stop", async () => {
    const OUTPUT = 3_000;
    const server = await scriptedServer(
      perAgent({
        coordinator: [
          priced({ toolCalls: [delegateCall("look at A", "a"), delegateCall("look at B", "b"), delegateCall("look at C", "c")] }, 200),
          priced({ text: "never reached" }, 10),
        ],
        "explorer-1": busyExplorer(OUTPUT),
        "explorer-2": busyExplorer(OUTPUT),
        "explorer-3": busyExplorer(OUTPUT),
      }),
    );
    const ws = workspace({ "a.txt": "alpha\n", ".orca/config.yaml": CONFIG("budget:\n  max_cost_usd: 0.25\n") });
    const run = await runOrca(["-p", "survey the code", "--base-url", server.url, "--output-format", "json"], { ws, timeoutMs: 90_000 });
    expect(run.code, run.stderr).toBe(3);
    const out = JSON.parse(run.stdout) as { status: string; usage: { cost_usd: number }; agents: { id: string; status: string; cost_usd: number }[] };
    expect(out.status).toBe("budget");
    // One line says which limit and what was spent.
    const lines = run.stderr.split("\n").filter((l) => l.includes("budget"));
    expect(lines, run.stderr).toHaveLength(1);
    // Either the next request could not be paid for, or a response that passed its max_tokens spent past the limit.
    expect(lines[0]).toMatch(/^orca: (explorer-\d: )?Stopped: cost budget reached(: the next request .*)? \(\$0\.\d{4} of \$0\.2500 spent\)\.$/);

    const log = events(ws);
    const usage = of(log, "usage");
    const spent = usage.reduce((sum, u) => sum + u.cost!, 0);
    expect(spent).toBeCloseTo(out.usage.cost_usd, 10);
    // Never passed by more than the output of the request that crossed it.
    expect(spent).toBeLessThanOrEqual(0.25 + outputCost(OUTPUT));
    // Each agent's cost in the json result adds up to the run's.
    expect(out.agents.reduce((sum, a) => sum + a.cost_usd, 0)).toBeCloseTo(spent, 10);

    // Every child stopped with status budget, the coordinator too.
    const finished = of(log, "agent_finished");
    expect(finished.map((e) => [e.agentId, e.status]).sort()).toEqual([
      ["coordinator", "budget"],
      ["explorer-1", "budget"],
      ["explorer-2", "budget"],
      ["explorer-3", "budget"],
    ]);
    // Each child made several requests, in parallel, before the limit was reached.
    const byAgent = server.requests.map(agentOf);
    for (const id of ["explorer-1", "explorer-2", "explorer-3"]) expect(byAgent.filter((a) => a === id).length).toBeGreaterThanOrEqual(2);

    // No request after the stop: every request the server saw was admitted (model_request) before the
    // limit was reported, and none came after.
    const requests = of(log, "model_request");
    expect(server.requests).toHaveLength(requests.length);
    const stop = log.find((e) => e.type === "error" && e.where === "budget")!;
    expect(requests.every((r) => r.ts <= stop.ts)).toBe(true);
    // Each request carried the max_tokens its remainder could pay for.
    for (const request of server.requests) {
      expect(typeof request.body.max_tokens).toBe("number");
      expect(request.body.max_tokens as number).toBeGreaterThanOrEqual(1024);
      expect(request.body.max_tokens as number).toBeLessThanOrEqual(8192);
    }
    expect(log.at(-1)).toMatchObject({ type: "session_finished", status: "budget" });
  });

  it("background sub-agents count and stop too: they are charged to the run, all end with status budget, and stream-json usage lines carry each agent's cost", async () => {
    const OUTPUT = 3_000;
    const server = await scriptedServer(
      perAgent({
        coordinator: [
          priced({ toolCalls: [delegateCall("look at A", "a", { background: true }), delegateCall("look at B", "b", { background: true })] }, 200),
          priced({ text: "waiting for both" }, 10),
          priced({ text: "never reached" }, 10),
        ],
        "explorer-1": busyExplorer(OUTPUT),
        "explorer-2": busyExplorer(OUTPUT),
      }),
    );
    const ws = workspace({ "a.txt": "alpha\n", ".orca/config.yaml": CONFIG("budget:\n  max_cost_usd: 0.2\n") });
    const run = await runOrca(["-p", "survey the code", "--base-url", server.url, "--output-format", "stream-json"], { ws, timeoutMs: 90_000 });
    expect(run.code, run.stderr).toBe(3);
    const log = events(ws);
    const finished = of(log, "agent_finished");
    expect(finished.map((e) => [e.agentId, e.status]).sort()).toEqual([
      ["coordinator", "budget"],
      ["explorer-1", "budget"],
      ["explorer-2", "budget"],
    ]);
    const spent = of(log, "usage").reduce((sum, u) => sum + u.cost!, 0);
    expect(spent).toBeLessThanOrEqual(0.2 + outputCost(OUTPUT));
    expect(server.requests).toHaveLength(of(log, "model_request").length);
    const stop = log.find((e) => e.type === "error" && e.where === "budget")!;
    expect(of(log, "model_request").every((r) => r.ts <= stop.ts)).toBe(true);
    // Each usage line says what its agent has cost so far.
    const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; agentId: string; cost?: number; agentCostUsd?: number });
    const mine = lines.filter((l) => l.type === "usage" && l.agentId === "explorer-1");
    expect(mine.length).toBeGreaterThanOrEqual(2);
    let sum = 0;
    for (const line of mine) {
      sum += line.cost!;
      expect(line.agentCostUsd).toBeCloseTo(sum, 12);
    }
  });

  it("a delegate budget larger than the parent's remainder is cut to it, and the child stops within it", async () => {
    const OUTPUT = 4_000;
    const server = await scriptedServer(
      perAgent({
        coordinator: [priced({ toolCalls: [delegateCall("look at A", "a", { budget: { max_cost_usd: 5 } })] }, 500), priced({ text: "done anyway" }, 10)],
        "explorer-1": busyExplorer(OUTPUT),
      }),
    );
    const ws = workspace({ "a.txt": "alpha\n", ".orca/config.yaml": CONFIG("budget:\n  max_cost_usd: 0.1\n") });
    const run = await runOrca(["-p", "survey the code", "--base-url", server.url, "--output-format", "json"], { ws, timeoutMs: 90_000 });
    expect(run.code, run.stderr).toBe(3);
    const log = events(ws);
    const usage = of(log, "usage");
    const coordinatorFirst = usage.find((u) => u.agentId === "coordinator")!.cost!;
    const set = of(log, "budget_set");
    expect(set.find((e) => e.scope === "run")).toMatchObject({ maxCostUsd: 0.1 });
    const child = set.find((e) => e.agentId === "explorer-1")!;
    expect(child.asked).toEqual({ maxCostUsd: 5 });
    // Cut to what the run had left when the child started: the limit less the coordinator's first request.
    expect(child.maxCostUsd).toBeCloseTo(0.1 - coordinatorFirst, 10);
    const childSpent = usage.filter((u) => u.agentId === "explorer-1").reduce((sum, u) => sum + u.cost!, 0);
    expect(childSpent).toBeGreaterThan(0);
    expect(childSpent).toBeLessThanOrEqual(child.maxCostUsd! + outputCost(OUTPUT));
    expect(of(log, "agent_finished").find((e) => e.agentId === "explorer-1")).toMatchObject({ status: "budget" });
    expect(server.requests).toHaveLength(of(log, "model_request").length);
  });

  it("a sub-agent's own limit ends that agent only: its parent reads the partial result and goes on", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [priced({ toolCalls: [delegateCall("look at A", "a", { budget: { max_steps: 2 } })] }, 50), priced({ text: "PARENT-GOES-ON" }, 10)],
        "explorer-1": busyExplorer(100),
      }),
    );
    const ws = workspace({ "a.txt": "alpha\n", ".orca/config.yaml": CONFIG("") });
    const run = await runOrca(["-p", "survey the code", "--base-url", server.url], { ws, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("PARENT-GOES-ON\n");
    expect(run.stderr).toMatch(/^orca: explorer-1: Stopped: step budget of explorer-1 reached \(2 of 2 steps\)\.$/m);
    expect(server.requests.map(agentOf)).toEqual(["coordinator", "explorer-1", "explorer-1", "coordinator"]);
    const result = [...toolResults(server.requests[3]!).values()][0]!;
    expect(result).toContain("status: budget");
    expect(result).toContain("step budget of explorer-1 reached");
  });

  it("a money budget with a model that has no price exits 2 before any request, naming the model and the price key", async () => {
    const server = await scriptedServer([{ text: "never sent" }]);
    const ws = workspace({ ".orca/config.yaml": "model:\n  name: house-model\n" });
    const run = await runOrca(["-p", "hello", "--base-url", server.url, "--max-cost", "0.50"], { ws });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/^orca: budget\.max_cost_usd needs a price, and orca has none for model house-model \(agent \w+\): set model\.price in config\.yaml/);
    expect(server.requests).toHaveLength(0);
  });

  it("--max-cost is the run's money budget: a priced run that stays under it ends done", async () => {
    const server = await scriptedServer(priced({ text: "hello there" }, 20));
    const ws = workspace({ ".orca/config.yaml": CONFIG("") });
    const run = await runOrca(["-p", "hello", "--base-url", server.url, "--max-cost", "1", "--output-format", "json"], { ws });
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { usage: { cost_usd: number }; agents: { id: string; cost_usd: number }[] };
    expect(out.usage.cost_usd).toBeGreaterThan(0);
    expect(out.agents[0]!.cost_usd).toBeCloseTo(out.usage.cost_usd, 12);
    expect(of(events(ws), "budget_set")[0]).toMatchObject({ scope: "run", maxCostUsd: 1 });
  });

  it("a server that never reports usage is still charged: an estimate, marked estimated, stops the run with status budget", async () => {
    // About 4,000 output tokens a step ($0.032 at $8 per million) and never a usage report.
    const step = (i: number): ScriptedReply => ({ text: "word ".repeat(4000), toolCalls: [{ name: "grep", args: { pattern: `w${i}` } }], omitUsage: true });
    const server = await scriptedServer(Array.from({ length: 30 }, (_, i) => step(i)));
    const ws = workspace({ "a.txt": "alpha\n", ".orca/config.yaml": CONFIG("") });
    const run = await runOrca(["-p", "survey", "--base-url", server.url, "--max-cost", "0.1", "--output-format", "json"], { ws, timeoutMs: 90_000 });
    expect(run.code, run.stderr).toBe(3);
    const out = JSON.parse(run.stdout) as { status: string; usage: { cost_usd: number } };
    expect(out.status).toBe("budget");
    const usage = of(events(ws), "usage");
    expect(usage.length).toBe(server.requests.length);
    expect(usage.every((u) => u.estimated === true && u.output >= 4000)).toBe(true);
    const spent = usage.reduce((sum, u) => sum + u.cost!, 0);
    expect(out.usage.cost_usd).toBeCloseTo(spent, 10);
    expect(spent).toBeGreaterThan(0.05);
    expect(server.requests.length).toBeLessThanOrEqual(4);
  });
});
