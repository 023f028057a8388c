import { beforeAll, describe, expect, it } from "vitest";
import type { EventInput, OrcaEvent } from "../../src/events/types.js";
import { activitiesOf } from "../../src/review/commands.js";
import { evidenceFlags, namedChanges, testClaims, type ChangedFile } from "../../src/review/evidence.js";
import { evidenceText } from "../../src/review/summary-text.js";
import { loadShellParser } from "../../src/tools/shell/index.js";

beforeAll(async () => {
  await loadShellParser();
});

let ts = 1000;
const ev = (input: EventInput): OrcaEvent => ({ ...input, ts: (ts += 10), sessionId: "s" }) as OrcaEvent;
const AGENT = { agentId: "editor-1", parentId: "coordinator" };

/** An agent's log: started, then the given steps, then its answer. */
function log(steps: EventInput[][], answer: string): OrcaEvent[] {
  return [
    { type: "agent_started", ...AGENT, name: "editor", label: "fix sub", task: "fix sub", tools: ["bash"], depth: 1, model: "m", system: "s" } as EventInput,
    ...steps.flat(),
    { type: "usage", ...AGENT, input: 100, output: 20, cached: 0, cost: 0.002 } as EventInput,
    { type: "agent_finished", ...AGENT, status: "done", result: answer, steps: steps.length, usage: { input: 100, output: 20, cached: 0 }, filesChanged: [] } as EventInput,
  ].map(ev);
}

let n = 0;
/** A bash call and its result as the executor logs them. */
function bash(command: string, output: string, exitCode: number, opts: { changes?: string[]; logged?: "field" | "content" } = {}): EventInput[] {
  const id = `c${++n}`;
  return [
    { type: "assistant_message", ...AGENT, content: "", toolCalls: [{ id, name: "bash", raw: JSON.stringify({ command }), args: { command } }] },
    {
      type: "tool_finished",
      ...AGENT,
      callId: id,
      name: "bash",
      ok: true,
      status: "ok",
      content: `${output}\n[exit code: ${exitCode}]`,
      durationMs: 1234,
      ...(opts.logged === "content" ? {} : { exitCode }),
      ...(opts.changes ? { versions: opts.changes.map((path) => ({ path, hash: "h2", change: "bash" as const })) } : {}),
    },
  ];
}

function edit(path: string): EventInput[] {
  const id = `c${++n}`;
  return [
    { type: "assistant_message", ...AGENT, content: "", toolCalls: [{ id, name: "edit_file", raw: "{}", args: { path } }] },
    { type: "file_write", ...AGENT, callId: id, tool: "edit_file", path, before: "h1", after: "h2", temp: `${path}.tmp` },
    { type: "tool_finished", ...AGENT, callId: id, name: "edit_file", ok: true, status: "ok", content: "ok", durationMs: 3, versions: [{ path, hash: "h2", change: "edit" }] },
  ];
}

const VITEST_PASS = "      Tests  4 passed (4)";
const VITEST_FAIL = "      Tests  1 failed | 3 passed (4)";
const MATH: ChangedFile[] = [{ path: "src/math.ts", status: "modified" }];

function flagsOf(events: OrcaEvent[], files: ChangedFile[] = MATH) {
  return evidenceFlags(activitiesOf(events).get("editor-1")!, files);
}

describe("the activity of an agent, from its log", () => {
  it("lists its commands with exit codes, durations and test counts; refused commands are not ones it ran", () => {
    const denied: EventInput[] = [
      { type: "assistant_message", ...AGENT, content: "", toolCalls: [{ id: "d1", name: "bash", raw: "{}", args: { command: "rm -rf /" } }] },
      { type: "tool_finished", ...AGENT, callId: "d1", name: "bash", ok: false, status: "denied", content: "Error: denied", error: "denied", durationMs: 0 },
    ];
    const events = log([bash("npm ci", "added 3 packages", 0), bash("npx vitest run", VITEST_FAIL, 1, { logged: "content" }), denied], "done");
    const activity = activitiesOf(events).get("editor-1")!;
    expect(activity.commands.map(({ command, exit, ms, tests }) => ({ command, exit, ms, tests }))).toEqual([
      { command: "npm ci", exit: 0, ms: 1234, tests: undefined },
      // An older log without exitCode: read from the bash tool's last line.
      { command: "npx vitest run", exit: 1, ms: 1234, tests: { runner: "vitest", passed: 3, failed: 1 } },
    ]);
    expect(activity).toMatchObject({ label: "fix sub", task: "fix sub", status: "done", answer: "done", steps: 3, usage: { input: 100, output: 20, cached: 0, cost: 0.002 } });
  });
});

