import { z } from "zod";
import { madeOnFirstCall } from "../util/built-on-use.js";
import type { Tool, ToolResult } from "../tools/tool.js";

export interface DelegateArgs {
  agent?: string;
  task: string;
  label?: string;
  resume?: string;
  background?: boolean;
  /** A task of the board (task_create) this delegation works on: the sub-agent becomes its owner. */
  task_id?: string;
  budget?: { max_cost_usd?: number; max_tokens?: number; max_steps?: number };
}

const params = madeOnFirstCall(() =>
  z
    .object({
      agent: z.string().optional().describe("Which sub-agent to start (one of those listed in your instructions)."),
      task: z
        .string()
        .min(1)
        .describe(
          "The whole task, self-contained: the sub-agent sees nothing of your conversation. Say the goal, the files or " +
            "area in scope, constraints, and what to return.",
        ),
      label: z.string().max(60).optional().describe("A few words shown on the sub-agent's pane, e.g. 'auth tests'."),
      resume: z
        .string()
        .optional()
        .describe("The id of a finished or cancelled sub-agent to continue with its own history (instead of `agent`)."),
      task_id: z
        .string()
        .min(1)
        .optional()
        .describe("The board task (task_create) this is, e.g. t2: the sub-agent becomes its owner. Refused while a task it depends on is not done."),
      background: z
        .boolean()
        .optional()
        .describe(
          "Return at once with the sub-agent's id and let it run while you go on; its result reaches you as a message when it " +
            "ends (or join it with wait_agents). Your turn stays open until every background sub-agent has ended.",
        ),
      budget: z
        .strictObject({
          max_cost_usd: z.number().positive().optional().describe("USD this sub-agent may spend (its own sub-agents included)."),
          max_tokens: z.number().int().positive().optional().describe("Tokens (input and output of every request) it may use."),
          max_steps: z.number().int().positive().optional().describe("Model requests it may make."),
        })
        .optional()
        .describe("A smaller budget for this sub-agent; never more than you have left (a larger one is cut to that). It stops with status budget when reached."),
    })
    .refine((a) => Boolean(a.agent) !== Boolean(a.resume), {
      message: "give exactly one of `agent` (start a new sub-agent) or `resume` (continue one by id)",
    }),
);

/**
 * The coordinator's `delegate` tool. It runs no scheduler slot of its own: the sub-agent's calls
 * are scheduled. Several delegate calls in one turn run concurrently (bounded by the session).
 */
export function createDelegateTool(host: {
  agentNames(): string[];
  delegate(parentId: string, args: DelegateArgs, signal: AbortSignal, callId: string): Promise<ToolResult>;
}): Tool<DelegateArgs> {
  return {
    name: "delegate",
    description:
      "Hand a scoped task to a sub-agent with its own fresh history and tools; returns its status, final answer, " +
      "files it changed, steps and tokens. Several delegate calls in one message run in parallel; with background: true " +
      "it returns at once and the result comes later as a message. " +
      `Agents: ${host.agentNames().join(", ") || "none"}.`,
    get params() {
      return params();
    },
    schemaVariant: "",
    unscheduled: true,
    readOnly: () => true,
    access: () => ({ reads: [], writes: [] }),
    permissionSubject: () => ({ kind: "none" }),
    execute: (args, ctx) => host.delegate(ctx.agentId, args, ctx.signal, ctx.callId),
  };
}
