import { worstInputRate, type Price } from "../model/pricing.js";
import { BudgetExceeded } from "../util/errors.js";

/** What one account may spend; unset: no limit of its own (its parent's still apply). */
export interface AccountLimits {
  maxCostUsd?: number;
  maxTokens?: number;
  maxSteps?: number;
}

/**
 * One node of a run's budget tree (DESIGN §14): the run, each agent below it, each sub-agent below
 * the agent that started it — a background one too, so its spend is charged to its parent. Every
 * charge is added to the account and to each one above it.
 */
export class BudgetAccount {
  cost = 0;
  tokens = 0;
  steps = 0;
  /** USD held by requests in flight: what their input and max_tokens of output may cost. */
  reserved = 0;
  /** A request was charged without a price: the cost is unknown, never $0. */
  unpriced = false;
  /** Its limit was reached: every later request under it is refused for the same reason. */
  closed?: BudgetExceeded;

  constructor(
    /** The agent's id; the run's account is "run". */
    readonly id: string,
    readonly limits: AccountLimits,
    readonly parent?: BudgetAccount,
  ) {}

  get isRun(): boolean {
    return this.parent === undefined;
  }

  /** This account and every one above it, nearest first. */
  chain(): BudgetAccount[] {
    const out: BudgetAccount[] = [];
    for (let a: BudgetAccount | undefined = this; a; a = a.parent) out.push(a);
    return out;
  }

  /** USD this account has left for new requests, or undefined without a money limit of its own. */
  costLeft(): number | undefined {
    return this.limits.maxCostUsd === undefined ? undefined : this.limits.maxCostUsd - this.cost - this.reserved;
  }

  /** What the account and those above it have left: a new child's limits are cut to this. */
  remainder(): AccountLimits {
    const out: AccountLimits = {};
    for (const a of this.chain()) {
      const { maxCostUsd, maxTokens, maxSteps } = a.limits;
      if (maxCostUsd !== undefined) out.maxCostUsd = Math.min(out.maxCostUsd ?? Infinity, Math.max(0, maxCostUsd - a.cost - a.reserved));
      if (maxTokens !== undefined) out.maxTokens = Math.min(out.maxTokens ?? Infinity, Math.max(0, maxTokens - a.tokens));
      if (maxSteps !== undefined) out.maxSteps = Math.min(out.maxSteps ?? Infinity, Math.max(0, maxSteps - a.steps));
    }
    return out;
  }
}

/** A request as the budget prices it before it is sent. */
export interface RequestPlan {
  model: string;
  /** Input tokens, counted with the model's tokenizer (orca's estimate; see model/tokens.ts). */
  inputTokens: number;
  price?: Price;
  /** The most output the request may ask for: model.max_output_tokens, else the model's output limit. */
  outputCap: number;
}

/** A request that fits once what parallel requests hold is given back: ask again then. */
export interface Waiting {
  retryAfter: Promise<void>;
}

/** A request let through: the max_tokens it must carry (when a money limit applies), and the hold to give back once it has ended. */
export interface Admission {
  maxOutputTokens?: number;
  release(): void;
}

/**
 * A request is sent only when it can still produce this much output (or its cap, when lower):
 * cutting an answer at a few dozen tokens leaves a broken tool call that costs a step and buys nothing.
 */
export const MIN_OUTPUT_TOKENS = 1024;