describe("evidence flags", () => {
  it("tests-claimed-unrun: a claim that tests pass with no test command at all", () => {
    const flags = flagsOf(log([edit("src/math.ts")], "Fixed sub in src/math.ts. All tests pass."));
    expect(flags).toEqual([{ rule: "tests-claimed-unrun", message: expect.stringContaining("it ran no test command at all"), evidence: ['"All tests pass."'] }]);
  });

  it("tests-claimed-unrun: the only test run came before the last edit", () => {
    const flags = flagsOf(log([bash("npx vitest run", VITEST_PASS, 0), edit("src/math.ts")], "Fixed src/math.ts; the tests are green."));
    expect(flags.map((f) => f.rule)).toEqual(["tests-claimed-unrun"]);
    expect(flags[0]!.message).toContain("its last test command ran before its last edit: npx vitest run (exit 0 · 1.2 s · vitest: 4 passed)");
  });

  it("a test run after the last edit backs the claim; a failed one is tests-claimed-failing", () => {
    expect(flagsOf(log([edit("src/math.ts"), bash("npx vitest run", VITEST_PASS, 0)], "Fixed src/math.ts. All 4 tests pass."))).toEqual([]);
    const failing = flagsOf(log([edit("src/math.ts"), bash("npx vitest run", VITEST_FAIL, 1)], "Fixed src/math.ts. Tests pass."));
    expect(failing.map((f) => f.rule)).toEqual(["tests-claimed-failing"]);
  });

  it("a command that changes files counts as an edit: tests must come after it", () => {
    const flags = flagsOf(log([edit("src/math.ts"), bash("npx vitest run", VITEST_PASS, 0), bash("sed -i s/a/b/ src/math.ts", "", 0, { changes: ["src/math.ts"] })], "Updated src/math.ts, tests pass."));
    expect(flags.map((f) => f.rule)).toEqual(["tests-claimed-unrun"]);
  });

  it("a passing verify run after the agent ended backs the claim; a failing one is flagged", () => {
    const verify = (exitCode: number): EventInput => ({ type: "verify_finished", ...AGENT, command: "npm test", exitCode, status: "ok", durationMs: 900, output: "", tests: { runner: "npm test" } });
    expect(flagsOf([...log([edit("src/math.ts")], "Fixed src/math.ts. Tests pass."), ev(verify(0))])).toEqual([]);
    const flags = flagsOf([...log([edit("src/math.ts")], "Fixed src/math.ts."), ev(verify(2))]);
    expect(flags).toEqual([{ rule: "verify-failed", message: "verify command failed: verify: npm test (exit 2 · 900 ms · npm test)", evidence: ["verify: npm test (exit 2 · 900 ms · npm test)"] }]);
  });

  it("named-unchanged and change-unmentioned compare the answer with the files that changed", () => {
    const answer = ["Done.", "", "Files changed:", "- src/math.ts — fixed sub", "- src/index.ts — exported it", "", "I did not touch README.md."].join("\n");
    const files: ChangedFile[] = [...MATH, { path: "package-lock.json", status: "modified" }];
    const flags = flagsOf(log([edit("src/math.ts")], answer), files);
    expect(flags).toEqual([
      { rule: "named-unchanged", message: "says it changed src/index.ts, which did not change", evidence: ['"- src/index.ts — exported it"'] },
      { rule: "change-unmentioned", message: "changed package-lock.json without saying so", evidence: ["modified: package-lock.json"] },
    ]);
  });

  it("a file named by its base name matches its changed path", () => {
    expect(flagsOf(log([edit("src/math.ts")], "Edited `math.ts`: sub subtracts now."))).toEqual([]);
  });
});

describe("reading an answer", () => {
  it.each([
    "All tests pass.",
    "The test suite passes.",
    "npm test passes now",
    "All 12 tests passed",
    "Tests are green.",
    "I ran the unit tests and they pass.",
  ])("claims tests pass: %s", (sentence) => {
    expect(testClaims(sentence)).toEqual([sentence]);
  });

  it.each(["I could not run the tests.", "The tests do not pass yet.", "Tests should pass once the fixture is updated.", "Run npm test to check it passes.", "Fixed the parser."])(
    "makes no claim: %s",
    (sentence) => {
      expect(testClaims(sentence)).toEqual([]);
    },
  );

  it("names the files it says it changed, not those it only mentions", () => {
    const named = namedChanges(["I read src/a.ts and src/b.ts.", "Changed src/a.ts to export add.", "Left docs/x.md alone.", "## Changes", "- `lib/c.js`", "", "See also notes.txt"].join("\n"));
    expect(named.map((n) => n.path)).toEqual(["src/a.ts", "lib/c.js"]);
  });
});

describe("the evidence a coordinator reads", () => {
  it("lists files, commands, tests and flags in a few lines", () => {
    const text = evidenceText({
      files: [{ path: "src/math.ts", status: "modified", added: 1, removed: 1 }],
      commands: [{ command: "npx vitest run", exit: 1, ms: 2100, tests: { runner: "vitest", passed: 3, failed: 1 } }],
      flags: [{ rule: "tests-claimed-failing", message: "says tests pass, but its last test command failed" }],
    });
    expect(text.split("\n")).toEqual([
      "--- evidence (from the session log, not the agent's words) ---",
      "changed: src/math.ts (modified, +1 −1)",
      "ran: npx vitest run → exit 1 · 2.1 s · vitest: 3 passed, 1 failed",
      "⚑ unverified (tests-claimed-failing): says tests pass, but its last test command failed",
    ]);
  });
});

describe("the rules' quick look for their words (an answer without them skips the regular expressions)", () => {
  it("finds claims and paths in any letter case, as the case-blind rules do", () => {
    expect(testClaims("ALL TESTS PASS.")).toEqual(["ALL TESTS PASS."]);
    expect(testClaims("Jest: all green")).toEqual(["Jest: all green"]);
    expect(testClaims("PyTest passed")).toEqual(["PyTest passed"]);
    expect(namedChanges("UPDATED SRC/APP.TS")).toEqual([{ path: "SRC/APP.TS", line: "UPDATED SRC/APP.TS" }]);
    expect(namedChanges("## FILES CHANGED\n- a/b")).toEqual([{ path: "a/b", line: "- a/b" }]);
  });

  it("an answer with none of the words, or with no dot or slash for a path, has no claims and no named changes", () => {
    expect(testClaims("hello")).toEqual([]);
    expect(namedChanges("Updated the readme")).toEqual([]);
    expect(namedChanges("hello src/app.ts")).toEqual([]);
  });
});
