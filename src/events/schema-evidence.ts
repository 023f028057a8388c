import { z } from "zod";

/**
 * The events of an agent's evidence (issue #28): the `verify:` commands of its definition, run
 * when it ends, and its change set's summary when it ends — files, commands, tests, flags, usage.
 * The change set itself is derived from the log on demand (src/review/); `change_set` is its
 * summary at that moment, for stream-json readers and the dashboard, without the diffs.
 */

/** Built inside the union's builder (schema.ts), with its common fields and usage shape. */
export function evidenceEventSchemas<Base extends z.ZodRawShape, UsageSchema extends z.ZodType>(base: Base, usageSchema: UsageSchema) {
  const testRunSchema = z.object({
    /** The runner, from the table in src/review/test-runners.ts ("vitest", "npm test", "go test"…). */
    runner: z.string(),
    /** Present where the runner printed them. */
    passed: z.number().optional(),
    failed: z.number().optional(),
    skipped: z.number().optional(),
  });

  const flagSchema = z.object({
    /** The rule that raised it: tests-claimed-unrun, tests-claimed-failing, named-unchanged, change-unmentioned, verify-failed. */
    rule: z.string(),
    /** One line for a person. */
    message: z.string(),
    /** What in the log it rests on: the sentence of the answer, the paths, the command. */
    evidence: z.array(z.string()),
  });

  return [
    z.object({
      ...base,
      type: z.literal("verify_finished"),
      /** The command as the agent definition's `verify:` names it. */
      command: z.string(),
      /** Null when it was killed (timeout, cancel) or could not start. */
      exitCode: z.number().nullable(),
      status: z.enum(["ok", "error", "timeout", "cancelled", "denied"]),
      durationMs: z.number(),
      /** The end of its output (stdout and stderr together). */
      output: z.string(),
      tests: testRunSchema.optional(),
    }),
    z.object({
      ...base,
      type: z.literal("change_set"),
      /** The agent as people know it: its label, else its id. */
      label: z.string(),
      task: z.string(),
      status: z.string(),
      steps: z.number(),
      files: z.array(
        z.object({
          path: z.string(),
          status: z.enum(["created", "modified", "deleted"]),
          added: z.number(),
          removed: z.number(),
        }),
      ),
      commands: z.array(
        z.object({
          command: z.string(),
          exit: z.number().nullable(),
          ms: z.number(),
          tests: testRunSchema.optional(),
          /** Run by orca from the agent definition's `verify:`, not by the agent. */
          verify: z.boolean().optional(),
        }),
      ),
      flags: z.array(flagSchema),
      usage: usageSchema,
    }),
  ] as const;
}
