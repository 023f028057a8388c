import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Access } from "../../src/events/types.js";
import { accessConflicts as indexRule, normaliseAccess } from "../../src/tools/conflicts.js";
import { CancelledError, Scheduler } from "../../src/tools/scheduler.js";

/**
 * Commands in the scheduler (DESIGN §14): a command waits for writes and other commands on its
 * paths and never for reads, and no read waits for it. Random mixes of reads, writes, commands and
 * exclusive calls are checked against the rule written here without the index: nothing that
 * conflicts overlaps, conflicting calls start in submission order, each call waits for exactly
 * the earlier unfinished calls it conflicts with, and a read never waits for a command.
 */

const PATHS = ["/w", "/w/a", "/w/a/x", "/w/ab", "/w/b", "mcp:s"];

const accessArb: fc.Arbitrary<Access> = fc.oneof(
  { weight: 1, arbitrary: fc.constant("exclusive" as const) },
  { weight: 3, arbitrary: fc.record({ reads: fc.subarray(PATHS, { minLength: 1, maxLength: 2 }), writes: fc.constant<string[]>([]) }) },
  { weight: 3, arbitrary: fc.record({ reads: fc.subarray(PATHS, { maxLength: 1 }), writes: fc.subarray(PATHS, { minLength: 1, maxLength: 2 }) }) },
  { weight: 3, arbitrary: fc.record({ reads: fc.constant<string[]>([]), writes: fc.subarray(PATHS, { minLength: 1, maxLength: 2 }), command: fc.constant(true) }) },
);

const covers = (a: string, b: string) => a === b || b.startsWith(`${a}/`) || a.startsWith(`${b}/`);
const hit = (xs: readonly string[], ys: readonly string[]) => xs.some((x) => ys.some((y) => covers(x, y)));
/** The rule, by hand: a command's writes meet writes and commands, never reads. */
function conflicts(a: Access, b: Access): boolean {
  if (a === "exclusive" || b === "exclusive") return true;
  const role = (x: Exclude<Access, "exclusive">) => ({ reads: x.command ? [] : x.reads, writes: x.command ? [] : x.writes, commands: x.command ? x.writes : [] });
  const p = role(a);
  const q = role(b);
  return (
    hit(p.writes, q.writes) || hit(p.writes, q.reads) || hit(p.reads, q.writes) || hit(p.commands, q.commands) || hit(p.commands, q.writes) || hit(p.writes, q.commands)
  );
}
const isCommand = (a: Access) => a !== "exclusive" && a.command === true;
const isRead = (a: Access) => a !== "exclusive" && !a.command && a.writes.length === 0;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("Scheduler with commands (property)", () => {
  it("the pairwise rule of conflicts.ts is the rule", () => {
    fc.assert(
      fc.property(accessArb, accessArb, (a, b) => {
        expect(indexRule(normaliseAccess(a), normaliseAccess(b))).toBe(conflicts(a, b));
      }),
      { numRuns: 500 },
    );
  });

  it("commands wait for writes and commands only; reads never wait for a command; nothing conflicting overlaps", async () => {
    const callArb = fc.record({ access: accessArb, submitAt: fc.integer({ min: 0, max: 3 }), duration: fc.integer({ min: 0, max: 5 }), cancel: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(callArb, { minLength: 1, maxLength: 14 }), fc.integer({ min: 1, max: 4 }), async (calls, maxConcurrency) => {
        interface Rec {
          id: string;
          access: Access;
          seq: number;
          started: number | null;
          finished: boolean;
          cancelled: boolean;
          waitsFor: string[];
        }
        const records: Rec[] = [];
        const byId = new Map<string, Rec>();
        const scheduler = new Scheduler({
          maxConcurrency,
          emit: (e) => {
            if (e.type === "tool_queued") byId.get(e.callId)!.waitsFor = e.waitsFor;
          },
        });
        const active = new Set<Rec>();
        const violations: string[] = [];
        let starts = 0;
        await Promise.all(
          calls.map(async (spec, i) => {
            await sleep(spec.submitAt);
            const rec: Rec = { id: `c${i}`, access: spec.access, seq: records.length, started: null, finished: false, cancelled: false, waitsFor: [] };
            const expected = records.filter((r) => !r.finished && !r.cancelled && conflicts(r.access, rec.access)).map((r) => r.id);
            records.push(rec);
            byId.set(rec.id, rec);
            const ac = new AbortController();
            if (spec.cancel) setTimeout(() => ac.abort(), spec.duration);
            const run = scheduler.run(
              { callId: rec.id, agentId: "a", name: "t", args: {}, access: spec.access },
              async () => {
                rec.started = starts++;
                for (const other of active) if (conflicts(other.access, rec.access)) violations.push(`${other.id} overlaps ${rec.id}`);
                active.add(rec);
                await sleep(spec.duration);
                active.delete(rec);
                rec.finished = true;
              },
              ac.signal,
            );
            expect(rec.waitsFor).toEqual(expected);
            if (isRead(rec.access)) expect(rec.waitsFor.filter((id) => isCommand(byId.get(id)!.access))).toEqual([]);
            if (isCommand(rec.access)) expect(rec.waitsFor.filter((id) => isRead(byId.get(id)!.access))).toEqual([]);
            try {
              await run;
            } catch (error) {
              expect(error).toBeInstanceOf(CancelledError);
              rec.cancelled = true;
            }
          }),
        );
        expect(violations).toEqual([]);
        for (const a of records) {
          for (const b of records) {
            if (a.seq < b.seq && a.started !== null && b.started !== null && conflicts(a.access, b.access)) expect(a.started).toBeLessThan(b.started);
          }
        }
        expect([scheduler.running, scheduler.waiting]).toEqual([0, 0]);
      }),
      { numRuns: 80 },
    );
  });

  it("a read submitted while a command runs on its path starts before the command ends", async () => {
    const scheduler = new Scheduler({ maxConcurrency: 8 });
    const signal = new AbortController().signal;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let commandDone = false;
    const command = scheduler.run({ callId: "cmd", agentId: "t", name: "bash", args: {}, access: { reads: [], writes: ["/w"], command: true } }, async () => {
      await gate;
      commandDone = true;
    }, signal);
    const read = scheduler.run({ callId: "r", agentId: "e", name: "read_file", args: {}, access: { reads: ["/w/a/x"], writes: [] } }, async () => commandDone, signal);
    expect(await read).toBe(false);
    // A write to a path under the command waits for it.
    const write = scheduler.run({ callId: "w", agentId: "e", name: "write_file", args: {}, access: { reads: [], writes: ["/w/a/x"] } }, async () => commandDone, signal);
    release();
    await command;
    expect(await write).toBe(true);
  });
});
