import type { Usage } from "../events/types.js";
import type { Model } from "../model/model.js";
import type { StoppedRun } from "../sessions/stopped-run.js";
import { raceAbort } from "../util/race-abort.js";
import { BudgetExceeded } from "../util/errors.js";
import { BudgetTree, formatUsd, type Admission, type BudgetAccount, type RequestPlan } from "./budget-tree.js";

export interface BudgetLimits {
  maxTokens?: number;
  maxToolCalls?: number;
  /** Seconds. */
  maxDuration?: number;
  /** USD. */
  maxCostUsd?: number;
}

/** A summary request of compaction, checked against its agent's accounts. */
export interface SummaryRequest {
  agentId: string;
  model: Pick<Model, "name" | "price">;
  /** Its max_tokens. */
  maxOutput: number;
}

/** What the agent loop asks of the budget: whether to go on, whether a request may go out, how many calls may run. */
export interface AgentBudget {
  exceeded(): BudgetExceeded | null;
  /**
   * Before a request: let through (with the max_tokens it must carry) or refused; `recount` gives an
   * exact count. May wait for parallel requests to give back what they hold; null when `signal` aborts meanwhile.
   */
  admit(inputTokens: number, recount: (() => number) | undefined, signal: AbortSignal): Promise<Admission | BudgetExceeded | null>;
  reserveToolCalls(wanted: number): number;
  /** Whether a token or money limit weighs this agent's requests (admit may then count their input exactly). */
  weighsInput?(): boolean;
}

/**
 * What one run (one user turn) may spend, shared by the coordinator and every sub-agent of the
 * run, so delegation cannot be used to escape a limit. Every request counts, compaction's summary
 * requests included: the session feeds it every `usage` event of the run.
 */
export class RunBudget {
  private toolCalls = 0;
  private startedAt = Date.now();
  /** The stopped run this one continues (a resume), whose fan-out count goes on too (orchestrator/fanout.ts). */
  carried?: StoppedRun;
  /** The accounts of the run and of each agent in it (budget-tree.ts): tokens, money and steps. */
  readonly tree: BudgetTree;

  constructor(
    private readonly limits: BudgetLimits,
    private readonly onReached: (account: BudgetAccount, reason: BudgetExceeded) => void = () => {},
  ) {
    this.tree = new BudgetTree({ maxTokens: limits.maxTokens, maxCostUsd: limits.maxCostUsd }, onReached);
  }

  /** A request's usage, charged to its agent's account and those above it. */
  addUsage(usage: Pick<Usage, "input" | "output" | "cost"> & { agentId?: string }): void {
    this.tree.charge(usage.agentId ?? "", usage);
  }

  /**
   * The run a resume continues: what it spent before it stopped counts against its limits, and its
   * agents' accounts keep theirs (a sub-agent's delegate {budget} too), as if it had not stopped.
   */
  carry(stopped: StoppedRun): void {
    this.carried = stopped;
    for (const a of stopped.accounts) this.tree.restore(a.id, a.parentId, a.limits, a.steps);
    for (const usage of stopped.usage) this.addUsage(usage);
    this.toolCalls += stopped.toolCalls;
    this.startedAt -= stopped.elapsedMs;
  }

  /** Milliseconds left of max_duration, if set. */
  get timeLeftMs(): number | undefined {
    return this.limits.maxDuration === undefined ? undefined : this.limits.maxDuration * 1000 - (Date.now() - this.startedAt);
  }

  /** Tokens the run has spent so far (input and output of every request). */
  get spent(): number {
    return this.tree.run.tokens;
  }

  /** The loop's view for one agent, whose requests are priced by `plan`. */
  forAgent(account: BudgetAccount, plan: Omit<RequestPlan, "inputTokens">): AgentBudget {
    return {
      exceeded: () => {
        const over = this.exceeded();
        // Spent past a limit (a server that ignored max_tokens): the whole run ends, not only this agent.
        if (over && over === this.tree.run.closed) this.onReached(this.tree.run, over);
        return over;
      },
      admit: async (inputTokens, recount, signal) => {
        for (;;) {
          const over = this.exceeded();
          if (over) {
            this.onReached(this.tree.run, over);
            return over;
          }
          const verdict = this.tree.admit(account, { ...plan, inputTokens }, recount);
          if (!("retryAfter" in verdict)) return verdict;
          await raceAbort(verdict.retryAfter, signal, () => undefined);
          if (signal.aborted) return null;
        }
      },
      reserveToolCalls: (wanted) => this.reserveToolCalls(wanted),
      weighsInput: () => account.chain().some((a) => a.limits.maxTokens !== undefined || a.limits.maxCostUsd !== undefined),
    };
  }

  /** The limit reached, else null. */
  exceeded(): BudgetExceeded | null {
    const { maxTokens, maxToolCalls, maxDuration, maxCostUsd } = this.limits;
    const run = this.tree.run;
    const { tokens, cost } = run;
    // Once reached, the same reason for every agent: the line that says so is said once.
    if (run.closed) return run.closed;
    if (maxTokens !== undefined && tokens >= maxTokens) {
      return (run.closed = new BudgetExceeded("tokens", `token budget reached (${tokens} of ${maxTokens} tokens)`));
    }
    if (maxCostUsd !== undefined && cost >= maxCostUsd) {
      return (run.closed = new BudgetExceeded("cost", `cost budget reached (${formatUsd(cost)} of ${formatUsd(maxCostUsd)} spent)`));
    }
    if (maxToolCalls !== undefined && this.toolCalls >= maxToolCalls) {
      return new BudgetExceeded("tool_calls", `tool-call budget reached (${this.toolCalls} of ${maxToolCalls} calls)`);
    }
    if (maxDuration !== undefined && (Date.now() - this.startedAt) / 1000 >= maxDuration) {
      return this.timeUp();
    }
    return null;
  }

  /** The time limit as a failure, for the timer that cancels a run stuck in a long call. */
  timeUp(): BudgetExceeded {
    return new BudgetExceeded("time", `time budget reached (${this.limits.maxDuration}s)`);
  }

  /**
   * Compaction's summary request, before it is sent: the run's token limit must leave room past its
   * input (it needs at least one output token), and its agent's accounts must pay for its input and
   * all its output, which stays held until the returned admission is released.
   */
  admitSummary(inputEstimate: number, summary: SummaryRequest): Admission | BudgetExceeded {
    const { maxTokens } = this.limits;
    const { tokens } = this.tree.run;
    if (maxTokens !== undefined && tokens + inputEstimate >= maxTokens) {
      return new BudgetExceeded(
        "tokens",
        `token budget reached: the next request (about ${inputEstimate} input tokens) would pass max_tokens (${tokens} of ${maxTokens} tokens spent)`,
      );
    }
    const account = this.tree.get(summary.agentId) ?? this.tree.run;
    return this.tree.admitSummary(account, { model: summary.model.name, price: summary.model.price, inputTokens: inputEstimate, outputCap: summary.maxOutput });
  }

  /** Takes up to `wanted` calls from what is left and returns how many may run. */
  reserveToolCalls(wanted: number): number {
    const left = this.limits.maxToolCalls === undefined ? wanted : Math.max(0, this.limits.maxToolCalls - this.toolCalls);
    const granted = Math.min(wanted, left);
    this.toolCalls += granted;
    return granted;
  }
}
