import path from "node:path";
import type { HookEventName } from "../config/hooks.js";

/**
 * orca's tool names next to Claude Code's, so a Claude Code matcher (`Edit|Write`) and a script
 * that reads `.tool_input.file_path` work on orca's calls unchanged. MCP tools are named
 * `mcp__<server>__<tool>` by both.
 */
const CC_NAME: Readonly<Record<string, string>> = {
  read_file: "Read",
  write_file: "Write",
  edit_file: "Edit",
  bash: "Bash",
  grep: "Grep",
  glob: "Glob",
  list_dir: "LS",
  bash_output: "BashOutput",
  bash_kill: "KillShell",
  delegate: "Agent",
};
const ORCA_NAME: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(CC_NAME).map(([orca, cc]) => [cc, orca]));

/** Claude Code's name for an orca tool; the name itself when Claude Code has no such tool. */
export function claudeToolName(orcaName: string): string {
  return CC_NAME[orcaName] ?? orcaName;
}

/** orca's name for a Claude Code tool name; the name itself when it is not one of Claude Code's. */
export function orcaToolName(name: string): string {
  return ORCA_NAME[name] ?? name;
}

/** A permission rule as Claude Code writes it (`Bash(rm *)`, `Edit`) in orca's names (`bash(rm *)`). */
export function orcaRule(rule: string): string {
  const match = /^([^(]+)(\(.*\))?$/s.exec(rule.trim());
  if (!match) return rule;
  return `${orcaToolName(match[1]!.trim())}${match[2] ?? ""}`;
}

/** Events whose matcher filters on a tool name; their handlers may also carry an `if` rule. */
export const TOOL_EVENTS: ReadonlySet<HookEventName> = new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"]);

/** Events Claude Code fires for every occurrence: a matcher on them is ignored. */
export const UNMATCHED_EVENTS: ReadonlySet<HookEventName> = new Set(["UserPromptSubmit", "Stop"]);

/** What each event's matcher is compared with, for `orca hooks` and the docs. */
export const MATCHER_SUBJECT: Readonly<Record<HookEventName, string>> = {
  SessionStart: "how the session started (startup, resume)",
  UserPromptSubmit: "nothing: fires for every prompt",
  PreToolUse: "the tool name, orca's or Claude Code's",
  PermissionRequest: "the tool name, orca's or Claude Code's",
  PostToolUse: "the tool name, orca's or Claude Code's",
  PostToolUseFailure: "the tool name, orca's or Claude Code's",
  Notification: "the notification type (permission_prompt)",
  SubagentStart: "the agent type (its definition's name)",
  SubagentStop: "the agent type (its definition's name)",
  Stop: "nothing: fires at the end of every run",
  PreCompact: "what triggered compaction (auto, or manual for /compact)",
  SessionEnd: "why the session ended (prompt_input_exit, other)",
};

/** Orca's permission modes as Claude Code spells them in `permission_mode`. */
export function claudePermissionMode(mode: string): string {
  switch (mode) {
    case "accept-edits":
      return "acceptEdits";
    case "bypass":
      return "bypassPermissions";
    default:
      return mode;
  }
}

const FILE_TOOLS = new Set(["read_file", "write_file", "edit_file"]);

/**
 * The `tool_input` a hook sees: orca's arguments plus Claude Code's spelling of the fields scripts
 * read — `file_path` (absolute, as Claude Code gives it) for file tools, `timeout` for bash.
 */
export function hookToolInput(toolName: string, args: unknown, cwd: string): Record<string, unknown> {
  const input: Record<string, unknown> = args && typeof args === "object" && !Array.isArray(args) ? { ...(args as Record<string, unknown>) } : {};
  if (FILE_TOOLS.has(toolName) && typeof input.path === "string") input.file_path = path.resolve(cwd, input.path);
  if (toolName === "bash" && typeof input.timeout_ms === "number") input.timeout = input.timeout_ms;
  return input;
}

/**
 * A hook's `updatedInput` back in orca's shape. It replaces the whole input (Claude Code's rule),
 * so Claude Code's aliases are folded back: a changed `file_path` becomes `path`, a changed
 * `timeout` becomes `timeout_ms`, and the aliases themselves are dropped.
 */
export function orcaToolInput(toolName: string, updated: Record<string, unknown>, originalArgs: unknown, cwd: string): Record<string, unknown> {
  const before = hookToolInput(toolName, originalArgs, cwd);
  const result = { ...updated };
  if (FILE_TOOLS.has(toolName) && "file_path" in result) {
    if (typeof result.file_path === "string" && (result.file_path !== before.file_path || typeof result.path !== "string")) result.path = result.file_path;
    delete result.file_path;
  }
  if (toolName === "bash" && "timeout" in result) {
    if (typeof result.timeout === "number" && (result.timeout !== before.timeout || typeof result.timeout_ms !== "number")) result.timeout_ms = result.timeout;
    delete result.timeout;
  }
  return result;
}
