import type { RecordedRequest, ScriptedReply, ScriptHandler } from "./scripted.js";

/**
 * The scenario `orca --demo` plays on the scripted server. It shows the product: the coordinator
 * plans and delegates to three sub-agents at once; two of them edit the same file (the scheduler
 * serialises those writes); one asks permission to write a new file; a tester runs the tests; the
 * coordinator verifies and reports. Replies are chosen per agent and step, so whatever the user does
 * (cancel a pane, answer the dialog late) the scenario stays coherent.
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

const SCRIPTS: Record<string, Step[]> = {
  coordinator: [
    {
      ...slow,
      text:
        "Plan: an explorer maps the project while two editors work in parallel — one fixes `subtract`, one adds " +
        "`multiply` (both in src/math.js, so orca queues their writes), then a tester runs the suite.",
      toolCalls: [
        {
          name: "delegate",
          args: {
            agent: "explorer",
            label: "map project",
            task: "Map the tiny-calc project: list its modules and what each exports, with file:line for each function. Return a short list.",
          },
        },
        {
          name: "delegate",
          args: {
            agent: "editor",
            label: "fix subtract",
            task: "In src/math.js, subtract(a, b) returns b - a; it must return a - b. Change only that line. Report what you changed.",
          },
        },
        {
          name: "delegate",
          args: {
            agent: "editor",
            label: "add multiply",
            task:
              "Add `multiply(a, b)` with a one-line JSDoc to src/math.js, just above subtract; do not touch other functions. " +
              "Then add a CHANGELOG.md entry for it. Report the files you changed.",
          },
        },
      ],
    },
    {
      ...slow,
      text: "Both edits landed. Now the tests.",
      toolCalls: [{ name: "delegate", args: { agent: "tester", label: "run tests", task: "Run the project's tests (npm test) and report passed/failed with causes." } }],
    },
    { ...slow, ...think(400), text: "Let me check the final file myself.", toolCalls: [{ name: "read_file", args: { path: "src/math.js" } }] },
    {
      ...slow,
      ...think(300),
      text:
        "Done.\n- src/math.js: `subtract` now returns a - b; new `multiply(a, b)`.\n- CHANGELOG.md: notes the new function.\n" +
        "- Tests: all passing (tester ran `npm test`).\nThe two edits to src/math.js were serialised by the scheduler; nothing was lost.",
    },
  ],
  "explorer-1": [
    { ...think(700), toolCalls: [{ name: "glob", args: { pattern: "**/*.js" } }, { name: "read_file", args: { path: "README.md" } }] },
    { ...think(900), toolCalls: [{ name: "read_file", args: { path: "src/math.js" } }, { name: "read_file", args: { path: "src/format.js" } }] },
    {
      ...slow,
      ...think(500),
      text:
        "tiny-calc has two modules:\n- src/math.js:2 `add(a, b)`, src/math.js:7 `subtract(a, b)` (returns b - a: wrong sign)\n" +
        "- src/format.js:4 `format(op, a, b)` uses both.\nTests: test/math.test.js (node:test).",
    },
  ],
  "editor-1": [
    { ...think(600), toolCalls: [{ name: "read_file", args: { path: "src/math.js" } }] },
    { ...think(1200), toolCalls: [{ name: "edit_file", args: { path: "src/math.js", old_string: "  return b - a;", new_string: "  return a - b;" } }] },
    { ...slow, ...think(300), text: "Fixed subtract in src/math.js:8: it now returns a - b." },
  ],
  "editor-2": [
    { ...think(600), toolCalls: [{ name: "read_file", args: { path: "src/math.js" } }] },
    {
      ...think(1200),
      toolCalls: [
        {
          name: "edit_file",
          args: {
            path: "src/math.js",
            old_string: "/** Subtracts b from a. */",
            new_string: "/** Multiplies a by b. */\nexport function multiply(a, b) {\n  return a * b;\n}\n\n/** Subtracts b from a. */",
          },
        },
      ],
    },
    {
      ...think(500),
      toolCalls: [
        {
          name: "write_file",
          args: { path: "CHANGELOG.md", content: "# Changelog\n\n## Unreleased\n- Added `multiply(a, b)` to src/math.js.\n" },
        },
      ],
    },
    { ...slow, ...think(300), text: "Added multiply(a, b) above subtract in src/math.js, and a CHANGELOG.md entry." },
  ],
  "tester-1": [
    { ...think(600), toolCalls: [{ name: "bash", args: { command: "npm test", description: "run the test suite" } }] },
    {
      ...slow,
      ...think(400),
      text: "Ran `npm test`: 2 passed, 0 failed. subtract(5, 3) is now 2, as the test expects.",
    },
  ],
};

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
    if (!step) return paced({ ...slow, text: FALLBACK }, speed);
    const together = TOGETHER[agent];
    if (together && together.index === index) await meet(together.group, GROUP_SIZE[together.group], 3000 / speed);
    return paced(typeof step === "function" ? step(request) : step, speed);
  };
}
