import { delegateReports, functionsIn, lastCall, outcomeOf, type Outcome } from "./demo-reading.js";
import { reviewReply } from "./demo-review.js";
import type { RecordedRequest, ScriptedReply, ScriptHandler } from "./scripted.js";

/**
 * The scenario `orca --demo` plays on the scripted server. It shows the product: the coordinator
 * plans on the task board (owners, a dependency) and delegates to three sub-agents at once; two of
 * them edit the same file (their scopes overlap: a notice; the scheduler serialises those writes),
 * and one tells the other so with a message; one asks permission to write a new file; a tester
 * runs the tests once both edits are done; the coordinator verifies and reports. Replies are chosen per agent and step, and the later ones read
 * the tool results and sub-agents' reports they answer, so whatever the user does (deny the
 * write, cancel a pane, answer the dialog late) nobody claims what did not happen.
 */

export const DEMO_PROMPT =
  "Fix the subtract bug in tiny-calc, add a multiply function, note it in a changelog, and make sure the tests pass.";

export const DEMO_CONFIG = `permissions:
  mode: default
  allow: ["edit_file(src/**)", "bash(npm test*)"]
`;

// Text streams at reading pace; tool arguments (invisible until the call is whole) come quickly.
const slow = { chunkChars: 6, chunkDelayMs: 25, argChunkChars: 64 };
const think = (ms: number) => ({ delayMs: ms });

const FALLBACK =
  "This is orca's scripted demo, so I can only replay its scenario. To work on your own code, connect a real model: " +
  "`OPENAI_API_KEY=… orca`, or `orca --base-url http://localhost:11434/v1 -m <model>` for Ollama.";

type Step = ScriptedReply | ((request: RecordedRequest) => ScriptedReply);

/**
 * Steps of different agents that should be answered together: the two editors' edits of
 * src/math.js reach the scheduler at the same moment, so one visibly waits for the other.
 */
const TOGETHER: Record<string, { group: string; index: number }> = {
  "editor-1": { group: "math-edits", index: 1 },
  "editor-2": { group: "math-edits", index: 1 },
};
const GROUP_SIZE: Record<string, number> = { "math-edits": 2 };

const MATH = "src/math.js";
const CHANGELOG = "CHANGELOG.md";

/** "editor [fix subtract]": how the coordinator names a sub-agent in its report. */
const FIX = "fix subtract";
const MULTIPLY = "add multiply";

