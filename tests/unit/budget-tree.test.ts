import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAgentFile } from "../../src/agent/definition.js";
import { ownLimits } from "../../src/orchestrator/budget-accounts.js";
import { BudgetTree, MIN_OUTPUT_TOKENS, type Admission, type Waiting } from "../../src/agent/budget-tree.js";
import { RunBudget } from "../../src/agent/budget.js";
import { outputLimitFor, worstInputRate } from "../../src/model/pricing.js";
import { BudgetExceeded } from "../../src/util/errors.js";

/** $1 per million in, $10 per million out: 1 000 output tokens cost $0.01. */
const PRICE = { input: 1, output: 10 };
const plan = (inputTokens: number, outputCap = 8_192) => ({ model: "m", inputTokens, price: PRICE, outputCap });

function admitted(result: Admission | BudgetExceeded | Waiting): Admission {
  if (result instanceof BudgetExceeded) throw new Error(`refused: ${result.message}`);
  if ("retryAfter" in result) throw new Error("told to wait");
  return result;
}

describe("the budget tree", () => {
  it("says when a token or money limit weighs an agent's requests (its own or an account's above it), and not for a step limit alone", () => {
    const weighs = (run: RunBudget, own: Parameters<BudgetTree["open"]>[2], parent?: string) => {
      if (parent) run.tree.open(parent, undefined, {});
      const plan = { model: "m", price: PRICE, outputCap: 100 };
      return run.forAgent(run.tree.open("a", parent, own).account, plan).weighsInput?.();
    };
    expect(weighs(new RunBudget({}), {})).toBe(false);
    expect(weighs(new RunBudget({}), { maxSteps: 3 })).toBe(false);
    expect(weighs(new RunBudget({ maxTokens: 1000 }), {}, "c")).toBe(true);
    expect(weighs(new RunBudget({}), { maxCostUsd: 1 })).toBe(true);
  });

  it("a child's limits are cut to what its parent has left when it opens, and say which were cut", () => {
    const tree = new BudgetTree({ maxCostUsd: 1 });
    const root = tree.open("coordinator", undefined, {}).account;
    tree.charge("coordinator", { input: 1000, output: 100, cost: 0.4 });
    const { account, cut, opened } = tree.open("explorer-1", "coordinator", { maxCostUsd: 5, maxSteps: 3 });
    expect(opened).toBe(true);
    expect(account.parent).toBe(root);
    expect(account.limits.maxCostUsd).toBeCloseTo(0.6, 12);
    expect(account.limits.maxSteps).toBe(3);
    expect(cut).toEqual(["maxCostUsd"]);
    // Opening again in the same run keeps the account.
    expect(tree.open("explorer-1", "coordinator", { maxCostUsd: 5 })).toMatchObject({ account, opened: false });
  });

  it("charges an agent's usage to every account above it; a request without a price makes the cost unknown", () => {
    const tree = new BudgetTree({});
    tree.open("c", undefined, {});
    tree.open("e", "c", {});
    tree.charge("e", { input: 10, output: 5, cost: 0.25 });
    tree.charge("e", { input: 1, output: 1 });
    expect([tree.get("e")!.cost, tree.get("c")!.cost, tree.run.cost]).toEqual([0.25, 0.25, 0.25]);
    expect([tree.get("e")!.tokens, tree.run.tokens]).toEqual([17, 17]);
    expect(tree.run.unpriced).toBe(true);
  });

  it("sets max_tokens to what the tightest account can pay for, and holds it while the request is in flight", async () => {
    const tree = new BudgetTree({ maxCostUsd: 0.05 });
    const a = tree.open("a", undefined, {}).account;
    const b = tree.open("b", undefined, {}).account;
    // 10 000 input tokens cost $0.01: $0.04 is left for output, 4 000 tokens.
    const first = admitted(tree.admit(a, plan(10_000)));
    expect(first.maxOutputTokens).toBe(4_000);
    // A parallel request finds everything held: it waits for the hold to be given back, not refused.
    const waiting = tree.admit(b, plan(1_000));
    expect(waiting).toHaveProperty("retryAfter");
    let woken = false;
    void (waiting as Waiting).retryAfter.then(() => (woken = true));
    tree.charge("a", { input: 10_000, output: 1_000, cost: 0.02 });
    first.release();
    await expect.poll(() => woken).toBe(true);
    // $0.03 left: $0.001 of input, 2 900 tokens of output.
    expect(admitted(tree.admit(b, plan(1_000))).maxOutputTokens).toBe(2_900);
  });

  it("a request that cannot afford its input and the least output, with nothing held, is refused and closes the account", () => {
    const reached: string[] = [];
    const tree = new BudgetTree({ maxCostUsd: 0.05 }, (account) => reached.push(account.id));
    const a = tree.open("a", undefined, {}).account;
    tree.charge("a", { input: 1, output: 1, cost: 0.045 });
    const refused = tree.admit(a, plan(1_000));
    expect(refused).toBeInstanceOf(BudgetExceeded);
    expect((refused as BudgetExceeded).message).toBe(
      "cost budget reached: the next request (about 1000 input tokens and at least 1024 of output) would cost up to $0.0112, more than the $0.0050 left of max_cost_usd ($0.0450 of $0.0500 spent)",
    );
    expect(reached).toEqual(["run"]);
    // Closed: even a request that would fit is refused now, for the same reason.
    expect(tree.admit(a, plan(10, 100))).toBe(refused);
  });

  it("the cap bounds max_tokens, and a request that cannot afford MIN_OUTPUT_TOKENS is not sent", () => {
    const tree = new BudgetTree({ maxCostUsd: 1 });
    const a = tree.open("a", undefined, {}).account;
    expect(admitted(tree.admit(a, plan(1_000, 2_000))).maxOutputTokens).toBe(2_000);
    const poor = new BudgetTree({ maxCostUsd: 0.001 + (MIN_OUTPUT_TOKENS - 1) * 1e-5 });
    expect(poor.admit(poor.open("a", undefined, {}).account, plan(1_000))).toBeInstanceOf(BudgetExceeded);
    const enough = new BudgetTree({ maxCostUsd: 0.001 + MIN_OUTPUT_TOKENS * 1e-5 + 1e-9 });
    expect(admitted(enough.admit(enough.open("a", undefined, {}).account, plan(1_000))).maxOutputTokens).toBe(MIN_OUTPUT_TOKENS);
  });

  it("an agent's own limit stops that agent and names it; the one told to stop is the account reached", () => {
    const reached: string[] = [];
    const tree = new BudgetTree({ maxCostUsd: 10 }, (account, reason) => reached.push(`${account.id}: ${reason.message}`));
    tree.open("c", undefined, {});
    const e = tree.open("e", "c", { maxSteps: 1, maxTokens: 500 }).account;
    admitted(tree.admit(e, plan(100))).release();
    expect(tree.admit(e, plan(100))).toMatchObject({ limit: "steps", message: "step budget of e reached (1 of 1 steps)" });
    expect(reached).toEqual(["e: step budget of e reached (1 of 1 steps)"]);
    const t = tree.open("t", "c", { maxTokens: 500 }).account;
    expect(tree.admit(t, plan(600))).toMatchObject({ limit: "tokens", message: "token budget of t reached: the next request (about 600 input tokens) would pass max_tokens (0 of 500 tokens spent)" });
  });

  it("an upper-bound count that does not fit is recounted exactly before refusing", () => {
    const reached: string[] = [];
    const tree = new BudgetTree({ maxTokens: 1_000 }, (a) => reached.push(a.id));
    const a = tree.open("a", undefined, {}).account;
    expect(tree.admit(a, plan(5_000), () => 900)).not.toBeInstanceOf(BudgetExceeded);
    expect(reached).toEqual([]);
  });

  it("no money limit anywhere: no max_tokens is set, and an unpriced model may run", () => {
    const tree = new BudgetTree({ maxTokens: 1_000_000 });
    const a = tree.open("a", undefined, {}).account;
    expect(admitted(tree.admit(a, { model: "local", inputTokens: 10, outputCap: 8_192 })).maxOutputTokens).toBeUndefined();
  });

  it("a money limit with an unpriced model refuses, naming the model and model.price", () => {
    const tree = new BudgetTree({ maxCostUsd: 1 });
    expect(tree.admit(tree.open("a", undefined, {}).account, { model: "local", inputTokens: 10, outputCap: 100 })).toMatchObject({
      message: "cost budget cannot be kept: orca has no price for model local (set model.price in config.yaml)",
    });
  });
});

