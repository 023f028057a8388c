/**
 * The dashboard's slash commands: typed in the input box, run by the dashboard, never sent to the
 * model. One table; /help and docs/dashboard.md list it, the popup completes from it.
 */
export const SLASH_COMMANDS = [
  { name: "help", args: "", help: "keys and commands" },
  { name: "agents", args: "", help: "agent definitions and the sub-agents of this session" },
  { name: "cost", args: "", help: "tokens (in / out / cached) and cost, per agent" },
  { name: "compact", args: "", help: "summarise the coordinator's older history now" },
  { name: "clear", args: "", help: "start a new session (this one stays in the log: /resume)" },
  { name: "model", args: "[name]", help: "show or switch the model (provider/name works)" },
  { name: "mode", args: "[default|accept-edits|plan|bypass]", help: "show or switch the permission mode (also Shift+Tab)" },
  { name: "permissions", args: "[remove <rule>]", help: "every permission rule in force and where it came from; remove a session rule" },
  { name: "mcp", args: "", help: "MCP servers: state, tools, why one failed" },
  { name: "skills", args: "", help: "the skills agents can load" },
  { name: "sessions", args: "", help: "logged sessions of this folder" },
  { name: "resume", args: "<id>", help: "continue a logged session (an id prefix is enough)" },
  { name: "exit", args: "", help: "leave orca" },
] as const;

export type SlashName = (typeof SLASH_COMMANDS)[number]["name"];

export type ParsedSlash = { kind: "command"; name: SlashName; arg: string } | { kind: "unknown"; name: string } | null;

/** "/mode plan" → the mode command with "plan"; "/frob" → unknown; anything else → null (a prompt). */
export function parseSlash(text: string): ParsedSlash {
  const trimmed = text.trim();
  // "//text" and "/ text" are prompts that happen to start with a slash; so is a path like /etc/hosts.
  const m = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(trimmed);
  if (!m) return null;
  const name = m[1]!.toLowerCase();
  const known = SLASH_COMMANDS.find((c) => c.name === name);
  if (!known) return { kind: "unknown", name: m[1]! };
  return { kind: "command", name: known.name, arg: (m[2] ?? "").trim() };
}

/** The commands the popup offers for what is typed so far (only while the first word is being typed). */
export function slashCompletions(text: string): (typeof SLASH_COMMANDS)[number][] {
  const m = /^\/([\w-]*)$/.exec(text);
  if (!m) return [];
  const typed = m[1]!.toLowerCase();
  return SLASH_COMMANDS.filter((c) => c.name.startsWith(typed));
}
