import { z } from "zod";

/**
 * Events of what the person does in the input box beyond a prompt. `user_shell`: a `!command` they
 * ran themselves, in the command sandbox, with its output (capped as a bash call's is); the
 * dashboard shows it, and it reaches the model inside the person's next message.
 */
export function inputEventSchemas<B extends z.ZodRawShape>(base: B) {
  return [
    z.object({
      ...base,
      type: z.literal("user_shell"),
      command: z.string(),
      output: z.string(),
      /** null when the command could not be started (or was killed without one). */
      exitCode: z.number().nullable(),
      /** "workspace-write", "read-only", or "none" where there is no sandbox. */
      sandbox: z.string(),
    }),
  ] as const;
}
