import fs from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { EventOf, FileTouch } from "../../src/events/types.js";
import type { ToolResult } from "../../src/tools/tool.js";
import { contentHash } from "../../src/util/content-hash.js";
import { toolRig, type ToolRig } from "../fixtures/tool-rig.js";

/**
 * Random interleavings of agents reading, editing, rewriting and bash-writing a few shared files,
 * through the real tools, executor and scheduler on a temp workspace — and, in the second
 * property, of writes from outside orca (another process, a merge) and commands that write
 * nothing. The reference below is the rule, written without the implementation's maps: an agent
 * knows a file's content whole when it read it, wrote it, or changed content it knew whole;
 * write_file of an existing file needs that. A change from outside is nobody's: no later command
 * makes an agent know it. Reads run beside a command (DESIGN §14): a read that overlapped one saw
 * the file at some moment of its run (or halfway through its write), and its agent knows what it
 * saw — never more. Where the events cannot show an order (such a read against its own agent's
 * command; whether the session knew a file when a command started), the reference keeps every
 * state the rule allows and narrows them by what each call told its agent; a whole-file write is
 * accepted only if one of them permits it.
 */

const AGENTS = ["x", "y", "z"];
const PATHS = ["a.txt", "b.txt"];
const WORDS = ["p", "q"];

type Op =
  | { kind: "read"; path: string }
  | { kind: "write"; path: string; words: string[] }
  | { kind: "edit"; path: string; from: string; to: string }
  | { kind: "bash"; path: string; words: string[] }
  /** A writing command that writes none of the files (`bash true`): the command that laundered. */
  | { kind: "command"; path: string }
  /** A write by a process outside orca, between rounds. */
  | { kind: "outside"; path: string; words: string[] };

const content = (words: string[]) => words.map((w) => `${w}\n`).join("");
// One hot file and one that starts missing (so creation without a read is exercised too).
const path = fc.oneof({ weight: 3, arbitrary: fc.constant("a.txt") }, { weight: 1, arbitrary: fc.constant("b.txt") });
const words = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("read" as const), path }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("write" as const), path, words }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("edit" as const), path, from: fc.constantFrom(...WORDS), to: fc.constantFrom(...WORDS) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("bash" as const), path, words }) },
);
/** One agent's turns: each turn is one assistant message of one or two calls (run in parallel). */
const agentArb = fc.array(fc.array(opArb, { minLength: 1, maxLength: 2 }), { minLength: 2, maxLength: 5 });
const withCommands: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: opArb },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("command" as const), path }) },
);
/** A round: each agent's turn (or none), run at once; then, maybe, a write from outside. */
const roundArb = fc.record({
  turns: fc.array(fc.option(fc.array(withCommands, { minLength: 1, maxLength: 2 }), { nil: null }), { minLength: 2, maxLength: 3 }),
  outside: fc.option(fc.record({ kind: fc.constant("outside" as const), path, words }), { nil: null }),
});

function toCall(op: Op): { name: string; args: unknown } {
  switch (op.kind) {
    case "read":
      return { name: "read_file", args: { path: op.path } };
    case "write":
      return { name: "write_file", args: { path: op.path, content: content(op.words) } };
    case "edit":
      return { name: "edit_file", args: { path: op.path, old_string: `${op.from}\n`, new_string: `${op.to}\n` } };
    case "bash":
      return { name: "bash", args: { command: `printf '${content(op.words).replace(/\n/g, "\\n")}' > ${op.path}` } };
    case "command":
      // Not a read-only command: the scheduler runs it as a write of the workspace.
      return { name: "bash", args: { command: "true" } };
    case "outside":
      throw new Error("an outside write is no tool call");
  }
}

/** edit_file's rule: non-overlapping occurrences, left to right. */
function count(text: string, search: string): number {
  let n = 0;
  for (let i = text.indexOf(search); i !== -1; i = text.indexOf(search, i + search.length)) n++;
  return n;
}

interface Ran {
  id: string;
  agent: string;
  op: Op;
  result: ToolResult;
}

/** What happened, in order: calls in the order the scheduler started them, and writes from outside. */
type Step = Ran | { op: Extract<Op, { kind: "outside" }> };

const INITIAL = content(["p", "q"]);

/**
 * What an agent may know of a file: the hash of the content it knows and whether it knows it whole;
 * null when it knows nothing. The reference keeps every state the rule allows (a read beside the
 * agent's own command may land before or after the command's scan), and narrows them by what the
 * agent was told: a write accepted or refused, an edit's note, the versions each call logged.
 */
type Know = { hash: string; whole: boolean } | null;

