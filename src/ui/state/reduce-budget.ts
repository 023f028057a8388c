import type { EventOf } from "../../events/types.js";
import type { AgentTokens, DashboardState } from "./types.js";

type UsageEvent = EventOf<"usage">;

/** Tokens and cost after one request; a request without a price makes the cost unknown, never $0. */
export function addRequest(tokens: AgentTokens, e: UsageEvent): AgentTokens {
  return {
    ...tokens,
    input: tokens.input + e.input,
    output: tokens.output + e.output,
    cached: (tokens.cached ?? 0) + e.cached,
    cost: e.cost === undefined ? tokens.cost : (tokens.cost ?? 0) + e.cost,
    ...(e.cost === undefined || tokens.unpriced ? { unpriced: true } : {}),
  };
}

/** The session's totals and the run's account after one request. */
export function withUsage(state: DashboardState, e: UsageEvent): Pick<DashboardState, "totals" | "runBudget"> {
  const t = state.totals;
  const totals = {
    input: t.input + e.input,
    output: t.output + e.output,
    cached: t.cached + e.cached,
    cost: e.cost === undefined ? t.cost : (t.cost ?? 0) + e.cost,
    ...(e.cost === undefined || t.unpriced ? { unpriced: true } : {}),
  };
  const run = state.runBudget;
  if (!run) return { totals };
  return {
    totals,
    runBudget: { ...run, cost: run.cost + (e.cost ?? 0), tokens: run.tokens + e.input + e.output, ...(e.cost === undefined || run.unpriced ? { unpriced: true } : {}) },
  };
}

/** The run's limits start its account afresh. */
export function runBudgetFrom(e: EventOf<"budget_set">): DashboardState["runBudget"] {
  return { maxCostUsd: e.maxCostUsd, maxTokens: e.maxTokens, cost: 0, tokens: 0 };
}

/** What a pane says of a fan-out the guard stopped or let through. */
export function fanoutNote(e: EventOf<"fanout_checked">): string {
  const what = e.decision === "approved" ? "approved" : e.decision === "denied" ? "denied: none started" : `${e.refused.length} refused (headless)`;
  return `fan-out of ${e.calls} sub-agents (${e.reason}): ${what}`;
}
