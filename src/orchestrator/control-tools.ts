import { z } from "zod";
import { madeOnFirstCall } from "../util/built-on-use.js";
import type { AnyTool, Tool, ToolResult } from "../tools/tool.js";

/**
 * The tools that come with `delegate` (an agent that may delegate has them too): steer a running
 * sub-agent, look at sub-agents, wait for background ones. Like delegate they are not scheduled:
 * they touch no file, and a wait must never hold a scheduler slot.
 */

export const CONTROL_TOOLS = ["message_agent", "agent_status", "wait_agents"] as const;

export interface ControlHost {
  message(callerId: string, id: string, text: string): ToolResult;
  status(callerId: string, id: string | undefined): ToolResult;
  wait(callerId: string, ids: string[], timeoutMs: number, signal: AbortSignal): Promise<ToolResult>;
}

export const DEFAULT_WAIT_S = 300;
const MAX_WAIT_S = 3600;

interface MessageArgs {
  id: string;
  text: string;
}

interface StatusArgs {
  id?: string;
}

interface WaitArgs {
  ids?: string[];
  timeout_s?: number;
}

const unscheduled = {
  unscheduled: true,
  readOnly: () => true,
  access: () => ({ reads: [], writes: [] }),
  permissionSubject: () => ({ kind: "none" as const }),
};

/** The controls' parameters, made on first use (tools/tool.ts, `params`). */
const schemas = madeOnFirstCall(() => ({
  message: z.object({
    id: z.string().min(1).describe("The agent's id (e.g. editor-2), or its label or agent name when that names one agent."),
    text: z.string().min(1).describe("What to tell it."),
  }),
  status: z.object({ id: z.string().min(1).optional().describe("One sub-agent's id; omit for all of yours.") }),
  wait: z.object({
    ids: z.array(z.string().min(1)).optional().describe("Sub-agent ids to wait for."),
    timeout_s: z
      .number()
      .positive()
      .max(MAX_WAIT_S)
      .optional()
      .describe(`How long to wait at most, in seconds (default ${DEFAULT_WAIT_S}).`),
  }),
}));

export function createControlTools(host: ControlHost): AnyTool[] {
  const message: Tool<MessageArgs> = {
    name: "message_agent",
    description:
      "Send a message to another running agent of this run — a sub-agent of yours (to steer it: narrow the scope, add a " +
      "constraint, ask it to wrap up), your parent, or a sibling working beside you (to coordinate: who edits what, a finding " +
      "it needs) — as your can_message allows. It reads it before its next model request, marked as from you. A finished " +
      "sub-agent is continued with delegate {resume} instead.",
    get params() {
      return schemas().message;
    },
    schemaVariant: "",
    ...unscheduled,
    execute: async (args, ctx) => host.message(ctx.agentId, args.id, args.text),
  };
  const status: Tool<StatusArgs> = {
    name: "agent_status",
    description:
      "The state of your sub-agents: status (running, done, failed, cancelled…), whether it runs in the background, " +
      "steps and tokens. With an id: that one in detail, with its result once it has ended.",
    get params() {
      return schemas().status;
    },
    schemaVariant: "",
    ...unscheduled,
    execute: async (args, ctx) => host.status(ctx.agentId, args.id),
  };
  const wait: Tool<WaitArgs> = {
    name: "wait_agents",
    description:
      "Wait until the given background sub-agents have ended (or the timeout passes) and return their results. A result " +
      "returned here is not delivered again as a message. Without ids: every background sub-agent of yours still running.",
    get params() {
      return schemas().wait;
    },
    schemaVariant: "",
    ...unscheduled,
    execute: (args, ctx) => host.wait(ctx.agentId, args.ids ?? [], Math.round((args.timeout_s ?? DEFAULT_WAIT_S) * 1000), ctx.signal),
  };
  return [message, status, wait] as AnyTool[];
}