describe("a resumed sub-agent's budget", () => {
  it("delegate {resume, budget} lowers the account it keeps: to what it has spent plus the new budget, at most its parent's remainder", () => {
    const tree = new BudgetTree({ maxCostUsd: 1 });
    tree.open("coordinator", undefined, {});
    tree.open("explorer-1", "coordinator", { maxCostUsd: 0.8, maxSteps: 10 });
    tree.charge("explorer-1", { input: 100, output: 100, cost: 0.3 });
    const again = tree.open("explorer-1", "coordinator", { maxCostUsd: 0.1, maxSteps: 2 });
    expect(again.opened).toBe(false);
    expect(again.account.limits.maxCostUsd).toBeCloseTo(0.4, 12);
    expect(again.account.limits.maxSteps).toBe(2);
    expect(again.cut).toEqual([]);
    // A larger budget than the parent has left is cut to it; a resume without one changes nothing.
    tree.charge("coordinator", { input: 100, output: 100, cost: 0.65 });
    const cut = tree.open("explorer-1", "coordinator", { maxCostUsd: 5 });
    expect(cut.account.limits.maxCostUsd).toBeCloseTo(0.3 + 0.05, 12);
    expect(cut.cut).toEqual(["maxCostUsd"]);
    expect(tree.open("explorer-1", "coordinator", {}).account.limits.maxCostUsd).toBeCloseTo(0.35, 12);
  });
});

