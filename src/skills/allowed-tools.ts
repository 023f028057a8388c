/**
 * `allowed-tools` of a SKILL.md: the tools a skill may use without asking once it is loaded.
 *
 * The Agent Skills spec writes it as one space-delimited string (`Bash(git diff:*) Read`), Claude
 * Code's docs as a comma list (`Read, Grep, Glob`), and some authors as a YAML list. All three are
 * accepted. Splitting happens only outside parentheses, because a pattern such as
 * `Bash(git diff:*)` contains a space.
 */

/** Splits an `allowed-tools` string into entries, keeping `Tool(pattern with spaces)` whole. */
export function splitAllowedTools(value: string): string[] {
  const entries: string[] = [];
  let current = "";
  let depth = 0;
  for (const ch of value) {
    if (ch === "(") depth++;
    if (ch === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === "," || /\s/.test(ch))) {
      if (current) entries.push(current);
      current = "";
      continue;
    }
    current += ch;
  }
  if (current) entries.push(current);
  return entries;
}

/**
 * Claude Code tool names with an obvious orca counterpart. Anything else — orca's own names
 * (`read_file`, `bash(npm test*)`, `mcp__github__*`) and Claude names orca has no equivalent
 * for (`WebFetch`, `Task`) — passes through unchanged: an unknown name pre-approves nothing.
 *
 *   Read → read_file        Write → write_file      Edit, MultiEdit → edit_file
 *   Grep → grep             Glob → glob             LS → list_dir
 *   Bash → bash             Bash(git diff:*) → bash(git diff) + bash(git diff *)
 *                           (Claude's `prefix:*` means the prefix alone or followed by arguments)
 *   Bash(npm test) → bash(npm test)                 Read(src/**) → read_file(src/**)
 */
const CLAUDE_TO_ORCA: Record<string, string> = {
  Read: "read_file",
  Write: "write_file",
  Edit: "edit_file",
  MultiEdit: "edit_file",
  Grep: "grep",
  Glob: "glob",
  LS: "list_dir",
  Bash: "bash",
};

const ENTRY = /^([A-Za-z][\w-]*)(?:\((.*)\))?$/s;

function mapOne(entry: string): string[] {
  const match = ENTRY.exec(entry.trim());
  if (!match) return [entry.trim()];
  const [, tool, pattern] = match;
  const mapped = CLAUDE_TO_ORCA[tool];
  if (!mapped) return [entry.trim()];
  if (pattern === undefined) return [mapped];
  const trimmed = pattern.trim();
  const prefix = mapped === "bash" && /^(.*\S):\*$/s.exec(trimmed);
  // orca's `*` matches any run of characters, so `prefix*` would also allow `git diffx`.
  if (prefix) return [`bash(${prefix[1]})`, `bash(${prefix[1]} *)`];
  return [`${mapped}(${trimmed})`];
}

/** Maps Claude-Code-style entries to orca permission rules; orca names pass through. Deduplicated. */
export function mapAllowedTools(list: string[]): string[] {
  const out: string[] = [];
  for (const entry of list) {
    if (!entry.trim()) continue;
    for (const mapped of mapOne(entry)) if (!out.includes(mapped)) out.push(mapped);
  }
  return out;
}
