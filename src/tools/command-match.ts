import { basename, type Redirect, type ShellAnalysis, type SimpleCommand } from "./shell/index.js";

/**
 * How a command pattern (`git diff *`, `rm *`, `node ${SKILL_DIR}/scripts/x.mjs *`) meets a
 * command, on the words bash will see rather than on the text:
 *
 * - Broadly (deny and ask rules, `read_only_commands`): `*` matches anything, and the pattern is
 *   tried against every command the line runs, however it is spelled — `/bin/rm`, `\rm`, `'rm'`,
 *   behind `sudo`/`env`/`nice`/`xargs`/`find -exec`, inside `sh -c '…'`, `{ …; }`, `if`, `$( )`.
 * - Strictly (allow rules, skills' pre-approvals): each pattern word matches one word, `*` only
 *   within it, and never an option (a word starting with `-`) unless the pattern word is an
 *   option itself; a last word `*` stands for any number of further non-option words.
 */

export interface CommandPattern {
  readonly raw: string;
  /** The pattern's words, for strict matching. */
  readonly words: readonly string[];
  /** `*` = any characters, over the words joined by one space; also with a path-free name. */
  readonly broad: readonly RegExp[];
  /** The pattern's command name (basename), as a matcher. */
  readonly name: RegExp;
}

/** `*` matches any run of characters (spaces and slashes included); the rest is literal. */
export function wildcardToRegExp(pattern: string): RegExp {
  const escaped = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join("[\\s\\S]*");
  return new RegExp(`^${escaped}$`);
}

/** `${SKILL_DIR}` and the like are replaced word by word, so a value with spaces stays one word. */
export function compileCommandPattern(raw: string, vars: Readonly<Record<string, string>> = {}): CommandPattern {
  const words = raw
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w.replace(/\$\{([A-Z_]+)\}/g, (whole, name: string) => vars[name] ?? whole));
  const first = words[0] ?? "";
  const broad = [broadRegExp(words)];
  if (first.includes("/")) broad.push(broadRegExp([basename(first), ...words.slice(1)]));
  return { raw, words, broad, name: wildcardToRegExp(basename(first)) };
}

/** A last word `*` also matches no words at all: `bash(git push *)` denies a bare `git push`. */
function broadRegExp(words: readonly string[]): RegExp {
  if (words.length > 1 && words[words.length - 1] === "*") {
    const head = wildcardToRegExp(words.slice(0, -1).join(" ")).source.slice(1, -1);
    return new RegExp(`^${head}(?: [\\s\\S]*)?$`);
  }
  return wildcardToRegExp(words.join(" "));
}

export type BroadMatch = "yes" | "no" | "unsure";

/** A placeholder for a word only known at run time: `*` matches it, nothing literal does. */
const UNKNOWN = "\u0000";

/**
 * Whether a deny/ask pattern applies to a command line. "unsure": a command it names runs with
 * words only known at run time, so it may apply.
 */
export function broadMatch(pattern: CommandPattern, text: string, analysis: ShellAnalysis): BroadMatch {
  const test = (s: string) => pattern.broad.some((re) => re.test(s));
  if (test(text.trim())) return "yes";
  let unsure = false;
  for (const command of analysis.commands) {
    for (const run of command.runs) {
      const name = run.argv[0];
      if (name === undefined || name === null) continue;
      for (const first of name.includes("/") ? [name, basename(name)] : [name]) {
        const line = [first, ...run.argv.slice(1).map((w) => w ?? UNKNOWN)].join(" ");
        if (test(line) || (run.openEnded && (test(`${line} ${UNKNOWN}`) || test(`${line} `)))) return "yes";
      }
      if (run.argv.includes(null) && pattern.name.test(basename(name))) unsure = true;
    }
  }
  return unsure ? "unsure" : "no";
}

/** A word an option-free `*` may not stand for. */
export function isOption(word: string): boolean {
  return word.startsWith("-");
}

/** Strict matching of one command's words (all known) against a pattern. */
export function strictMatch(pattern: CommandPattern, argv: readonly string[]): boolean {
  const words = pattern.words;
  for (let i = 0; i < words.length; i++) {
    const p = words[i]!;
    if (i === words.length - 1 && p === "*") return argv.slice(i).every((a) => !isOption(a));
    const a = argv[i];
    if (a === undefined) return false;
    if (isOption(a) && !p.startsWith("-")) return false;
    if (!wildcardToRegExp(p).test(a)) return false;
  }
  return argv.length === words.length;
}

/** The words of a command when every one is known. */
export function knownWords(command: SimpleCommand): string[] | null {
  const out: string[] = [];
  for (const w of command.words) {
    if (w.value === null) return null;
    out.push(w.value);
  }
  return out;
}

/** A redirect that writes no file: a dup or close of a descriptor, /dev/null, or an input. */
export function writesNoFile(r: Redirect): boolean {
  if (r.op === "<<" || r.op === "<<<") return true;
  const target = r.target?.value;
  if (target === null || target === undefined) return false;
  if (r.op === "<") return true;
  if ((r.op === ">&" || r.op === "<&") && /^(\d+|-)$/.test(target)) return true;
  return target === "/dev/null";
}

/**
 * The commands of a plain line (see ShellAnalysis.plain) with all their words known, no
 * `VAR=value` prefixes and no redirect that writes a file; null for any other line. These are
 * the only lines allow rules and the read-only hint vouch for.
 */
export function vouchable(analysis: ShellAnalysis): string[][] | null {
  if (!analysis.plain || analysis.uncertain.length || analysis.commands.length === 0) return null;
  const out: string[][] = [];
  for (const command of analysis.commands) {
    const argv = knownWords(command);
    if (!argv || command.assignments.length || !command.redirects.every(writesNoFile)) return null;
    out.push(argv);
  }
  return out;
}
