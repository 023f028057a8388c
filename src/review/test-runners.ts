import { stripVTControlCharacters } from "node:util";
import { analyseCommand, basename, shellParserLoaded } from "../tools/shell/index.js";

/**
 * Which commands run tests, and what their runners said: a table of test runners, each with how
 * its command line looks and, where the runner prints them, how its pass/fail counts read.
 * Evidence rules (evidence.ts) ask it whether an agent ran tests after its last edit; reports show
 * the counts. Counts are read only from output formats seen from the real runner
 * (tests/fixtures/test-output/); a runner without a parser here is still known to run tests.
 */

export interface TestCounts {
  passed?: number;
  failed?: number;
  skipped?: number;
}

/** A command that ran tests: the runner it used, and its counts when its output showed them. */
export interface TestRun extends TestCounts {
  runner: string;
}

type Argv = readonly string[];

interface TestRunner {
  name: string;
  /** argv[0] is the program's base name, without a `@version`. */
  runs(argv: Argv): boolean;
  counts?(text: string): TestCounts | null;
}

/** The first word that is not an option: a subcommand or script name. */
function firstWord(args: Argv): string | undefined {
  return args.find((a) => !a.startsWith("-"));
}

const TEST_SCRIPT = /^test(?:[:._-].*)?$/;
const subcommand = (...names: string[]) => (argv: Argv) => names.includes(firstWord(argv.slice(1)) ?? "");

/** Counts read as "3 passed", "1 failed", "2 skipped" from a comma- or bar-separated list. */
function tally(list: string, words: { passed: string[]; failed: string[]; skipped: string[] }): TestCounts {
  const out: TestCounts = {};
  for (const [, n, word] of list.matchAll(/(\d+) ([a-z]+)/g)) {
    for (const key of ["passed", "failed", "skipped"] as const) {
      if (words[key].includes(word!)) out[key] = (out[key] ?? 0) + Number(n);
    }
  }
  return out;
}

function lastMatch(text: string, regex: RegExp): RegExpMatchArray | null {
  const all = [...text.matchAll(new RegExp(regex.source, regex.flags.includes("g") ? regex.flags : `${regex.flags}g`))];
  return all.at(-1) ?? null;
}

const vitestCounts = (text: string): TestCounts | null => {
  // "      Tests  1 failed | 3 passed | 1 skipped (5)"
  const m = lastMatch(text, /^\s*Tests\s+(\d+ [a-z]+(?: \| \d+ [a-z]+)*)\s+\(\d+\)\s*$/m);
  return m ? tally(m[1]!, { passed: ["passed"], failed: ["failed"], skipped: ["skipped", "todo"] }) : null;
};

const jestCounts = (text: string): TestCounts | null => {
  // "Tests:       1 failed, 1 skipped, 3 passed, 5 total"
  const m = lastMatch(text, /^Tests:\s+(.+?),? \d+ total\s*$/m);
  return m ? tally(m[1]!, { passed: ["passed"], failed: ["failed"], skipped: ["skipped", "todo"] }) : null;
};