describe("RunBudget", () => {
  it("keeps the run's token messages and adds money: spent at or past the limit stops the run", () => {
    const run = new RunBudget({ maxTokens: 100, maxCostUsd: 0.5 });
    run.addUsage({ agentId: "x", input: 10, output: 10, cost: 0.5 });
    const reached = run.exceeded();
    expect(reached?.message).toBe("cost budget reached ($0.5000 of $0.5000 spent)");
    // Once reached, every agent gets the same reason (its line is said once), whatever comes after.
    run.addUsage({ input: 80, output: 0, cost: 0 });
    expect(run.exceeded()).toBe(reached);
    const tokens = new RunBudget({ maxTokens: 100 });
    tokens.addUsage({ input: 90, output: 10 });
    expect(tokens.exceeded()?.message).toBe("token budget reached (100 of 100 tokens)");
    expect(tokens.spent).toBe(100);
  });
});

describe("compaction's summary request", () => {
  const summary = (agentId: string, maxOutput: number) => ({ agentId, model: { name: "m", price: PRICE }, maxOutput });

  it("must fit whole under its agent's money limits (input and all its max_tokens), without taking a step", () => {
    const run = new RunBudget({ maxCostUsd: 0.02 });
    const a = run.tree.open("a", undefined, { maxSteps: 1 }).account;
    admitted(run.tree.admit(a, plan(100))).release();
    // $0.001 of input and $0.01 of output fit in $0.02, though the agent's one step is used.
    const held = admitted(run.admitSummary(1_000, summary("a", 1_000)));
    expect(a.steps).toBe(1);
    held.release();
    expect(run.admitSummary(1_000, summary("a", 3_000))).toMatchObject({
      message: "cost budget reached: a summary request (about 1000 input tokens and up to 3000 of output) would pass max_cost_usd",
    });
  });

  it("holds what it may cost while in flight: a parallel agent is admitted only for what is left, so the run's limit holds", () => {
    const run = new RunBudget({ maxCostUsd: 0.5 });
    const a = run.tree.open("a", undefined, {}).account;
    const b = run.tree.open("b", undefined, {}).account;
    // 2k in + 20k out = $0.202 held by a's summary.
    const held = admitted(run.admitSummary(2_000, summary("a", 20_000)));
    expect(a.steps).toBe(0);
    const parallel = admitted(run.tree.admit(b, plan(1_000, 100_000)));
    const worst = 0.202 + (1_000 * PRICE.input + parallel.maxOutputTokens! * PRICE.output) / 1_000_000;
    expect(worst).toBeLessThanOrEqual(0.5 + 1e-9);
    parallel.release();
    held.release();
    expect(run.tree.run.reserved).toBeCloseTo(0, 12);
  });
});

describe("budget: in an agent file", () => {
  const write = (front: string): string => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-budget-def-"));
    const file = path.join(dir, "a.md");
    fs.writeFileSync(file, `---\nname: scout\ndescription: d\n${front}---\nYou scout.\n`);
    return file;
  };

  it("is read as the agent's limits, and a delegate budget can only lower them", () => {
    const definition = parseAgentFile(write("budget:\n  max_cost_usd: 0.5\n  max_steps: 8\n"));
    if ("reason" in definition) throw new Error(definition.reason);
    expect(definition.budget).toEqual({ maxCostUsd: 0.5, maxSteps: 8 });
    expect(ownLimits({ definition, budget: { maxCostUsd: 2, maxTokens: 1000 } })).toEqual({ maxCostUsd: 0.5, maxSteps: 8, maxTokens: 1000 });
    expect(ownLimits({ definition, budget: { maxCostUsd: 0.1 } })).toEqual({ maxCostUsd: 0.1, maxSteps: 8 });
  });

  it("refuses an unknown or a non-positive budget key with its path", () => {
    expect(parseAgentFile(write("budget:\n  max_dollars: 1\n"))).toEqual({ reason: "budget: unknown key max_dollars" });
    expect(parseAgentFile(write("budget:\n  max_cost_usd: 0\n"))).toMatchObject({ reason: expect.stringMatching(/^budget\.max_cost_usd: /) });
  });
});

describe("pricing for the check", () => {
  it("prices input at the cache-write rate where it is higher, and knows the output limits of well-known models", () => {
    expect(worstInputRate({ input: 3, output: 15, cacheWrite: 3.75, cached: 0.3 })).toBe(3.75);
    expect(worstInputRate({ input: 2, output: 8, cached: 0.5 })).toBe(2);
    expect(outputLimitFor("gpt-4o-2024-08-06")).toBe(16_384);
    expect(outputLimitFor("gpt-4.1-mini")).toBe(32_768);
    expect(outputLimitFor("gpt-4-1106-preview")).toBe(8_192);
    expect(outputLimitFor("claude-opus-4-1")).toBe(32_000);
    expect(outputLimitFor("claude-sonnet-4-5-20250929")).toBe(64_000);
    expect(outputLimitFor("qwen2.5-coder")).toBe(8_192);
  });
});
