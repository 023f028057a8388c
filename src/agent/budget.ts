import type { Usage } from "../events/types.js";
import { BudgetExceeded } from "../util/errors.js";

export interface BudgetLimits {
  maxTokens?: number;
  maxToolCalls?: number;
  /** Seconds. */
  maxDuration?: number;
}

/**
 * What one run (one user turn) may spend, shared by the coordinator and every sub-agent of the
 * run, so delegation cannot be used to escape a limit. Every request counts, compaction's summary
 * requests included: the session feeds it every `usage` event of the run.
 */
export class RunBudget {
  private tokens = 0;
  private toolCalls = 0;
  private readonly startedAt = Date.now();

  constructor(private readonly limits: BudgetLimits) {}

  addUsage(usage: Pick<Usage, "input" | "output">): void {
    this.tokens += usage.input + usage.output;
  }

  /** Tokens the run has spent so far (input and output of every request). */
  get spent(): number {
    return this.tokens;
  }

  /** The limit reached, else null. */
  exceeded(): BudgetExceeded | null {
    const { maxTokens, maxToolCalls, maxDuration } = this.limits;
    if (maxTokens !== undefined && this.tokens >= maxTokens) {
      return new BudgetExceeded("tokens", `token budget reached (${this.tokens} of ${maxTokens} tokens)`);
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
   * Checked before a request is sent: one whose input alone (orca's estimate) would use up what is
   * left cannot end within the budget — it needs at least one output token — so it is not sent.
   */
  admits(inputEstimate: number): BudgetExceeded | null {
    const { maxTokens } = this.limits;
    if (maxTokens === undefined || this.tokens + inputEstimate < maxTokens) return null;
    return new BudgetExceeded(
      "tokens",
      `token budget reached: the next request (about ${inputEstimate} input tokens) would pass max_tokens (${this.tokens} of ${maxTokens} tokens spent)`,
    );
  }

  /** Takes up to `wanted` calls from what is left and returns how many may run. */
  reserveToolCalls(wanted: number): number {
    const left = this.limits.maxToolCalls === undefined ? wanted : Math.max(0, this.limits.maxToolCalls - this.toolCalls);
    const granted = Math.min(wanted, left);
    this.toolCalls += granted;
    return granted;
  }
}
