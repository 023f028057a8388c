import type { Usage } from "../events/types.js";

export interface BudgetLimits {
  maxTokens?: number;
  maxToolCalls?: number;
  /** Seconds. */
  maxDuration?: number;
}

/**
 * What one run (one user turn) may spend, shared by the coordinator and every sub-agent of the
 * run, so delegation cannot be used to escape a limit.
 */
export class RunBudget {
  private tokens = 0;
  private toolCalls = 0;
  private readonly startedAt = Date.now();

  constructor(private readonly limits: BudgetLimits) {}

  addUsage(usage: Pick<Usage, "input" | "output">): void {
    this.tokens += usage.input + usage.output;
  }

  /** A one-line reason when a limit is reached, else null. */
  exceeded(): string | null {
    const { maxTokens, maxToolCalls, maxDuration } = this.limits;
    if (maxTokens !== undefined && this.tokens >= maxTokens) {
      return `token budget reached (${this.tokens} of ${maxTokens} tokens)`;
    }
    if (maxToolCalls !== undefined && this.toolCalls >= maxToolCalls) {
      return `tool-call budget reached (${this.toolCalls} of ${maxToolCalls} calls)`;
    }
    if (maxDuration !== undefined && (Date.now() - this.startedAt) / 1000 >= maxDuration) {
      return `time budget reached (${maxDuration}s)`;
    }
    return null;
  }

  /** Takes up to `wanted` calls from what is left and returns how many may run. */
  reserveToolCalls(wanted: number): number {
    const left = this.limits.maxToolCalls === undefined ? wanted : Math.max(0, this.limits.maxToolCalls - this.toolCalls);
    const granted = Math.min(wanted, left);
    this.toolCalls += granted;
    return granted;
  }
}
