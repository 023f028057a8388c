/**
 * Claude Code's matcher rules, as its hooks reference documents them:
 *   "*", "" or no matcher        every occurrence
 *   letters, digits, _ - space , |   an exact name, or a list of exact names split on | or ,
 *   anything else                a JavaScript regular expression, unanchored (RegExp.test)
 * So `Bash` matches only Bash, `Edit|Write` and `Edit, Write` match either exactly, and
 * `mcp__memory__.*` every tool of the memory server — while `mcp__memory` matches no tool.
 */

export type Matcher = (values: readonly string[]) => boolean;

const EXACT_SET = /^[A-Za-z0-9_\- ,|]*$/;

export type CompiledMatcher = { ok: true; test: Matcher; kind: "all" | "exact" | "regex" } | { ok: false; error: string };

export function compileMatcher(matcher: string | undefined): CompiledMatcher {
  if (matcher === undefined || matcher === "" || matcher === "*") return { ok: true, kind: "all", test: () => true };
  if (EXACT_SET.test(matcher)) {
    const names = new Set(
      matcher
        .split(/[|,]/)
        .map((name) => name.trim())
        .filter((name) => name !== ""),
    );
    return { ok: true, kind: "exact", test: (values) => values.some((value) => names.has(value)) };
  }
  let regex: RegExp;
  try {
    regex = new RegExp(matcher);
  } catch (error) {
    const detail = (error as Error).message.split("\n")[0]!.replace(/^Invalid regular expression: /, "");
    return { ok: false, error: `invalid regular expression ${detail}` };
  }
  return { ok: true, kind: "regex", test: (values) => values.some((value) => regex.test(value)) };
}
