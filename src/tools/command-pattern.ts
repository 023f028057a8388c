/**
 * Matching of shell commands against simple wildcard patterns (`git status*`, `npm test*`), used by
 * the scheduler's read-only classification and by permission rules on bash. `*` matches any run of
 * characters, slashes and spaces included; everything else is literal.
 */

const SHELL_CONTROL = /[;&|<>`$()\n\r]|\bsudo\b/;

/** True when the command chains, redirects or substitutes, so a prefix match would prove nothing. */
export function isCompoundCommand(command: string): boolean {
  return SHELL_CONTROL.test(command);
}

export function wildcardToRegExp(pattern: string): RegExp {
  const escaped = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${escaped}$`, "s");
}

/** Whether `command` (trimmed) matches any pattern. Compound commands never match. */
export function matchesCommand(command: string, patterns: readonly string[]): boolean {
  const trimmed = command.trim();
  if (isCompoundCommand(trimmed)) return false;
  return patterns.some((p) => wildcardToRegExp(p.trim()).test(trimmed));
}

/**
 * Options that make otherwise read-only commands write files or run programs: find's -delete and
 * -exec, `-o`/`--output` of tree, sort and git, ripgrep's --pre, git's external diff and textconv.
 */
const WRITING_OPTION = /(^|\s)(-delete|-exec(dir)?|-ok(dir)?|-fprint\S*|-fls|-o|--output(=\S*)?|--pre(=\S*)?|--ext-diff|--textconv)(\s|$)/;

/**
 * Whether a command may be treated as read-only: it matches `read_only_commands` and uses none of
 * the options that would make it write or execute. This decides both that it runs alongside other
 * reads and that it needs no approval in default and plan mode, so it errs on the side of "no".
 */
export function isReadOnlyCommand(command: string, patterns: readonly string[]): boolean {
  return matchesCommand(command, patterns) && !WRITING_OPTION.test(command);
}
