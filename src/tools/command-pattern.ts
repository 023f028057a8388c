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
