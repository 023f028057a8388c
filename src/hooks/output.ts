import { z } from "zod";
import { builtOnUse } from "../util/built-on-use.js";
import type { HookEventName } from "../config/hooks.js";

/**
 * How one hook's exit code, stdout and stderr are read — Claude Code's contract, as its hooks
 * reference documents it. Pure: the runner hands over what the process did, this says what it
 * meant.
 *
 *   exit 2       a block, whatever stdout says; the reason is the JSON's blocking reason, else stderr
 *   exit 0       stdout starting with `{` is JSON output; other stdout is plain text (context for
 *                UserPromptSubmit and SessionStart, ignored elsewhere)
 *   other codes  valid JSON output still decides; without it, a non-blocking error (a warning)
 *   killed       (timeout, cancel) no decision at all
 */

export interface HookProcessResult {
  /** Null when the process was killed or never started. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
  /** Why it could not be started, when it could not. */
  spawnError?: string;
}

/** Every field Claude Code reads; unknown fields pass (a newer script may send more). Made when a hook first answers (util/built-on-use.ts). */
export const hookOutputSchema = builtOnUse(() => z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  /** "approve" is PreToolUse's deprecated spelling of allow. */
  decision: z.enum(["block", "approve"]).optional(),
  reason: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      hookEventName: z.string().optional(),
      permissionDecision: z.enum(["allow", "deny", "ask", "defer"]).optional(),
      permissionDecisionReason: z.string().optional(),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      additionalContext: z.string().optional(),
      /** PermissionRequest's answer. */
      decision: z
        .looseObject({
          behavior: z.enum(["allow", "deny"]),
          updatedInput: z.record(z.string(), z.unknown()).optional(),
          message: z.string().optional(),
          interrupt: z.boolean().optional(),
        })
        .optional(),
      updatedToolOutput: z.unknown().optional(),
      updatedMCPToolOutput: z.unknown().optional(),
    })
    .optional(),
}));
export type HookOutput = z.infer<typeof hookOutputSchema>;

export interface HookVerdict {
  outcome: "ok" | "error" | "timeout" | "cancelled";
  /** Exit code 2: a blocking error. */
  exit2: boolean;
  /** JSON output that passed validation. */
  output?: HookOutput;
  /** Plain (non-JSON) stdout of a hook that exited 0. */
  text?: string;
  stderr: string;
  /** For outcome error: what went wrong, one line. */
  warning?: string;
}

export function interpretHookResult(event: HookEventName, result: HookProcessResult): HookVerdict {
  const stderr = result.stderr;
  if (result.cancelled) return { outcome: "cancelled", exit2: false, stderr };
  if (result.timedOut) return { outcome: "timeout", exit2: false, stderr };
  if (result.spawnError !== undefined) return { outcome: "error", exit2: false, stderr, warning: `could not start: ${result.spawnError}` };
  if (result.exitCode === null) return { outcome: "error", exit2: false, stderr, warning: "killed by a signal" };

  const parsed = parseStdout(event, result.stdout);
  const exit2 = result.exitCode === 2;
  if (exit2) return { outcome: "ok", exit2, stderr, ...(parsed.kind === "json" ? { output: parsed.output } : {}) };
  if (parsed.kind === "json") return { outcome: "ok", exit2, stderr, output: parsed.output };
  if (parsed.kind === "invalid") return { outcome: "error", exit2, stderr, warning: `invalid JSON output: ${parsed.error}` };
  if (result.exitCode === 0) return { outcome: "ok", exit2, stderr, ...(parsed.text ? { text: parsed.text } : {}) };
  const detail = firstLine(stderr);
  return { outcome: "error", exit2, stderr, warning: `Failed with non-blocking status code ${result.exitCode}${detail ? `: ${detail}` : ""}` };
}

type Parsed = { kind: "json"; output: HookOutput } | { kind: "invalid"; error: string } | { kind: "text"; text: string };

/** JSON when stdout starts with `{` and parses; otherwise plain text (a JSON array or string too). */
function parseStdout(event: HookEventName, stdout: string): Parsed {
  const trimmed = stdout.trim();
  if (!trimmed.startsWith("{")) return { kind: "text", text: trimmed };
  let data: unknown;
  try {
    data = JSON.parse(trimmed);
  } catch {
    return { kind: "text", text: trimmed };
  }
  const checked = hookOutputSchema.safeParse(data);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return { kind: "invalid", error: issue ? `${issue.path.map(String).join(".") || "(top level)"}: ${issue.message}` : "does not match the hook output schema" };
  }
  const named = checked.data.hookSpecificOutput?.hookEventName;
  if (named !== undefined && named !== event) return { kind: "invalid", error: `hookSpecificOutput.hookEventName is "${named}" in a ${event} hook` };
  return { kind: "json", output: checked.data };
}

export function firstLine(text: string): string {
  return text.trim().split("\n")[0]?.trim() ?? "";
}