const same = (a: Know, b: Know) => a === b || (a !== null && b !== null && a.hash === b.hash && a.whole === b.whole);
const union = (xs: readonly Know[], ys: readonly Know[]) => [...xs, ...ys.filter((y) => !xs.some((x) => same(x, y)))];
/** Whether the session's versions hold a path: "maybe" after a read that ran beside a command. */
type Tracked = "yes" | "no" | "maybe";

/**
 * Replays the steps on the reference and checks every result, refusal and the files at the end.
 * Writes on one path never overlap (and a command waits for every writer), so per path the start
 * order is the order they happened in; a read may overlap a command, and then saw the file at some
 * moment of its run.
 */
function checkReference(order: readonly Step[], rig: ToolRig): void {
  const conflicts = new Set(rig.events.filter((e) => e.type === "write_conflict").map((e) => (e as EventOf<"write_conflict">).callId));
  const span = spans(rig);
  const overlap = (a: string, b: string) => span.get(a)![0] < span.get(b)![1] && span.get(b)![0] < span.get(a)![1];
  const ran = order.filter((s): s is Ran => "id" in s);
  const commands = ran.filter((r) => r.op.kind === "bash" || r.op.kind === "command");
  const disk = new Map<string, string | null>(PATHS.map((p) => [p, p === "a.txt" ? INITIAL : null]));
  const tracked = new Map<string, Tracked>(PATHS.map((p) => [p, "no"]));
  const knows = new Map<string, Know[]>();
  /** Each bash command's file before it, once the reference has reached it. */
  const before = new Map<string, string | null>();
  const key = (agent: string, p: string) => `${agent}\0${p}`;
  const H = (text: string) => contentHash(text);

  for (const step of order) {
    const { op } = step;
    if (op.kind === "outside") {
      disk.set(op.path, content(op.words));
      continue;
    }
    const { id, agent, result } = step as Ran;
    const current = disk.get(op.path)!;
    const k = key(agent, op.path);
    const states = knows.get(k) ?? [null];
    const where = `${id} ${agent} ${JSON.stringify(op)}: ${result.content} [knows ${JSON.stringify(states)}, tracked ${tracked.get(op.path)}]`;
    const bashOn = (r: Ran) => r.op.kind === "bash" && r.op.path === op.path;
    switch (op.kind) {
      case "read": {
        const saw = touchOf(rig, id, "read")?.hash ?? undefined;
        const beside = commands.filter((c) => overlap(c.id, id));
        const besideOnPath = beside.filter(bashOn);
        if (besideOnPath.length === 0) {
          expect(result.ok, where).toBe(current !== null);
          if (current !== null) expect(saw, where).toBe(H(current));
        } else {
          // Before, during or after the commands it ran beside: any version the file had meanwhile, or
          // one a command was halfway through writing (`>` empties the file, printf may write in parts).
          const written = besideOnPath.map((c) => content((c.op as { words: string[] }).words));
          const versions: (string | null)[] = [current, ...besideOnPath.map((c) => (before.has(c.id) ? before.get(c.id)! : current)), ...written.flatMap(prefixes)];
          if (saw === undefined) expect(result.ok || !versions.includes(null), where).toBe(false);
          else expect(versions.some((v) => v !== null && H(v) === saw), where).toBe(true);
        }
        if (saw === undefined) break;
        const know = { hash: saw, whole: true };
        // Beside its own command on the file, the read may land before or after the command's scan.
        knows.set(k, besideOnPath.some((c) => c.agent === agent) ? union(states, [know]) : [know]);
        // A read during which a command ran tells its agent, not the session.
        tracked.set(op.path, beside.length === 0 || tracked.get(op.path) === "yes" ? "yes" : "maybe");
        break;
      }
      case "write": {
        const next = content(op.words);
        const permits = (s: Know) => current === null || (s !== null && s.whole && s.hash === H(current));
        tracked.set(op.path, "yes");
        if (result.ok) {
          expect(states.some(permits), where).toBe(true);
          disk.set(op.path, next);
          knows.set(k, [{ hash: H(next), whole: true }]);
        } else {
          expect(states.some((s) => !permits(s)), where).toBe(true);
          knows.set(k, states.filter((s) => !permits(s)));
          // Refused, and the agent is told: the result it reads, and a write_conflict event.
          expect(result.content, where).toMatch(/^Error: write_file: .*(read it again|read it first)/);
          expect(conflicts.has(id), where).toBe(true);
        }
        break;
      }
      case "edit": {
        if (current === null || op.from === op.to) {
          expect(result.ok, where).toBe(false);
          break;
        }
        tracked.set(op.path, "yes");
        const changedUnder = (s: Know) => s !== null && s.hash !== H(current);
        const matches = count(current, `${op.from}\n`);
        expect(result.ok, where).toBe(matches === 1);
        if (matches !== 1) {
          // A refused edit on a changed file is a conflict too; one on an unchanged file is not.
          const told = states.filter((s) => changedUnder(s) === conflicts.has(id));
          expect(told.length, where).toBeGreaterThan(0);
          knows.set(k, told);
          break;
        }
        expect(conflicts.has(id), where).toBe(false);
        const next = current.replace(`${op.from}\n`, `${op.to}\n`);
        const told = states.filter((s) => changedUnder(s) === result.content.includes("had changed since you last read it"));
        expect(told.length, where).toBeGreaterThan(0);
        // Whole only on top of content it knew whole.
        const knewWhole = (s: Know) => s !== null && s.whole && s.hash === H(current);
        const edit = touchOf(rig, id, "edit");
        expect(edit?.hash, where).toBe(H(next));
        expect(told.some((s) => knewWhole(s) === !edit?.partial), where).toBe(true);
        disk.set(op.path, next);
        knows.set(k, [{ hash: H(next), whole: !edit?.partial }]);
        break;
      }
      case "bash": {
        expect(result.ok, where).toBe(true);
        const next = content(op.words);
        before.set(id, current);
        const found = bashTouches(rig, id);
        // A command is caught changing only the files the session knew when it started.
        expect(found.filter((t) => t.path !== op.path), where).toEqual([]);
        const touch = found.find((t) => t.path === op.path);
        if (next === current || tracked.get(op.path) === "no") expect(touch, where).toBe(undefined);
        else if (tracked.get(op.path) === "yes") expect(touch, where).toBeDefined();
        if (touch) {
          expect(touch.hash, where).toBe(H(next));
          // Its agent knows the result whole only if it knew the file whole before it, or read the
          // result itself (a read beside its own command counts, landed before the scan or not).
          const ownReads = ran
            .filter((r) => r.op.kind === "read" && r.agent === agent && r.op.path === op.path && r.result.ok && overlap(r.id, id))
            .map((r): Know => ({ hash: touchOf(rig, r.id, "read")!.hash!, whole: true }));
          const knewWhole = (s: Know) => s !== null && s.whole && (s.hash === H(next) || (current !== null && s.hash === H(current)));
          expect(union(states, ownReads).some((s) => knewWhole(s) === !touch.partial), where).toBe(true);
          // Such a read may also land after the scan: then it is what the agent knows.
          knows.set(k, union([{ hash: H(next), whole: !touch.partial }], ownReads));
          tracked.set(op.path, "yes");
        }
        disk.set(op.path, next);
        break;
      }
      case "command":
        // It changed nothing, so it taught no agent anything.
        expect(result.ok, where).toBe(true);
        expect(bashTouches(rig, id), where).toEqual([]);
        break;
    }
  }

  for (const p of PATHS) {
    const actual = fs.existsSync(rig.file(p)) ? rig.read(p) : null;
    expect(actual, p).toBe(disk.get(p));
  }
  // Only writes the reference refused were refused: no conflict without a reason.
  for (const id of conflicts) expect(order.find((s): s is Ran => "id" in s && s.id === id)!.result.ok).toBe(false);
}

