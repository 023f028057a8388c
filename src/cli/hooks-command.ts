import os from "node:os";
import { HOOK_EVENTS, type HookEventName } from "../config/hooks.js";
import { claudeToolName, hookCommandLine, MATCHER_SUBJECT, TOOL_EVENTS, UNMATCHED_EVENTS, timeoutFor, type ConfiguredHook, type LoadedHooks } from "../hooks/index.js";

/** The values `orca hooks` tries each matcher on, per kind of event. */
export interface MatchUniverse {
  /** orca's tool names (built-ins, get_skill, delegate). */
  tools: readonly string[];
  /** Agent definition names. */
  agents: readonly string[];
}

const EVENT_VALUES: Partial<Record<HookEventName, readonly string[]>> = {
  SessionStart: ["startup", "resume"],
  SessionEnd: ["prompt_input_exit", "other"],
  PreCompact: ["auto", "manual"],
  Notification: ["permission_prompt"],
};

const CLAUDE_STATUS: Record<string, string> = {
  imported: "imported",
  off: "not imported (hooks.import_claude is false)",
  disabled: "not imported (disableAllHooks: true)",
  "not trusted": "not loaded: folder not trusted (run orca here and answer the prompt)",
  invalid: "not imported: invalid",
};

/**
 * `orca hooks`: every hook orca would run, grouped by event — where it is configured, what its
 * matcher matches among the tools / agents / sources orca knows, its timeout — then the Claude
 * Code settings files found and whether their hooks were imported, then what was skipped and why.
 */
export function formatHooks(loaded: LoadedHooks, universe: MatchUniverse, home = os.homedir()): string[] {
  const lines: string[] = [];
  const shown = (p: string) => (p.startsWith(`${home}/`) ? `~/${p.slice(home.length + 1)}` : p);
  if (!loaded.hooks.length) lines.push("hooks: none configured (hooks: in config.yaml; hooks.import_claude: true for .claude/settings.json)");
  else lines.push(`hooks: ${loaded.hooks.length} configured`);
  for (const event of HOOK_EVENTS) {
    const hooks = loaded.hooks.filter((h) => h.event === event);
    if (!hooks.length) continue;
    lines.push(`  ${event}   (matcher on ${MATCHER_SUBJECT[event]})`);
    for (const hook of hooks) {
      lines.push(`    ${describeMatcher(hook)} → ${describeMatches(hook, universe)}`);
      const timeout = timeoutFor(hook) / 1000;
      lines.push(`      runs ${hookCommandLine(hook)}${hook.if ? ` · if ${hook.if}` : ""} · timeout ${timeout} s · from ${shown(hook.source.path)}`);
    }
  }
  if (loaded.claudeFiles.length) {
    lines.push(`Claude Code settings (hooks.import_claude: ${loaded.importClaude}):`);
    for (const f of loaded.claudeFiles) lines.push(`  ${shown(f.path)}: ${CLAUDE_STATUS[f.status]}${f.status === "invalid" ? "" : `, ${f.hooks} hook${f.hooks === 1 ? "" : "s"}`}`);
  }
  for (const warning of loaded.warnings) lines.push(`warning: ${warning}`);
  return lines;
}

function describeMatcher(hook: ConfiguredHook): string {
  if (UNMATCHED_EVENTS.has(hook.event)) return hook.matcher ? `matcher "${hook.matcher}" (ignored)` : "(no matcher)";
  return hook.matcher === undefined ? "(no matcher)" : `matcher "${hook.matcher}"`;
}

function describeMatches(hook: ConfiguredHook, universe: MatchUniverse): string {
  if (UNMATCHED_EVENTS.has(hook.event)) return "every occurrence";
  const everything = hook.match(["\u0000never-a-name\u0000"]);
  if (TOOL_EVENTS.has(hook.event)) {
    if (everything) return "every tool, MCP tools included";
    const tools = universe.tools.filter((t) => hook.match([t, claudeToolName(t)])).map((t) => (claudeToolName(t) !== t ? `${t} (${claudeToolName(t)})` : t));
    const mcp = hook.matcher?.includes("mcp__") ? "MCP tools whose name matches" : "";
    return [tools.join(", "), mcp].filter(Boolean).join("; ") || "no tool orca has";
  }
  if (everything) return "every occurrence";
  const values = hook.event === "SubagentStart" || hook.event === "SubagentStop" ? universe.agents : (EVENT_VALUES[hook.event] ?? []);
  const matched = values.filter((v) => hook.match([v]));
  return matched.length ? matched.join(", ") : "nothing orca sends";
}
