import { z } from "zod";

/**
 * The events of review, change sets and checkpoints (DESIGN §14). Every change orca makes or
 * attributes to a file is on the log with its path and the content hashes before and after:
 * write_file, edit_file and a merge-back's writes log `file_write` (schema.ts); what that event
 * cannot say — a file a writing command changed or removed, a merge-back's deletion, a restore by
 * rewind, undo or a rejected hunk — logs `file_changed` here. A change set, a checkpoint's files
 * and a rewind are all derived from these (src/review/change-set.ts), so they survive resume and
 * work headless.
 */
export function reviewEventSchemas(base: { ts: z.ZodNumber; sessionId: z.ZodString; agentId: z.ZodString; parentId: z.ZodOptional<z.ZodString> }) {
  return [
    z.object({
      ...base,
      /**
       * A file changed in a way no file_write announced: a writing command's change found after it
       * ran (tool bash), a merge-back's deletion (merge_worktree), or a restore (rewind, undo,
       * review). Logged once the change is on disk.
       */
      type: z.literal("file_changed"),
      /** The call that changed it, when one did. */
      callId: z.string().optional(),
      tool: z.enum(["bash", "merge_worktree", "rewind", "undo", "review"]),
      /** Workspace-relative (absolute when outside the workspace root). */
      path: z.string(),
      /** Content hash before (null: the file did not exist, or its version was not known) and after (null: removed). */
      before: z.string().nullable(),
      after: z.string().nullable(),
    }),
    z.object({
      ...base,
      /**
       * A moment files can be rewound to: before a user turn, or when an agent starts (before its
       * first write). Its files (path → hash) are the versions before the first change of each
       * path logged after it: derived from the log, not listed here, so a checkpoint costs one line.
       */
      type: z.literal("checkpoint"),
      /** Unique in the session: "turn-3", "agent-editor-1-1". */
      id: z.string(),
      reason: z.enum(["turn", "agent"]),
      /** What the person picks it by: the turn's first line, or the agent's name and task. */
      label: z.string(),
    }),
    z.object({
      ...base,
      /**
       * The coordinator's conversation taken back to a turn's checkpoint (/rewind N conversation):
       * its history is again what it was before that turn's prompt. Nothing is deleted: the
       * messages set aside stay earlier in this log; a resume replays the rewind the same way.
       */
      type: z.literal("conversation_rewound"),
      /** The turn checkpoint's id. */
      checkpoint: z.string(),
      label: z.string(),
      /** Messages of the history set aside. */
      removed: z.number().int().min(0),
    }),
    z.object({
      ...base,
      /**
       * A person's review decision on an agent's change (the review view, or headless policy):
       * accept, or reject with an optional comment sent to the agent. `hunks` names the hunks
       * rejected (indexes into the file's diff against the agent's first version), absent: whole.
       */
      type: z.literal("review_decision"),
      decision: z.enum(["accept", "reject"]),
      /** The agent whose change it is (agentId is who decided: the root, for the person). */
      target: z.string(),
      path: z.string().optional(),
      hunks: z.array(z.number().int().min(0)).optional(),
      comment: z.string().optional(),
    }),
  ] as const;
}