/** The text and every part of it a writer may have written so far. */
const prefixes = (text: string) => Array.from({ length: text.length + 1 }, (_, i) => text.slice(0, i));

/** Each call's run, as positions in the event log: from tool_started to tool_finished. */
function spans(rig: ToolRig): Map<string, [number, number]> {
  const span = new Map<string, [number, number]>();
  rig.events.forEach((e, i) => {
    if (e.type === "tool_started") span.set(e.callId, [i, Infinity]);
    if (e.type === "tool_finished" && span.has(e.callId)) span.get(e.callId)![1] = i;
  });
  return span;
}

function versionsOf(rig: ToolRig, callId: string): readonly FileTouch[] {
  const finished = rig.events.find((e): e is EventOf<"tool_finished"> => e.type === "tool_finished" && e.callId === callId);
  return finished?.versions ?? [];
}

/** What a call logged of one kind: a read's version, an edit's result. */
function touchOf(rig: ToolRig, callId: string, change: FileTouch["change"]): FileTouch | undefined {
  return versionsOf(rig, callId).find((t) => t.change === change);
}

/** The changes a command's scan found and gave its agent. */
function bashTouches(rig: ToolRig, callId: string): FileTouch[] {
  return versionsOf(rig, callId).filter((t) => t.change === "bash");
}

