import path from "node:path";
import type { AgentActivity, CommandRecord } from "./commands.js";
import { commandOutcome } from "./summary-text.js";

/**
 * Evidence flags: an agent's final answer checked against what the log shows it did, by rules —
 * never by asking a model. Each flag names its rule and the evidence it rests on.
 *
 * - tests-claimed-unrun: the answer says tests pass, and no test command ran after its last edit.
 * - tests-claimed-failing: the answer says tests pass, and the last test command after its last
 *   edit failed.
 * - named-unchanged: the answer says it changed a file that its change set does not hold.
 * - change-unmentioned: its change set holds a file the answer never names.
 * - verify-failed: a `verify:` command of its definition failed.
 */

export interface EvidenceFlag {
  rule: "tests-claimed-unrun" | "tests-claimed-failing" | "named-unchanged" | "change-unmentioned" | "verify-failed";
  message: string;
  evidence: string[];
}

export interface ChangedFile {
  /** Workspace-relative. */
  path: string;
  status: "created" | "modified" | "deleted";
}

/** "tests pass", "all 12 tests passed", "the test suite is green", "npm test succeeds"… */
const TEST_CLAIM =
  /\b(?:(?:unit |integration |e2e |the |all |every |[0-9]+ )*(?:tests?|specs?|test suites?|test cases?)|npm test|pytest|vitest|jest|cargo test|go test)\b[^.\n]{0,40}?\b(?:pass(?:es|ed|ing)?|succeed(?:s|ed)?|(?:are|is|were|was|stay|stays|remain|remains|now) green|all green|ok)\b/i;