const SCRIPTS: Record<string, Step[]> = {
  coordinator: [
    {
      ...slow,
      text:
        "Plan: an explorer maps the project while two editors work in parallel — one fixes `subtract`, one adds " +
        "`multiply` (both in src/math.js, so orca queues their writes), then a tester runs the suite. On the board:",
      toolCalls: [
        { name: "task_create", args: { title: "map the project" } },
        { name: "task_create", args: { title: FIX, scope: [MATH] } },
        { name: "task_create", args: { title: MULTIPLY, scope: [MATH, CHANGELOG] } },
        { name: "task_create", args: { title: "run the tests", depends_on: ["t2", "t3"] } },
      ],
    },
    {
      ...think(300),
      toolCalls: [
        {
          name: "delegate",
          args: {
            agent: "explorer",
            label: "map project",
            task_id: "t1",
            task: "Map the tiny-calc project: list its modules and what each exports, with file:line for each function. Return a short list.",
          },
        },
        {
          name: "delegate",
          args: {
            agent: "editor",
            label: FIX,
            task_id: "t2",
            task: "In src/math.js, subtract(a, b) returns b - a; it must return a - b. Change only that line. Report what you changed.",
          },
        },
        {
          name: "delegate",
          args: {
            agent: "editor",
            label: MULTIPLY,
            task_id: "t3",
            task:
              "Add `multiply(a, b)` with a one-line JSDoc to src/math.js, just above subtract; do not touch other functions. " +
              "Then add a CHANGELOG.md entry for it. Report the files you changed.",
          },
        },
      ],
    },
    (request) => {
      const reports = delegateReports(request);
      const missed = [FIX, MULTIPLY].filter((label) => !reports.get(label)?.files.includes(MATH));
      const missing = (label: string) => {
        const status = reports.get(label)?.status ?? "no report";
        return `editor [${label}] ${status === "done" ? "changed nothing" : status}`;
      };
      const text = missed.length
        ? `Not every edit landed (${missed.map(missing).join(", ")}). Let me run the tests to see where things stand.`
        : "Both edits landed. Now the tests.";
      // The board's t4 waits for both edits; with one not done it is not delegable, and the tester runs anyway.
      const task = { agent: "tester", label: "run tests", task: "Run the project's tests (npm test) and report passed/failed with causes." };
      const done = [FIX, MULTIPLY].every((label) => reports.get(label)?.status === "done");
      return { ...slow, text, toolCalls: [{ name: "delegate", args: done ? { ...task, task_id: "t4" } : task }] };
    },
    { ...slow, ...think(400), text: "Let me check the final file myself.", toolCalls: [{ name: "read_file", args: { path: MATH } }] },
    (request) => ({ ...slow, ...think(300), text: finalReport(request) }),
  ],
  "explorer-1": [
    { ...think(700), toolCalls: [{ name: "glob", args: { pattern: "**/*.js" } }, { name: "read_file", args: { path: "README.md" } }] },
    { ...think(900), toolCalls: [{ name: "read_file", args: { path: MATH } }, { name: "read_file", args: { path: "src/format.js" } }] },
    (request) => ({ ...slow, ...think(500), text: projectMap(request) }),
  ],
  "editor-1": [
    { ...think(600), toolCalls: [{ name: "read_file", args: { path: MATH } }] },
    { ...think(1200), toolCalls: [{ name: "edit_file", args: { path: MATH, old_string: "  return b - a;", new_string: "  return a - b;" } }] },
    (request) => {
      const edit = outcomeOf(lastCall(request, "edit_file"));
      const line = edit.ok ? /at line (\d+)/.exec(edit.text)?.[1] : undefined;
      const text = edit.ok
        ? `Fixed subtract in src/math.js${line ? `:${line}` : ""}: it now returns a - b.`
        : `I could not fix subtract: ${why(edit)}. src/math.js is unchanged.`;
      return { ...slow, ...think(300), text };
    },
  ],
  "editor-2": [
    {
      ...think(600),
      toolCalls: [
        { name: "read_file", args: { path: MATH } },
        // A sibling working on the same file is told first: the message shows in both panes.
        { name: "message_agent", args: { id: "editor-1", text: "I'm adding multiply just above subtract in src/math.js; re-read it before you edit." } },
      ],
    },
    {
      // A beat after editor-1, so its edit of src/math.js reaches the scheduler second and waits.
      ...think(1500),
      toolCalls: [
        {
          name: "edit_file",
          args: {
            path: MATH,
            old_string: "/** Subtracts b from a. */",
            new_string: "/** Multiplies a by b. */\nexport function multiply(a, b) {\n  return a * b;\n}\n\n/** Subtracts b from a. */",
          },
        },
      ],
    },
    (request) => {
      const edit = outcomeOf(lastCall(request, "edit_file"));
      if (!edit.ok) return { ...slow, ...think(300), text: `I could not add multiply: ${why(edit)}. src/math.js is unchanged, and with nothing added there is nothing for the changelog.` };
      return {
        ...think(500),
        toolCalls: [{ name: "write_file", args: { path: CHANGELOG, content: "# Changelog\n\n## Unreleased\n- Added `multiply(a, b)` to src/math.js.\n" } }],
      };
    },
    (request) => {
      const write = outcomeOf(lastCall(request, "write_file"));
      let changelog: string;
      if (write.ok) changelog = ", and a CHANGELOG.md entry.";
      else if (write.denied) changelog = `. I did not write the CHANGELOG.md entry: the user denied it${write.reason ? ` ("${write.reason}")` : ""}.`;
      else changelog = `. The CHANGELOG.md entry was not written: ${why(write)}.`;
      return { ...slow, ...think(300), text: `Added multiply(a, b) above subtract in src/math.js${changelog}` };
    },
  ],
  "tester-1": [
    { ...think(600), toolCalls: [{ name: "bash", args: { command: "npm test", description: "run the test suite" } }] },
    (request) => ({ ...slow, ...think(400), text: testReport(outcomeOf(lastCall(request, "bash"))) }),
  ],
};

function why(outcome: Outcome): string {
  if (outcome.ok) return "it worked";
  if (outcome.denied) return `the user denied it${outcome.reason ? ` ("${outcome.reason}")` : ""}`;
  return outcome.error;
}

/** The explorer's map, from the files it read (before or after the editors changed them). */
function projectMap(request: RecordedRequest): string {
  const read = (path: string) => lastCall(request, "read_file", (c) => c.args.path === path)?.result;
  const math = read(MATH);
  const lines = [MATH, "src/format.js"].map((path) => {
    const found = functionsIn(read(path));
    const listed = found.map((f) => {
      const wrongSign = f.name === "subtract" && /return b - a;/.test(math ?? "") ? " (returns b - a: wrong sign)" : "";
      return `${path}:${f.line} \`${f.name}(${f.params})\`${wrongSign}`;
    });
    return `- ${listed.length ? listed.join(", ") : `${path}: could not read it`}`;
  });
  return `tiny-calc has two modules:\n${lines.join("\n")}\nTests: test/math.test.js (node:test).`;
}

