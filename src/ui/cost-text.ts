import { formatCost } from "./format.js";
import type { AgentTokens, DashboardState } from "./state/types.js";

/**
 * A spend as the dashboard says it: dollars when every request was priced; "unknown" when none
 * was, "≥ $x" when only some were (a model without a price is never counted as free); "" before
 * any request.
 */
export function costText(spend: { input: number; output: number; cost?: number; unpriced?: boolean }): string {
  if (!spend.input && !spend.output && spend.cost === undefined) return "";
  if (!spend.unpriced) return formatCost(spend.cost ?? 0);
  return spend.cost ? `≥ ${formatCost(spend.cost)} (part unknown)` : "cost unknown";
}

/** A pane's cost: its spend, against its own money limit when it has one. */
export function paneCost(tokens: AgentTokens): string {
  const spent = costText(tokens);
  if (tokens.limitUsd === undefined) return spent;
  return `${spent || formatCost(0)} of ${formatCost(tokens.limitUsd)}`;
}

/** The header's field for the run in progress: its spend against its limits ("run $0.12 of $1.00"), or null without limits. */
export function runBudgetText(state: DashboardState): string | null {
  const run = state.runBudget;
  if (!run || (run.maxCostUsd === undefined && run.maxTokens === undefined)) return null;
  const parts: string[] = [];
  if (run.maxCostUsd !== undefined) parts.push(`${run.unpriced ? "cost unknown" : formatCost(run.cost)} of ${formatCost(run.maxCostUsd)}`);
  if (run.maxTokens !== undefined) parts.push(`${run.tokens} of ${run.maxTokens} tok`);
  return `run ${parts.join(", ")}`;
}