/** A sentence that denies or hedges: "I could not run the tests", "tests do not pass yet". */
const NEGATION = /\b(?:not|never|cannot|unable|should|would|might|may|once|until|if|unless|whether|check|confirm|verify|ensure|make sure)\b|n't\b/i;
/** A line that says something was changed. */
const CHANGE_VERB = /\b(?:chang|edit|modif|updat|fix|add|creat|wr[io]t|remov|delet|renam|refactor|rewr|replac|implement|introduc|touch)\w*/i;
/** A heading that starts a list of changed files ("Files changed:", "## Changes"). */
const CHANGE_HEADING = /^\s*(?:#+\s*)?(?:\*\*)?(?:files? (?:changed|modified|edited|touched)|changes?(?: made)?|changed files?|modified files?)\b.*$/i;
/** Something written as a file path: a slash or a file extension. */
const PATH_TOKEN = /(?:^|[\s`'"(\[*])((?:\.{0,2}\/)?[\w@.+-]+(?:\/[\w@.+-]+)*\.[A-Za-z][\w]{0,9}|[\w@.+-]+(?:\/[\w@.+-]+)+)(?=$|[\s`'"),:;\]*]|\.(?:\s|$))/g;

/**
 * Words one of which every match of TEST_CLAIM holds, and of CHANGE_VERB or CHANGE_HEADING. The
 * rules run once per agent at its end, on the way to exit, and compiling their regular expressions
 * is most of their cost (~2–3 ms): an answer with none of these words cannot match and skips them.
 * Their letters match only ASCII letters under `/i`, so a lower-cased search finds every match.
 */
const TEST_WORDS = ["test", "spec", "jest"];
const CHANGE_WORDS = ["chang", "edit", "modif", "updat", "fix", "add", "creat", "writ", "wrot", "remov", "delet", "renam", "refactor", "rewr", "replac", "implement", "introduc", "touch", "file"];
const hasAnyWord = (text: string, words: readonly string[]): boolean => {
  const lower = text.toLowerCase();
  return words.some((w) => lower.includes(w));
};

/** The sentences of an answer that claim tests pass. */
export function testClaims(answer: string): string[] {
  if (!hasAnyWord(answer, TEST_WORDS)) return [];
  return sentences(answer).filter((s) => TEST_CLAIM.test(s) && !NEGATION.test(s));
}

/** The paths an answer says were changed: on a line with a change verb, or listed under a "Files changed" heading. */
export function namedChanges(answer: string): { path: string; line: string }[] {
  const out: { path: string; line: string }[] = [];
  // A path holds a dot or a slash (PATH_TOKEN); a claim needs a change word.
  if (!/[./]/.test(answer) || !hasAnyWord(answer, CHANGE_WORDS)) return out;
  let underHeading = false;
  for (const raw of answer.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    const listed = /^(?:[-*+]|\d+[.)])\s/.test(line);
    if (CHANGE_HEADING.test(line) && !listed) {
      underHeading = true;
      // A heading with the paths on its own line ("Files changed: a.ts, b.ts").
      if (!line.includes(":") || /:\s*$/.test(line)) continue;
    } else if (!listed) underHeading = false;
    const claims = (underHeading && listed) || CHANGE_VERB.test(line) || CHANGE_HEADING.test(line);
    if (!claims || negated(line)) continue;
    for (const m of line.matchAll(PATH_TOKEN)) out.push({ path: m[1]!.replace(/^\.\//, ""), line });
  }
  return out;
}

/** The flags of one agent: its answer against its files, commands and verify results. */
export function evidenceFlags(activity: Pick<AgentActivity, "answer" | "commands" | "lastEditAt">, files: readonly ChangedFile[]): EvidenceFlag[] {
  const flags: EvidenceFlag[] = [];
  const { answer } = activity;
  const claims = testClaims(answer);
  if (claims.length) {
    const after = activity.commands.filter((c) => c.tests && !c.background && c.at >= activity.lastEditAt);
    const last = after.at(-1);
    if (!last) {
      const ran = activity.commands.filter((c) => c.tests);
      const before = ran.length ? `; its last test command ran before its last edit: ${describe(ran.at(-1)!)}` : "; it ran no test command at all";
      flags.push({ rule: "tests-claimed-unrun", message: `says tests pass, but ran no test after its last edit${before}`, evidence: [...claims.map(quote), ...ran.map(describe)] });
    } else if (!passed(last)) {
      flags.push({ rule: "tests-claimed-failing", message: `says tests pass, but its last test command failed: ${describe(last)}`, evidence: [...claims.map(quote), describe(last)] });
    }
  }
  const changed = new Set(files.map((f) => f.path));
  const unchanged = new Map<string, string>();
  for (const named of namedChanges(answer)) {
    if (!matchesAny(named.path, changed) && !unchanged.has(named.path)) unchanged.set(named.path, named.line);
  }
  if (unchanged.size) {
    flags.push({
      rule: "named-unchanged",
      message: `says it changed ${[...unchanged.keys()].join(", ")}, which did not change`,
      evidence: [...unchanged.values()].map(quote),
    });
  }
  const unmentioned = files.filter((f) => !mentions(answer, f.path)).map((f) => f.path);
  if (unmentioned.length) {
    flags.push({ rule: "change-unmentioned", message: `changed ${unmentioned.join(", ")} without saying so`, evidence: unmentioned.map((p) => `${files.find((f) => f.path === p)!.status}: ${p}`) });
  }
  for (const v of activity.commands.filter((c) => c.verify && !passed(c))) {
    flags.push({ rule: "verify-failed", message: `verify command failed: ${describe(v)}`, evidence: [describe(v)] });
  }
  return flags;
}

function passed(c: CommandRecord): boolean {
  return c.status === "ok" && c.exit === 0 && !(c.tests?.failed && c.tests.failed > 0);
}

function describe(c: CommandRecord): string {
  return `${c.verify ? "verify: " : ""}${c.command} (${commandOutcome(c)})`;
}

function quote(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return `"${line.length > 160 ? `${line.slice(0, 157)}…` : line}"`;
}

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** "did not change x.ts", "x.ts is unchanged", "left y.ts alone". */
function negated(line: string): boolean {
  return /\b(?:not|no|never|didn't|unchanged|untouched|left\b.*\balone|without)\b|n't\b/i.test(line);
}

/** A named path matches a changed one when it is that path or a trailing part of it (`math.ts` for `src/math.ts`). */
function matchesAny(named: string, changed: ReadonlySet<string>): boolean {
  const n = path.posix.normalize(named);
  for (const p of changed) if (p === n || p.endsWith(`/${n}`)) return true;
  return false;
}

/** The answer names a file by its path, or by its base name when that is specific enough (it has an extension). */
function mentions(answer: string, file: string): boolean {
  if (answer.includes(file)) return true;
  const base = path.posix.basename(file);
  return base.includes(".") && new RegExp(`(?:^|[^\\w./-])${escapeRegex(base)}(?![\\w/-])`).test(answer);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