/** One assistant message of `agent`: its calls run together; each is recorded in `ran` under a fresh id. */
async function runTurn(rig: ToolRig, ran: Map<string, Ran>, agent: string, turn: readonly Op[], nextId: () => string): Promise<void> {
  const ids = turn.map(() => nextId());
  const results = await rig.calls(agent, turn.map((op, i) => ({ ...toCall(op), id: ids[i] })));
  turn.forEach((op, i) => ran.set(ids[i]!, { id: ids[i]!, agent, op, result: results[i]! }));
}

/** The calls started since event `from`, in the order the scheduler started them. */
function started(rig: ToolRig, ran: ReadonlyMap<string, Ran>, from: number): Ran[] {
  return rig.events
    .slice(from)
    .filter((e): e is EventOf<"tool_started"> => e.type === "tool_started")
    .map((e) => ran.get(e.callId)!);
}

describe("read versions (property)", () => {
  it("no write lands on a version its agent has not seen; every refusal reaches its agent; the files end as the accepted writes in order", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(agentArb, { minLength: 2, maxLength: 3 }),
        fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 12, maxLength: 12 }),
        async (agents, delays) => {
          const rig = toolRig({ maxConcurrency: 4 });
          try {
            rig.write("a.txt", INITIAL);
            const ran = new Map<string, Ran>();
            let n = 0;
            await Promise.all(
              agents.map(async (turns, a) => {
                const agent = AGENTS[a]!;
                for (const [t, turn] of turns.entries()) {
                  // A little jitter between turns so agents interleave differently from run to run.
                  const delay = delays[(a * 4 + t) % delays.length]!;
                  if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
                  await runTurn(rig, ran, agent, turn, () => `c${n++}`);
                }
              }),
            );
            const order = started(rig, ran, 0);
            expect(order).toHaveLength(ran.size);
            checkReference(order, rig);
          } finally {
            await rig.cleanup();
          }
        },
      ),
      // Bounded in time as well as in runs: on a loaded machine it tries fewer interleavings, never more than 7 s.
      { numRuns: 100, interruptAfterTimeLimit: 7_000 },
    );
  }, 10_000);

  it("with writes from outside orca and commands that write nothing: a command never hands an agent a change it did not see", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(roundArb, { minLength: 2, maxLength: 6 }), async (rounds) => {
        const rig = toolRig({ maxConcurrency: 4 });
        try {
          rig.write("a.txt", INITIAL);
          const ran = new Map<string, Ran>();
          const order: Step[] = [];
          let n = 0;
          for (const round of rounds) {
            const from = rig.events.length;
            await Promise.all(
              round.turns.map(async (turn, a) => {
                if (!turn) return;
                await runTurn(rig, ran, AGENTS[a]!, turn, () => `c${n++}`);
              }),
            );
            order.push(...started(rig, ran, from));
            // Every call of the round has finished: the write lands between rounds, like a merge or an editor.
            if (round.outside) {
              rig.write(round.outside.path, content(round.outside.words));
              order.push({ op: round.outside });
            }
          }
          expect(order.filter((s) => "id" in s)).toHaveLength(ran.size);
          checkReference(order, rig);
        } finally {
          await rig.cleanup();
        }
      }),
      { numRuns: 100, interruptAfterTimeLimit: 7_000 },
    );
  }, 10_000);

  it("the laundering of issue 33: read, a change from outside, `bash true`, a stale write_file — refused, the change named as from outside", async () => {
    const rig = toolRig();
    try {
      rig.write("f.txt", "mine\n");
      expect((await rig.call("coordinator", "read_file", { path: "f.txt" })).ok).toBe(true);
      rig.write("f.txt", "merged from a worktree\n");
      expect((await rig.call("coordinator", "bash", { command: "true" })).ok).toBe(true);
      const write = await rig.call("coordinator", "write_file", { path: "f.txt", content: "stale\n" });
      expect(write.ok).toBe(false);
      expect(rig.read("f.txt")).toBe("merged from a worktree\n");
      const conflict = rig.events.find((e): e is EventOf<"write_conflict"> => e.type === "write_conflict");
      expect(conflict).toMatchObject({ path: "f.txt", reason: "stale", changedBy: { kind: "outside" } });
      // The change is logged as from outside, on the command that found it, not as the command's.
      const command = rig.events.find((e): e is EventOf<"tool_finished"> => e.type === "tool_finished" && e.name === "bash");
      expect(command?.versions).toEqual([{ path: "f.txt", hash: expect.any(String), change: "outside" }]);
    } finally {
      await rig.cleanup();
    }
  });
});
