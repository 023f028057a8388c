import { terminalSafe } from "../util/terminal-text.js";
import type { ToolState } from "./state/types.js";
import { clip, oneLine } from "../util/text.js";
import type { Role } from "./theme.js";

const MAX_SUMMARY = 200;

/** Text from outside (a prompt, a file name) made safe for the terminal and put on one line. */
export function displayLine(text: string): string {
  return oneLine(terminalSafe(text));
}

function clipSummary(text: string): string {
  return clip(text, MAX_SUMMARY);
}

/** The argument that says most about a call, on one line: a path, a command, a task. */
export function summarizeArgs(name: string, args: unknown): string {
  if (args === undefined || args === null) return "";
  if (typeof args !== "object") return clipSummary(displayLine(String(args)));
  const a = args as Record<string, unknown>;
  const str = (k: string): string | undefined => (typeof a[k] === "string" ? (a[k] as string) : undefined);
  if (name === "delegate") {
    // The label names the job; the task is in the sub-agent's own pane, so it only stands in
    // when there is no label.
    const who = str("agent") ?? (str("resume") ? `resume ${str("resume")}` : "");
    const label = str("label");
    const what = label ? `"${displayLine(label)}"` : displayLine(str("task") ?? "");
    return clipSummary(displayLine([who, what, str("task_id") ? `as ${str("task_id")}` : ""].filter(Boolean).join(" ")));
  }
  const team = teamSummary(name, a, str);
  if (team !== null) return clipSummary(displayLine(team));
  const primary = str("command") ?? str("path") ?? str("file_path") ?? str("pattern") ?? str("query") ?? str("name") ?? str("url");
  if (primary !== undefined) {
    const extra = str("pattern") && primary !== str("pattern") ? ` ${str("pattern")}` : "";
    return clipSummary(displayLine(primary + extra));
  }
  let json: string;
  try {
    json = JSON.stringify(args) ?? "";
  } catch {
    json = "";
  }
  return clipSummary(displayLine(json));
}

/** The board's tools and message_agent, in a few words: `"fix subtract" after t1`, `t2 done`, `→ editor-1` (the text is the ✉ line under it). */
function teamSummary(name: string, a: Record<string, unknown>, str: (k: string) => string | undefined): string | null {
  const after = Array.isArray(a.depends_on) && a.depends_on.length ? ` after ${a.depends_on.join(", ")}` : "";
  if (name === "task_create") return `"${str("title") ?? ""}"${after}`;
  if (name === "task_update" || name === "my_task_update") return [str("id"), str("status"), str("owner"), str("notes") ? `notes: ${str("notes")}` : ""].filter(Boolean).join(" ");
  if (name === "message_agent") return `→ ${str("id") ?? "?"}`;
  return null;
}

/**
 * An agent as the dashboard names it everywhere (panes, /cost, waits, notices): its id, which is
 * unique and stable (`explorer-1`, `explorer-2`), with the coordinator's label when it gave one.
 */
export function agentTitle(agent: { id: string; label?: string }): string {
  return agent.label ? `${agent.id} [${agent.label}]` : agent.id;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)}s`;
  const m = Math.floor(s / 60);
  const rest = Math.floor(s % 60);
  if (m < 60) return `${m}m${String(rest).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function formatCost(usd: number): string {
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** The icon of a tool call; `frame` animates the running spinner. */
export function toolIcon(state: ToolState, frame: number): string {
  switch (state) {
    case "queued":
    case "waiting":
      return "◌";
    case "asking":
      return "?";
    case "running":
      return SPINNER[frame % SPINNER.length];
    case "ok":
      return "✓";
    case "failed":
    case "denied":
      return "✗";
    case "cancelled":
      return "⊘";
  }
}

/** The theme role a tool call's state is drawn in. */
export function toolColor(state: ToolState): Role {
  switch (state) {
    case "ok":
      return "ok";
    case "failed":
    case "denied":
      return "error";
    case "running":
      return "running";
    case "asking":
    case "cancelled":
      return "warn";
    default:
      return "muted";
  }
}