export function formatUsd(usd: number): string {
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/**
 * Admits, charges and stops the requests of one run. `onReached` is told when an account's limit is
 * reached (a request it cannot afford): the owner ends that agent, or the whole run for the run's account.
 */
export class BudgetTree {
  readonly run: BudgetAccount;
  private readonly accounts = new Map<string, BudgetAccount>();
  private releaseWaiters: (() => void)[] = [];

  constructor(
    limits: AccountLimits,
    private readonly onReached: (account: BudgetAccount, reason: BudgetExceeded) => void = () => {},
  ) {
    this.run = new BudgetAccount("run", limits);
  }

  get(agentId: string): BudgetAccount | undefined {
    return this.accounts.get(agentId);
  }

  /**
   * The account of an agent for this run, opened under its parent's (the run's for the coordinator).
   * Its limits are its own, each cut to what the accounts above it have left now; `cut` names those
   * that were cut. An agent that runs again in the same run (delegate {resume}) keeps its account,
   * its limits lowered (`lowered`) where `own` asks for less: to what it has spent plus `own`, that
   * much at most of what its parent has left — its budget is for the resumed run, as a fresh one's is.
   */
  open(agentId: string, parentId: string | undefined, own: AccountLimits): { account: BudgetAccount; cut: (keyof AccountLimits)[]; opened: boolean; lowered: boolean } {
    const existing = this.accounts.get(agentId);
    if (existing) return { account: existing, opened: false, ...lowerOnResume(existing, own) };
    const parent = (parentId && this.accounts.get(parentId)) || this.run;
    const left = parent.remainder();
    const limits: AccountLimits = {};
    const cut: (keyof AccountLimits)[] = [];
    for (const key of ["maxCostUsd", "maxTokens", "maxSteps"] as const) {
      const mine = own[key];
      if (mine === undefined) continue;
      const above = left[key];
      limits[key] = above !== undefined && above < mine ? above : mine;
      if (limits[key] !== mine) cut.push(key);
    }
    const account = new BudgetAccount(agentId, limits, parent);
    this.accounts.set(agentId, account);
    return { account, cut, opened: true, lowered: false };
  }

  /**
   * An account of the run a resume continues, as it stood when the run stopped: its limits as they
   * applied then (already cut to its parent's remainder), its steps taken. Its spend is charged after.
   */
  restore(agentId: string, parentId: string | undefined, limits: AccountLimits, steps: number): void {
    const parent = (parentId && this.accounts.get(parentId)) || this.run;
    const account = new BudgetAccount(agentId, { ...limits }, parent);
    for (const a of account.chain()) a.steps += steps;
    this.accounts.set(agentId, account);
  }

  /** A request's usage, charged to its agent's account and every one above it (the run's when the agent has none). */
  charge(agentId: string, usage: { input: number; output: number; cost?: number }): void {
    const account = this.accounts.get(agentId) ?? this.run;
    for (const a of account.chain()) {
      a.tokens += usage.input + usage.output;
      if (usage.cost === undefined) a.unpriced = true;
      else a.cost += usage.cost;
    }
  }

  /**
   * Checked before each request of `account`'s agent: every account above it must have a step, the
   * input's tokens and — where a money limit applies — the input priced at its worst rate plus
   * enough output left. The money check sets max_tokens to the output the tightest account can
   * still pay for (at most the cap) and holds that much until the request ends, so parallel agents
   * cannot spend one remainder twice. `recount` gives an exact input count when the first (an upper
   * bound) does not fit.
   */
  admit(account: BudgetAccount, plan: RequestPlan, recount?: () => number): Admission | BudgetExceeded | Waiting {
    let verdict = this.check(account, plan);
    if ("refused" in verdict && recount) verdict = this.check(account, { ...plan, inputTokens: recount() });
    if ("wait" in verdict) return { retryAfter: new Promise<void>((resolve) => this.releaseWaiters.push(resolve)) };
    if ("refused" in verdict) {
      verdict.account.closed ??= verdict.refused;
      this.onReached(verdict.account, verdict.refused);
      return verdict.refused;
    }
    return this.hold(account, verdict.hold, verdict.maxOutputTokens, true);
  }

  /**
   * A request outside the agent's steps (compaction's summary), let through only when it fits whole:
   * its input and all of `plan.outputCap` (its own max_tokens). What it may cost is held until it is
   * released, like a step's, so a parallel request cannot spend it too. Refusing closes nothing: the
   * agent's own next request is checked as usual.
   */
  admitSummary(account: BudgetAccount, plan: RequestPlan): Admission | BudgetExceeded {
    const verdict = this.check(account, plan, false);
    if ("refused" in verdict) return verdict.refused;
    if ("wait" in verdict || (verdict.maxOutputTokens !== undefined && verdict.maxOutputTokens < plan.outputCap)) {
      return new BudgetExceeded("cost", `cost budget reached: a summary request (about ${plan.inputTokens} input tokens and up to ${plan.outputCap} of output) would pass max_cost_usd`);
    }
    return this.hold(account, verdict.hold, verdict.maxOutputTokens, false);
  }

  private hold(account: BudgetAccount, hold: number, maxOutputTokens: number | undefined, isStep: boolean): Admission {
    const chain = account.chain();
    for (const a of chain) {
      if (isStep) a.steps++;
      a.reserved += hold;
    }
    let held = true;
    return {
      maxOutputTokens,
      release: () => {
        if (!held) return;
        held = false;
        for (const a of chain) a.reserved -= hold;
        for (const wake of this.releaseWaiters.splice(0)) wake();
      },
    };
  }

  /** The check, with the blame: the account whose limit the request would pass. */
  private check(account: BudgetAccount, plan: RequestPlan, isStep = true): { hold: number; maxOutputTokens?: number } | Refusal | { wait: true } {
    const chain = account.chain();
    for (const a of chain) {
      const refused = a.closed ?? stepsOrTokens(a, plan.inputTokens, isStep);
      if (refused) return this.reached(a, refused);
    }
    const money = chain.filter((a) => a.limits.maxCostUsd !== undefined);
    if (!money.length) return { hold: 0 };
    const tightest = money.reduce((best, a) => (a.costLeft()! < best.costLeft()! ? a : best));
    const of = whose(tightest);
    const max = tightest.limits.maxCostUsd!;
    if (!plan.price) {
      return this.reached(tightest, new BudgetExceeded("cost", `cost budget${of} cannot be kept: orca has no price for model ${plan.model} (set model.price in config.yaml)`));
    }
    if (tightest.cost >= max) return this.reached(tightest, new BudgetExceeded("cost", `cost budget${of} reached (${formatUsd(tightest.cost)} of ${formatUsd(max)} spent)`));
    const left = tightest.costLeft()!;
    const inputCost = (plan.inputTokens * worstInputRate(plan.price)) / 1_000_000;
    const outputRate = plan.price.output / 1_000_000;
    // The epsilon keeps float noise ($0.04 / $0.00001 = 3999.9999…) from costing a token.
    const affordable = outputRate > 0 ? Math.floor((left - inputCost) / outputRate + 1e-6) : Infinity;
    const maxOutputTokens = Math.min(plan.outputCap, affordable);
    if (maxOutputTokens < Math.min(plan.outputCap, MIN_OUTPUT_TOKENS)) {
      const least = inputCost + Math.min(plan.outputCap, MIN_OUTPUT_TOKENS) * outputRate;
      // Only what parallel requests hold is in the way: they usually spend far less, so wait for them.
      if (isStep && money.some((a) => a.reserved > 1e-12) && money.every((a) => a.limits.maxCostUsd! - a.cost >= least)) return { wait: true };
      return this.reached(
        tightest,
        new BudgetExceeded(
          "cost",
          `cost budget${of} reached: the next request (about ${plan.inputTokens} input tokens and at least ${Math.min(plan.outputCap, MIN_OUTPUT_TOKENS)} of output) would cost up to ${formatUsd(least)}, more than the ${formatUsd(Math.max(0, left))} left of max_cost_usd (${formatUsd(tightest.cost)} of ${formatUsd(max)} spent)`,
        ),
      );
    }
    return { hold: inputCost + maxOutputTokens * outputRate, maxOutputTokens };
  }

  private reached(account: BudgetAccount, refused: BudgetExceeded): Refusal {
    return { refused, account };
  }
}

interface Refusal {
  refused: BudgetExceeded;
  account: BudgetAccount;
}

/** " of explorer-1" for an agent's account; nothing for the run's (its messages are the run's own). */
function whose(account: BudgetAccount): string {
  return account.isRun ? "" : ` of ${account.id}`;
}

function stepsOrTokens(a: BudgetAccount, inputTokens: number, isStep: boolean): BudgetExceeded | null {
  const { maxTokens, maxSteps } = a.limits;
  const of = whose(a);
  if (isStep && maxSteps !== undefined && a.steps >= maxSteps) return new BudgetExceeded("steps", `step budget${of} reached (${a.steps} of ${maxSteps} steps)`);
  if (maxTokens === undefined) return null;
  if (a.tokens >= maxTokens) return new BudgetExceeded("tokens", `token budget${of} reached (${a.tokens} of ${maxTokens} tokens)`);
  // A request whose input alone would use up what is left cannot end within the budget: it needs at least one output token.
  if (a.tokens + inputTokens >= maxTokens) {
    return new BudgetExceeded(
      "tokens",
      `token budget${of} reached: the next request (about ${inputTokens} input tokens) would pass max_tokens (${a.tokens} of ${maxTokens} tokens spent)`,
    );
  }
  return null;
}

function lowerOnResume(account: BudgetAccount, own: AccountLimits): { cut: (keyof AccountLimits)[]; lowered: boolean } {
  const left = account.parent?.remainder() ?? {};
  const spent = { maxCostUsd: account.cost, maxTokens: account.tokens, maxSteps: account.steps };
  const cut: (keyof AccountLimits)[] = [];
  let lowered = false;
  for (const key of ["maxCostUsd", "maxTokens", "maxSteps"] as const) {
    const mine = own[key];
    if (mine === undefined) continue;
    const above = left[key];
    const allowed = spent[key] + (above !== undefined && above < mine ? above : mine);
    if (above !== undefined && above < mine) cut.push(key);
    const before = account.limits[key];
    if (before === undefined || allowed < before) {
      account.limits[key] = allowed;
      lowered = true;
    }
  }
  return { cut, lowered };
}