/** The tester's report: the counts node --test printed, and which tests failed. */
function testReport(run: Outcome): string {
  if (!run.ok) return `I could not run the tests: ${why(run)}.`;
  const count = (what: string) => Number(new RegExp(`^(?:#|ℹ) ${what} (\\d+)`, "m").exec(run.text)?.[1] ?? NaN);
  const passed = count("pass");
  const failed = count("fail");
  const code = /\[exit code: (\d+)\]/.exec(run.text)?.[1];
  if (Number.isNaN(passed) || Number.isNaN(failed)) return `Ran \`npm test\`: exit code ${code ?? "unknown"}, but I found no test counts in its output.`;
  if (failed === 0) return `Ran \`npm test\`: ${passed} passed, 0 failed.`;
  const names = [...run.text.matchAll(/^not ok \d+ - (.+)$/gm)].map((m) => m[1]!.trim());
  return `Ran \`npm test\`: ${passed} passed, ${failed} failed${names.length ? ` (${names.join(", ")})` : ""}.`;
}

/** The coordinator's report, from what its sub-agents reported and what it read itself. */
function finalReport(request: RecordedRequest): string {
  const reports = delegateReports(request);
  const math = lastCall(request, "read_file", (c) => c.args.path === MATH)?.result ?? "";
  const fixed = /return a - b;/.test(math);
  const multiplied = /export function multiply\(/.test(math);
  const mathLine = [
    fixed ? "`subtract` now returns a - b" : "`subtract` still returns b - a (the fix did not land)",
    multiplied ? "new `multiply(a, b)`" : "no `multiply` (it was not added)",
  ].join("; ");
  const adder = reports.get(MULTIPLY);
  const written = [...reports.values()].some((r) => r.files.includes(CHANGELOG));
  let changelog: string;
  if (written) changelog = "notes the new function.";
  else {
    const denied = /the user denied it(?: \("([\s\S]*)"\))?\./.exec(adder?.answer ?? "");
    if (denied) changelog = `not written: you denied the write${denied[1] ? ` ("${denied[1]}")` : ""}.`;
    else changelog = `not written${adder && adder.status !== "done" ? ` (editor [${MULTIPLY}] ${adder.status})` : ""}.`;
  }
  const tester = reports.get("run tests");
  const tests = tester?.status === "done" && tester.answer ? tester.answer : `not confirmed (tester ${tester?.status ?? "did not report"}).`;
  const lines = [`Done.`, `- src/math.js: ${mathLine}.`, `- CHANGELOG.md: ${changelog}`, `- Tests: ${tests}`];
  const both = [FIX, MULTIPLY].every((label) => reports.get(label)?.files.includes(MATH));
  if (both && fixed && multiplied) lines.push("The two edits to src/math.js were serialised by the scheduler; nothing was lost.");
  return lines.join("\n");
}

/**
 * How fast the scenario plays: 1 is the default pace, 0.25 four times slower (end-to-end tests use
 * that to have time to focus and cancel a running pane). Read from ORCA_DEMO_SPEED when not given.
 */
export function demoSpeed(raw = process.env.ORCA_DEMO_SPEED): number {
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : 1;
}

function paced(reply: ScriptedReply, speed: number): ScriptedReply {
  if (speed === 1 || reply.kind === "error" || reply.kind === "hang" || reply.kind === "raw") return reply;
  const scale = (ms: number | undefined): number | undefined => (ms === undefined ? undefined : Math.round(ms / speed));
  return { ...reply, delayMs: scale(reply.delayMs), chunkDelayMs: scale(reply.chunkDelayMs) };
}

/** Resolves once `size` callers arrived for `group`, or after `timeoutMs` (a cancelled agent never comes). */
function meeting(): (group: string, size: number, timeoutMs: number) => Promise<void> {
  const groups = new Map<string, { arrived: number; release: (() => void)[] }>();
  return (group, size, timeoutMs) =>
    new Promise<void>((resolve) => {
      const g = groups.get(group) ?? { arrived: 0, release: [] };
      groups.set(group, g);
      g.arrived++;
      g.release.push(resolve);
      if (g.arrived >= size) for (const r of g.release.splice(0)) r();
      else setTimeout(resolve, timeoutMs).unref();
    });
}

export function createDemoScript(opts: { speed?: number } = {}): ScriptHandler {
  const speed = opts.speed ?? demoSpeed();
  const steps = new Map<string, number>();
  const meet = meeting();
  return async (request) => {
    const agent = /You are agent (\S+) \(/.exec(request.body.messages[0]?.content ?? "")?.[1] ?? "";
    const index = steps.get(agent) ?? 0;
    steps.set(agent, index + 1);
    const step = SCRIPTS[agent]?.[index];
    if (!step) return paced(reviewReply(agent, request) ?? { ...slow, text: FALLBACK }, speed);
    const together = TOGETHER[agent];
    if (together && together.index === index) await meet(together.group, GROUP_SIZE[together.group], 3000 / speed);
    return paced(typeof step === "function" ? step(request) : step, speed);
  };
}
