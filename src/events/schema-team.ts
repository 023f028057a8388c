import { z } from "zod";
import { teamResumeEventSchemas } from "./schema-team-resume.js";

/**
 * The events of the team (DESIGN §14): the task board and messages between agents. The board is
 * nothing but these events — the session keeps it by reducing them (orchestrator/task-board.ts),
 * and a resume, the dashboard and stream-json read it back from the same lines.
 */
export const TASK_STATUSES = ["pending", "in_progress", "done", "failed", "cancelled"] as const;

export function teamEventSchemas(base: { ts: z.ZodNumber; sessionId: z.ZodString; agentId: z.ZodString; parentId: z.ZodOptional<z.ZodString> }) {
  const status = z.enum(TASK_STATUSES);
  return [
    z.object({
      ...base,
      /** agentId made the task (task_create), pending and without an owner until it is delegated. */
      type: z.literal("task_created"),
      taskId: z.string(),
      title: z.string(),
      /** Task ids that must be done before this one may be delegated. */
      dependsOn: z.array(z.string()),
      /** Workspace-relative globs of the files it is expected to touch (for overlap warnings). */
      scope: z.array(z.string()),
      notes: z.string().optional(),
    }),
    z.object({
      ...base,
      /** Only the fields that changed are present. `by: orca`: the board followed its owner (a delegation, the owner's end). */
      type: z.literal("task_updated"),
      taskId: z.string(),
      title: z.string().optional(),
      status: status.optional(),
      owner: z.string().optional(),
      dependsOn: z.array(z.string()).optional(),
      scope: z.array(z.string()).optional(),
      notes: z.string().optional(),
      by: z.enum(["agent", "orca"]),
    }),
    z.object({
      ...base,
      /**
       * agentId delegated taskId while otherTaskId (owned by otherAgentId, running) had a scope
       * matching the same files: what agents.on_overlap decided, and who.
       */
      type: z.literal("task_overlap"),
      taskId: z.string(),
      otherTaskId: z.string(),
      otherAgentId: z.string(),
      /** Workspace-relative files (or literal paths) both scopes match; capped. */
      files: z.array(z.string()),
      policy: z.enum(["warn", "ask", "refuse"]),
      decision: z.enum(["warned", "approved", "denied", "refused"]),
      decidedBy: z.enum(["config", "user", "headless"]),
    }),
    z.object({
      ...base,
      /** agentId sent `text` to agent `to` with message_agent; `to` reads it before its next model request. */
      type: z.literal("agent_message"),
      to: z.string(),
      text: z.string(),
    }),
    ...teamResumeEventSchemas(base),
  ] as const;
}
