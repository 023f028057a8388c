import { vouchable } from "../command-match.js";
import { analyseCommand, basename } from "../shell/index.js";
import { WRAPPERS } from "../shell/wrapper-table.js";
import type { PermissionSubject } from "../tool.js";
import { allowedBy, exactRule, parseRule } from "./rules.js";

/**
 * The rule a person means by "always" (DESIGN §14, "Rules a person means"): for a command, a
 * prefix rule per command of the line — the program, plus its subcommand for programs that have
 * them (`bash(npm test *)`, `bash(git log *)`) — never wider than one program; for a file, its
 * folder's glob. A rule is only offered if the rule language then allows this very call, which
 * also means it never covers a compound line's other parts (each must be matched on its own), a
 * `$( )`, a `VAR=` prefix or a redirect into a file (see command-match.ts `vouchable`), and never
 * a command outside the sandbox (those get the exact rule). Anything else gets the exact rule.
 */

/** Programs whose first word is a subcommand: the rule names both. */
const SUBCOMMANDS = new Set(
  "git npm pnpm yarn bun cargo go docker podman kubectl helm make gh terraform pip pip3 poetry uv bundle rake mvn gradle dotnet deno".split(" "),
);
/** Subcommands that run a script or package named next: the rule names that too (`npm run build *`). */
const RUNNERS = new Set(["run", "run-script", "exec", "x", "dlx"]);
/** Interpreters and npx: the script or package is part of the program (`node scripts/x.mjs *`). */
const WITH_SCRIPT = new Set("node python python3 perl ruby php lua Rscript npx pnpx bunx tsx".split(" "));
/**
 * Programs that run other programs, or whose every use is destructive: `bash(env *)` would allow
 * anything and `bash(rm *)` deletes anything in the workspace, so they only get the exact rule.
 */
const EXACT_ONLY = new Set([
  ...Object.keys(WRAPPERS),
  ..."sh bash dash zsh ksh fish eval source . su chroot setsid watch rm rmdir dd shred mkfs truncate chmod chown chgrp kill pkill killall find".split(" "),
]);

/** A word a pattern can hold literally: no space (patterns split on it), no `*`, no `${`. */
const PLAIN_WORD = /^[^\s*]+$/;

export interface SuggestedRule {
  /** The rule(s) "always" saves, as the person will see and may edit them (", " between rules). */
  text: string;
  /** False when it is only this exact call. */
  prefix: boolean;
}

/** The words of a command's prefix rule (before the final `*`), or null when only the exact rule will do. */
export function commandPrefix(argv: readonly string[]): string[] | null {
  const program = argv[0];
  if (program === undefined) return null;
  const name = basename(program);
  if (EXACT_ONLY.has(name)) return null;
  const next = (i: number): string | null => {
    const word = argv[i];
    return word !== undefined && !word.startsWith("-") ? word : null;
  };
  let words: (string | null)[] = [program];
  if (WITH_SCRIPT.has(name)) words = [program, next(1)];
  else if (SUBCOMMANDS.has(name)) {
    words = [program, next(1)];
    if (words[1] && RUNNERS.has(words[1])) words.push(next(2));
  }
  if (words.some((w) => w === null || !PLAIN_WORD.test(w) || w.includes("${"))) return null;
  return words as string[];
}

/** The rule "always" suggests for this call (see above). */
export function suggestedRule(toolName: string, subject: PermissionSubject): SuggestedRule {
  const exact: SuggestedRule = { text: exactRule(toolName, subject).text, prefix: false };
  if (subject.kind === "none") return exact;
  if (subject.kind === "path") {
    const slash = subject.value.lastIndexOf("/");
    if (slash <= 0 || /[*?[\]{}()!]/.test(subject.value)) return exact;
    return checked(toolName, subject, [`${toolName}(${subject.value.slice(0, slash)}/**)`]) ?? exact;
  }
  if (subject.unsandboxed) return exact;
  const commands = vouchable(analyseCommand(subject.value));
  if (!commands) return exact;
  const texts: string[] = [];
  for (const argv of commands) {
    const prefix = commandPrefix(argv);
    if (!prefix) return exact;
    const text = `${toolName}(${prefix.join(" ")} *)`;
    if (!texts.includes(text)) texts.push(text);
  }
  return checked(toolName, subject, texts) ?? exact;
}

/** The rules, if they parse and allow this very call; else null. */
function checked(toolName: string, subject: PermissionSubject, texts: string[]): SuggestedRule | null {
  try {
    const rules = texts.map((t) => parseRule(t));
    return allowedBy(rules, toolName, subject) ? { text: texts.join(", "), prefix: true } : null;
  } catch {
    return null;
  }
}

/** Splits an edited "always" text into rules; throws a one-line error naming a bad one. */
export function parseRuleList(text: string): string[] {
  const parts = text
    .split(/,\s+(?=[A-Za-z0-9_*]+(?:\(|,|$))/)
    .map((p) => p.trim())
    .filter(Boolean);
  for (const p of parts) parseRule(p);
  return parts;
}
