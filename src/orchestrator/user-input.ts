import { readAttachment, mentionCandidates, type Attached } from "../tools/attach.js";
import type { ToolResult } from "../tools/tool.js";
import type { Workspace } from "../tools/workspace.js";
import type { PermissionMode } from "../config/schema.js";
import type { EmitFn } from "../events/types.js";

/** What `!command` gave back: its output (capped as a bash call's is) and exit code. */
export interface PersonCommandResult {
  output: string;
  exitCode: number | null;
  /** How it ran: in which sandbox, or "none" where there is none. */
  sandbox: string;
}

/** What the dashboard's input box may ask of the session: `@path` mentions and `!command`. */
export interface UserInputApi {
  /** Reads a mentioned file under read_file's confinement and deny rules; one-line error otherwise. */
  attach(path: string): Promise<Attached>;
  /** Completions for `@typed` (folders end in /). */
  mentions(typed: string): string[];
  /** Runs the person's own command in the command sandbox (read-only in plan mode). */
  shell(command: string, signal: AbortSignal): Promise<PersonCommandResult>;
}

export interface UserInputDeps {
  workspace: Workspace;
  /** Where the user_shell event goes (the session's bus), as the coordinator's. */
  emit?: EmitFn;
  agentId?(): string;
  readDenied(relative: string): string | undefined;
  mode(): PermissionMode;
  /** runPersonCommand bound to the session's shells; absent, `!command` says it is not available. */
  run?(command: string, sandbox: "read-only" | undefined, signal: AbortSignal): Promise<ToolResult>;
}

export function userInput(deps: UserInputDeps): UserInputApi {
  return {
    attach: (path) => readAttachment(deps, path),
    mentions: (typed) => mentionCandidates(deps, typed),
    async shell(command, signal) {
      if (!deps.run) return { output: "!command is not available in this session", exitCode: null, sandbox: "none" };
      // Plan mode promises nothing is written, whoever asks.
      const result = await deps.run(command, deps.mode() === "plan" ? "read-only" : undefined, signal);
      const meta = (result.meta ?? {}) as { exitCode?: number; sandbox?: string };
      const text = result.content || result.error || "";
      const run = { output: text.replace(/\n\[exit code: -?\d+\]$/, ""), exitCode: meta.exitCode ?? null, sandbox: meta.sandbox ?? "none" };
      deps.emit?.({ type: "user_shell", agentId: deps.agentId?.() ?? "", command, ...run });
      return run;
    },
  };
}
