import { z } from "zod";

/**
 * The events of budgets and the fan-out guard (DESIGN §14). A run's and an agent's limits are on the
 * log as they were set (a child's cut to what its parent had left); spend is not repeated here: it
 * is the sum of the `usage` events below each account.
 */
export function budgetEventSchemas(base: { ts: z.ZodNumber; sessionId: z.ZodString; agentId: z.ZodString; parentId: z.ZodOptional<z.ZodString> }) {
  const limits = {
    maxCostUsd: z.number().optional(),
    maxTokens: z.number().optional(),
    maxSteps: z.number().optional(),
  };
  return [
    z.object({
      ...base,
      /** The limits of the run (scope run, agentId the coordinator) or of one agent, as they apply. */
      type: z.literal("budget_set"),
      scope: z.enum(["run", "agent"]),
      ...limits,
      /** The agent's own limits, when some were cut to what the accounts above it had left. */
      asked: z.object(limits).optional(),
    }),
    z.object({
      ...base,
      /**
       * A turn of agentId took the run past agents.confirm_fanout sub-agents, or agents.confirm_cost_usd
       * of estimate (counted since the last approval): what was decided, by whom, and the calls refused.
       */
      type: z.literal("fanout_checked"),
      calls: z.number(),
      /** USD for the whole fan-out (see orchestrator/fanout.ts for how); null when a model's price is unknown. */
      estimateUsd: z.number().nullable(),
      reason: z.string(),
      decision: z.enum(["approved", "denied", "limited"]),
      decidedBy: z.enum(["user", "headless"]),
      /** The delegate calls not run. */
      refused: z.array(z.string()),
    }),
  ] as const;
}
