import { z } from "zod";

/**
 * A resumed session continues the run that stopped with sub-agents at work (sessions/team-plan.ts):
 * `agent_continued` says, for each agent it continues, that it goes on from its own history — the
 * dashboard marks its pane, the headless printer says it once. `held`: its calls (delegate,
 * wait_agents) that its continued sub-agents' results will answer. `team`, on the coordinator's
 * event: every agent continued, in tree order.
 */
export function teamResumeEventSchemas(base: { ts: z.ZodNumber; sessionId: z.ZodString; agentId: z.ZodString; parentId: z.ZodOptional<z.ZodString> }) {
  return [
    z.object({
      ...base,
      type: z.literal("agent_continued"),
      held: z.array(z.string()),
      /** Its result reaches its parent as a message rather than as a held call's answer. */
      background: z.boolean().optional(),
      team: z.array(z.string()).optional(),
    }),
  ] as const;
}
