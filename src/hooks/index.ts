/** Lifecycle hooks, compatible with Claude Code's contract. The core uses the `Hooks` facade. */
export { Hooks, MAX_STOP_CONTINUATIONS } from "./hooks.js";
export type { CallOptions, HooksOptions, PermissionRequestOutcome, PostToolUseOutcome, PreToolUseOutcome, StopOutcome, ToolCallOptions, UserPromptOutcome } from "./hooks.js";
export { loadHooks, hookCommandLine } from "./config.js";
export type { ClaudeSettingsFile, ConfiguredHook, HookSource, LoadedHooks } from "./config.js";
export type { HookAgent, HookSession, HookToolCall, HookToolResult } from "./payload.js";
export { shellCommandOf } from "./process.js";
export type { WrapCommand } from "./process.js";
export type { SpawnSpec } from "../util/process-group.js";
export { timeoutFor, DEFAULT_TIMEOUT_MS } from "./runner.js";
export { MATCHER_SUBJECT, TOOL_EVENTS, UNMATCHED_EVENTS, claudeToolName } from "./names.js";
