/**
 * The dashboard's slash commands: typed in the input box, run by the dashboard, never sent to the
 * model. One table; /help and docs/dashboard.md list it, the popup completes from it.
 */
export const SLASH_COMMANDS = [
  { name: "help", args: "", help: "keys and commands" },
  { name: "agents", args: "", help: "agent definitions and the sub-agents of this session" },
  { name: "tasks", args: "", help: "the team's task board: each task's status, owner pane and what blocks it" },
  { name: "cost", args: "", help: "tokens (in / out / cached) and cost of each agent, as a tree, and the run's budget" },
  { name: "compact", args: "", help: "summarise the coordinator's older history now" },
  { name: "clear", args: "", help: "start a new session (this one stays in the log: /resume)" },
  { name: "model", args: "[name]", help: "show or switch the model (provider/name works)" },
  { name: "mode", args: "[default|accept-edits|plan|bypass]", help: "show or switch the permission mode (also Shift+Tab)" },
  { name: "permissions", args: "[remove <rule> [--project|--user]]", help: "every permission rule in force and where it came from; remove a session, project or user rule" },
  { name: "mcp", args: "", help: "MCP servers: state, tools, why one failed" },
  { name: "skills", args: "", help: "the skills agents can load" },
  { name: "memory", args: "", help: "the instruction files (AGENTS.md, CLAUDE.md…) in the system prompt" },
  { name: "init", args: "", help: "write a starting AGENTS.md from a scan of the project (never overwrites)" },
  { name: "sessions", args: "", help: "logged sessions of this folder" },
  { name: "hooks", args: "", help: "the hooks orca runs, what each matches, where it is configured" },
  { name: "tools", args: "", help: "the tools agents can have (built-in and MCP)" },
  { name: "doctor", args: "", help: "sandbox, outside programs and Node, as orca doctor checks them" },
  { name: "copy", args: "[N]", help: "copy the last answer (or its Nth code block) to the clipboard (OSC 52)" },
  { name: "export", args: "[file]", help: "write the conversation as Markdown (default: orca-<session>.md)" },
  { name: "resume", args: "<id>", help: "continue a logged session (an id prefix is enough)" },
  { name: "review", args: "[AGENT|text|accept|reject …]", help: "the review view: agents' changes hunk by hunk; accept, reject, comment, send to the agent" },
  { name: "diff", args: "", help: "the session's change against its start" },
  { name: "rewind", args: "[N [code|conversation|both] [--force]]", help: "checkpoints; put back files changed since N, and/or the conversation before that prompt" },
  { name: "exit", args: "", help: "leave orca" },
] as const;

export type SlashName = (typeof SLASH_COMMANDS)[number]["name"];

/** A command from `.orca/commands` or `.claude/commands` (src/skills/commands.ts), as the popup and /help show it. */
export interface CustomSlash {
  readonly name: string;
  readonly args: string;
  readonly help: string;
}

/** One row of the popup: a command (built-in or custom) or, for `@`, a path. */
export interface PopupItem {
  readonly label: string;
  readonly args: string;
  readonly help: string;
}

export type ParsedSlash =
  | { kind: "command"; name: SlashName; arg: string }
  | { kind: "custom"; name: string; arg: string }
  | { kind: "unknown"; name: string }
  | null;

/** "/mode plan" → the mode command with "plan"; "/frob" → unknown; anything else → null (a prompt). */
export function parseSlash(text: string, custom: readonly CustomSlash[] = []): ParsedSlash {
  const trimmed = text.trim();
  // "//text" and "/ text" are prompts that happen to start with a slash; so is a path like /etc/hosts.
  const m = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(trimmed);
  if (!m) return null;
  const name = m[1]!.toLowerCase();
  const arg = (m[2] ?? "").trim();
  const known = SLASH_COMMANDS.find((c) => c.name === name);
  if (known) return { kind: "command", name: known.name, arg };
  if (custom.some((c) => c.name === name)) return { kind: "custom", name, arg };
  return { kind: "unknown", name: m[1]! };
}

/**
 * The commands the popup offers for what is typed so far (only while the first word is being
 * typed): built-in, then custom, and the one whose name is exactly what was typed first, so
 * Enter on "/mode" runs /mode rather than /model.
 */
export function slashCompletions(text: string, custom: readonly CustomSlash[] = []): PopupItem[] {
  const m = /^\/([\w-]*)$/.exec(text);
  if (!m) return [];
  const typed = m[1]!.toLowerCase();
  const all = [...SLASH_COMMANDS, ...custom].filter((c) => c.name.startsWith(typed));
  const exact = all.findIndex((c) => c.name === typed);
  if (exact > 0) all.unshift(...all.splice(exact, 1));
  return all.map((c) => ({ label: `/${c.name}`, args: c.args, help: c.help }));
}

/** Why `/model NAME` cannot name a model, or null: one word, a name or provider/name, never a path. */
export function modelArgProblem(arg: string): string | null {
  if (/^[A-Za-z0-9][\w.:@+-]*(\/[\w.:@+-]+)*$/.test(arg)) return null;
  return `"${arg}" is not a model name: give one (gpt-4.1) or provider/name (anthropic/claude-sonnet-4-5)`;
}
