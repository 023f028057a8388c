import { RunBudget } from "../agent/budget.js";
import type { Config } from "../config/schema.js";
import type { EmitFn } from "../events/types.js";
import type { StoppedRun } from "../sessions/stopped-run.js";
import type { CancelScope } from "../util/cancel-scope.js";

/**
 * A run's budget as the config sets it: a limit reached ends what it covers — the whole run (its
 * scope), or the agent whose account it is (and what that agent started) — and the time budget
 * stops a run stuck in a long tool or stream, not only between steps. Clear `deadline` when the run ends.
 */
export function openRunBudget(
  budget: Config["budget"],
  run: { scope: CancelScope; agentScope(id: string): CancelScope | undefined; emit: EmitFn; rootId: string },
  /** The run a resume continues: its spend, steps, calls and time count (sessions/stopped-run.ts). */
  stopped?: StoppedRun,
): { budget: RunBudget; deadline: NodeJS.Timeout | undefined } {
  const runBudget = new RunBudget(
    { maxTokens: budget.max_tokens, maxToolCalls: budget.max_tool_calls, maxDuration: budget.max_duration, maxCostUsd: budget.max_cost_usd },
    (account, reason) => (account.isRun ? run.scope : run.agentScope(account.id))?.cancel(reason),
  );
  if (budget.max_cost_usd !== undefined || budget.max_tokens !== undefined) {
    run.emit({ type: "budget_set", agentId: run.rootId, scope: "run", maxCostUsd: budget.max_cost_usd, maxTokens: budget.max_tokens });
  }
  if (stopped) runBudget.carry(stopped);
  const durationMs = runBudget.timeLeftMs === undefined ? undefined : Math.max(0, runBudget.timeLeftMs);
  // setTimeout fires at once past 2^31-1 ms; such a budget is no limit in practice.
  const deadline = durationMs !== undefined && durationMs < 2 ** 31 - 1 ? setTimeout(() => run.scope.cancel(runBudget.timeUp()), durationMs) : undefined;
  return { budget: runBudget, deadline };
}