const mochaCounts = (text: string): TestCounts | null => {
  const passing = lastMatch(text, /^\s*(\d+) passing \(/m);
  if (!passing) return null;
  const failing = lastMatch(text, /^\s*(\d+) failing\s*$/m);
  const pending = lastMatch(text, /^\s*(\d+) pending\s*$/m);
  return { passed: Number(passing[1]), failed: failing ? Number(failing[1]) : 0, ...(pending ? { skipped: Number(pending[1]) } : {}) };
};

const nodeTestCounts = (text: string): TestCounts | null => {
  // TAP ("# pass 4") or the spec reporter ("ℹ pass 4").
  const pass = lastMatch(text, /^(?:#|ℹ) pass (\d+)\s*$/m);
  const fail = lastMatch(text, /^(?:#|ℹ) fail (\d+)\s*$/m);
  if (!pass || !fail) return null;
  const skipped = lastMatch(text, /^(?:#|ℹ) skipped (\d+)\s*$/m);
  const todo = lastMatch(text, /^(?:#|ℹ) todo (\d+)\s*$/m);
  const cancelled = lastMatch(text, /^(?:#|ℹ) cancelled (\d+)\s*$/m);
  return {
    passed: Number(pass[1]),
    failed: Number(fail[1]) + Number(cancelled?.[1] ?? 0),
    skipped: Number(skipped?.[1] ?? 0) + Number(todo?.[1] ?? 0),
  };
};

const pytestCounts = (text: string): TestCounts | null => {
  // "==== 1 failed, 2 passed, 1 skipped in 3.40s ====", or the same without the rules (-q).
  const m = lastMatch(text, /^=*\s*((?:\d+ [a-z]+(?:, )?)+) in [\d.]+s(?: \([\d:]+\))?\s*=*\s*$/m);
  if (!m) return /^=*\s*no tests ran in [\d.]+s/m.test(text) ? { passed: 0, failed: 0 } : null;
  const counts = tally(m[1]!, { passed: ["passed", "xpassed"], failed: ["failed", "error", "errors"], skipped: ["skipped", "xfailed", "deselected"] });
  return { passed: counts.passed ?? 0, failed: counts.failed ?? 0, ...(counts.skipped !== undefined ? { skipped: counts.skipped } : {}) };
};

const unittestCounts = (text: string): TestCounts | null => {
  const ran = lastMatch(text, /^Ran (\d+) tests? in [\d.]+s\s*$/m);
  if (!ran) return null;
  const verdict = lastMatch(text, /^(OK|FAILED)(?: \((.*)\))?\s*$/m);
  const detail = verdict?.[2] ?? "";
  const num = (key: string) => Number(new RegExp(`${key}=(\\d+)`).exec(detail)?.[1] ?? 0);
  const failed = num("failures") + num("errors") + num("unexpected successes");
  const skipped = num("skipped") + num("expected failures");
  return { passed: Number(ran[1]) - failed - skipped, failed, skipped };
};

const cargoCounts = (text: string): TestCounts | null => {
  // One "test result:" line per test binary (unit tests, each integration file, doc tests): summed.
  const lines = [...text.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored;/gm)];
  if (!lines.length) return null;
  const sum = (i: number) => lines.reduce((total, m) => total + Number(m[i]), 0);
  return { passed: sum(1), failed: sum(2), skipped: sum(3) };
};

const goCounts = (text: string): TestCounts | null => {
  // Only -v prints a line per test; without it a failure still prints its "--- FAIL" line.
  const results = [...text.matchAll(/^\s*--- (PASS|FAIL|SKIP): /gm)].map((m) => m[1]);
  const verbose = /^=== RUN /m.test(text);
  if (!results.length && !verbose) return null;
  const count = (word: string) => results.filter((r) => r === word).length;
  return verbose ? { passed: count("PASS"), failed: count("FAIL"), skipped: count("SKIP") } : { failed: count("FAIL") };
};

/** Every runner's counts, for a script (`npm test`) whose runner the command line does not name. */
const ANY_COUNTS = [vitestCounts, jestCounts, mochaCounts, nodeTestCounts, pytestCounts, unittestCounts, cargoCounts, goCounts];
const anyCounts = (text: string): TestCounts | null => {
  for (const counts of ANY_COUNTS) {
    const found = counts(text);
    if (found) return found;
  }
  return null;
};

const RUNNERS: readonly TestRunner[] = [
  { name: "vitest", runs: (a) => a[0] === "vitest" && !["bench", "init", "list"].includes(firstWord(a.slice(1)) ?? ""), counts: vitestCounts },
  { name: "jest", runs: (a) => a[0] === "jest", counts: jestCounts },
  { name: "mocha", runs: (a) => a[0] === "mocha" || a[0] === "_mocha", counts: mochaCounts },
  { name: "node --test", runs: (a) => (a[0] === "node" || a[0] === "tsx" || a[0] === "bun") && a.slice(1).some((w) => w === "--test" || w.startsWith("--test=")), counts: nodeTestCounts },
  { name: "pytest", runs: (a) => a[0] === "pytest" || a[0] === "py.test" || (isPython(a[0]) && moduleOf(a) === "pytest"), counts: pytestCounts },
  { name: "unittest", runs: (a) => isPython(a[0]) && moduleOf(a) === "unittest", counts: unittestCounts },
  { name: "go test", runs: (a) => a[0] === "go" && subcommand("test")(a), counts: goCounts },
  { name: "cargo test", runs: (a) => a[0] === "cargo" && (subcommand("test")(a) || subcommand("nextest")(a)), counts: cargoCounts },
  // Runners known to run tests, whose output formats have no sample here to read counts from.
  { name: "bun test", runs: (a) => a[0] === "bun" && subcommand("test")(a) },
  { name: "deno test", runs: (a) => a[0] === "deno" && subcommand("test")(a) },
  { name: "ava", runs: (a) => a[0] === "ava" },
  { name: "tap", runs: (a) => a[0] === "tap" },
  { name: "rspec", runs: (a) => a[0] === "rspec" },
  { name: "phpunit", runs: (a) => a[0] === "phpunit" },
  { name: "ctest", runs: (a) => a[0] === "ctest" },
  { name: "tox", runs: (a) => a[0] === "tox" || a[0] === "nox" },
  { name: "dotnet test", runs: (a) => a[0] === "dotnet" && subcommand("test")(a) },
  { name: "mvn test", runs: (a) => (a[0] === "mvn" || a[0] === "mvnw") && a.slice(1).some((w) => w === "test" || w === "verify") },
  { name: "gradle test", runs: (a) => (a[0] === "gradle" || a[0] === "gradlew") && a.slice(1).some((w) => w === "test" || w === "check") },
  { name: "make test", runs: (a) => a[0] === "make" && a.slice(1).some((w) => w === "test" || w === "check") },
  { name: "rake test", runs: (a) => a[0] === "rake" && a.slice(1).some((w) => w === "test" || w === "spec") },
  // A package script: which runner it calls is in package.json, so every runner's counts are tried.
  { name: "npm test", runs: (a) => a[0] === "npm" && isTestScript(a.slice(1), ["test", "t", "tst"]), counts: anyCounts },
  { name: "pnpm test", runs: (a) => a[0] === "pnpm" && isTestScript(a.slice(1), ["test", "t"], true), counts: anyCounts },
  { name: "yarn test", runs: (a) => a[0] === "yarn" && isTestScript(a.slice(1), ["test"], true), counts: anyCounts },
];

function isPython(program: string | undefined): boolean {
  return program !== undefined && /^python(?:\d+(?:\.\d+)?)?$/.test(program);
}

function moduleOf(argv: Argv): string | undefined {
  const i = argv.indexOf("-m");
  return i > 0 ? argv[i + 1] : undefined;
}

/** `npm test`, `npm run test:unit`; with `direct`, pnpm's and yarn's `pnpm test:unit` too. */
function isTestScript(args: Argv, aliases: string[], direct = false): boolean {
  const words = args.filter((a) => !a.startsWith("-"));
  const [first, second] = words;
  if (first === undefined) return false;
  if (aliases.includes(first)) return true;
  if ((first === "run" || first === "run-script") && second !== undefined) return TEST_SCRIPT.test(second);
  return direct && TEST_SCRIPT.test(first);
}

/** Package managers' subcommands that run a program named after them: `pnpm exec vitest`, `uv run pytest`. */
const RUN_SUBCOMMANDS: Record<string, string[]> = {
  npm: ["exec", "x"],
  pnpm: ["exec", "dlx", "run"],
  yarn: ["exec", "dlx", "run"],
  uv: ["run"],
  poetry: ["run"],
  pipenv: ["run"],
  pdm: ["run"],
  hatch: ["run"],
  bundle: ["exec"],
};

/** What a program that runs another one runs: `npx vitest`, `uv run pytest`, `nyc mocha`; else null. */
function launched(argv: Argv): Argv | null {
  const [program = "", ...rest] = argv;
  if (program === "npx" || program === "pnpx" || program === "bunx") return afterOptions(rest, ["-p", "--package", "-c", "--call"]);
  if (program === "nyc" || program === "c8") return afterOptions(rest);
  const subcommands = RUN_SUBCOMMANDS[program];
  if (!subcommands) return null;
  const args = afterOptions(rest);
  return subcommands.includes(args[0] ?? "") ? afterOptions(args.slice(1)) : null;
}

function afterOptions(args: Argv, withValue: string[] = []): Argv {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) i += withValue.includes(args[i]!) ? 2 : 1;
  return args.slice(i);
}

function normalise(argv: Argv): string[] {
  const [program, ...rest] = argv;
  // `npx vitest@3.2.0`, `./node_modules/.bin/jest`, `./gradlew`
  return [basename(program ?? "").replace(/(?<=.)@[^/]*$/, ""), ...rest];
}

/** The runner a program's argv runs, following package runners (`npx`, `uv run`) up to a few levels deep. */
export function runnerOfArgv(argv: Argv, depth = 0): string | null {
  const words = normalise(argv);
  const direct = RUNNERS.find((r) => r.runs(words));
  if (direct) return direct.name;
  const inner = depth < 3 ? launched(words) : null;
  return inner?.length ? runnerOfArgv(inner, depth + 1) : null;
}

/**
 * The test runner a command line runs, or null: every program it runs is looked at (`cd web &&
 * CI=1 npx vitest run`, `timeout 60 pytest -q`). Before the shell grammar is loaded
 * (loadShellParser), only a plain `program args…` line is read, split on blanks.
 */
export function testRunnerOf(command: string): string | null {
  if (!shellParserLoaded()) return runnerOfArgv(command.trim().split(/\s+/));
  for (const simple of analyseCommand(command).commands) {
    for (const run of simple.runs) {
      if (run.argv.some((w) => w === null)) continue;
      const found = runnerOfArgv(run.argv as string[]);
      if (found) return found;
    }
  }
  return null;
}

/** What a test command's output says: its runner's counts, or none when the runner printed none. */
export function testCountsOf(runner: string, output: string): TestCounts | null {
  const parse = RUNNERS.find((r) => r.name === runner)?.counts;
  return parse ? parse(stripVTControlCharacters(output).replace(/\r\n?/g, "\n")) : null;
}

export function testRunOf(command: string, output: string): TestRun | null {
  const runner = testRunnerOf(command);
  if (!runner) return null;
  return { runner, ...(testCountsOf(runner, output) ?? {}) };
}

/** The runners' names, for the documentation. */
export const TEST_RUNNER_NAMES: readonly string[] = RUNNERS.map((r) => r.name);
