import type { HookEventName } from "../config/hooks.js";
import { claudePermissionMode, claudeToolName, hookToolInput } from "./names.js";

/**
 * The JSON a hook reads on stdin, field for field as Claude Code sends it, plus orca's few
 * additions (`tool_name_cc`, SubagentStop's `status`). Pure.
 */

/** What every payload is built from; read at each occurrence (the log path and mode can change). */
export interface HookSession {
  sessionId: string;
  /** orca's JSONL session log: Claude Code's transcript_path. Null when the session keeps none. */
  transcriptPath(): string | null;
  /** The workspace root. */
  cwd: string;
  /** orca's permission mode: default, accept-edits, plan, bypass. */
  permissionMode(): string;
}

/** The agent an occurrence belongs to. */
export interface HookAgent {
  /** orca's agent id, the same one every event of the agent carries: "editor-2". */
  id: string;
  /** Its definition's name: "editor". */
  type: string;
  /** Set for a sub-agent. */
  parentId?: string;
}

export interface HookToolCall {
  /** The tool-call id: Claude Code's tool_use_id. */
  id: string;
  /** orca's tool name. */
  name: string;
  args: unknown;
}

/** The common fields; `agent_id` and `agent_type` only inside a sub-agent, as in Claude Code. */
export function commonFields(session: HookSession, event: HookEventName, agent?: HookAgent): Record<string, unknown> {
  return {
    session_id: session.sessionId,
    transcript_path: session.transcriptPath(),
    cwd: session.cwd,
    permission_mode: claudePermissionMode(session.permissionMode()),
    hook_event_name: event,
    ...(agent?.parentId !== undefined ? { agent_id: agent.id, agent_type: agent.type } : {}),
  };
}

/** PreToolUse, PermissionRequest, PostToolUse(Failure): orca's tool name, Claude Code's, the input. */
export function toolFields(session: HookSession, call: HookToolCall, withUseId = true): Record<string, unknown> {
  return {
    tool_name: call.name,
    tool_name_cc: claudeToolName(call.name),
    tool_input: hookToolInput(call.name, call.args, session.cwd),
    ...(withUseId ? { tool_use_id: call.id } : {}),
  };
}

/** A tool's result as PostToolUse's `tool_response`: orca's result with Claude Code's `success` and `filePath`. */
export interface HookToolResult {
  ok: boolean;
  content: string;
  error?: string;
  meta?: Record<string, unknown>;
}

export function toolResponse(session: HookSession, call: HookToolCall, result: HookToolResult): Record<string, unknown> {
  const input = hookToolInput(call.name, call.args, session.cwd);
  return {
    success: result.ok,
    content: result.content,
    ...(result.error !== undefined ? { error: result.error } : {}),
    ...(typeof input.file_path === "string" ? { filePath: input.file_path } : {}),
    ...(typeof result.meta?.exitCode === "number" ? { exit_code: result.meta.exitCode } : {}),
  };
}
