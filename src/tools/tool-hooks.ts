import type { HookEventName } from "../config/hooks.js";

/**
 * What the tool layer asks of lifecycle hooks (the `Hooks` facade of src/hooks, which sits a floor
 * above and so is only known here by its shape): PreToolUse and PostToolUse(Failure) around a
 * call, PermissionRequest and Notification when a person would be asked.
 */

export interface HookCaller {
  /** orca's agent id ("editor-2"), the same in every event and every hook payload. */
  id: string;
  /** The agent definition's name ("editor"). */
  type: string;
  parentId?: string;
}

export interface HookedCall {
  id: string;
  name: string;
  args: unknown;
}

export interface HookCallOptions {
  signal?: AbortSignal;
  /** orca's permission-rule matcher for the call (a handler's `if` rule). */
  ruleMatches?(rule: string): boolean;
}

export interface HookStop {
  reason: string;
}

export interface ToolHooks {
  has(event: HookEventName): boolean;
  preToolUse(
    agent: HookCaller,
    call: HookedCall,
    opts?: HookCallOptions,
  ): Promise<{
    decision?: "allow" | "deny" | "ask";
    reason?: string;
    rule?: string;
    updatedInput?: Record<string, unknown>;
    additionalContext: string[];
    stop?: HookStop;
  }>;
  postToolUse(
    agent: HookCaller,
    call: HookedCall,
    result: { ok: boolean; content: string; error?: string; meta?: Record<string, unknown> },
    durationMs: number,
    opts?: HookCallOptions,
  ): Promise<{ feedback: string[]; additionalContext: string[]; updatedContent?: string; stop?: HookStop }>;
  postToolUseFailure(
    agent: HookCaller,
    call: HookedCall,
    failure: { error: string; isInterrupt: boolean },
    opts?: HookCallOptions,
  ): Promise<{ feedback: string[]; additionalContext: string[]; stop?: HookStop }>;
  permissionRequest(
    agent: HookCaller,
    call: HookedCall,
    opts?: HookCallOptions,
  ): Promise<{ behavior?: "allow" | "deny"; rule?: string; updatedInput?: Record<string, unknown>; message?: string; interrupt: boolean }>;
  notification(agent: HookCaller, note: { message: string; title?: string; type: string }): Promise<void>;
}

/** Ends the whole run at once (a hook's `continue: false`, a PermissionRequest `interrupt`). */
export type StopRun = (agentId: string, reason: string) => void;

/**
 * A tool result with what hooks had to say appended, so the model reads it next to the output:
 * a PostToolUse block's reason (Claude Code feeds it back to the model) and every additionalContext.
 */
export function withHookNotes(content: string, notes: readonly string[]): string {
  return notes.length ? [content, ...notes].join("\n\n") : content;
}
