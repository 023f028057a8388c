import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Access } from "../../src/events/types.js";
import { CancelledError, Scheduler } from "../../src/tools/scheduler.js";

/** A small tree with directories, siblings sharing a prefix, and a pseudo-path. */
const PATHS = ["/w", "/w/a", "/w/a/x", "/w/a/y", "/w/ab", "/w/b", "/w/b/z", "mcp:s", "mcp:t"];

const accessArb: fc.Arbitrary<Access> = fc.oneof(
  { weight: 1, arbitrary: fc.constant("exclusive" as const) },
  {
    weight: 8,
    arbitrary: fc.record({
      reads: fc.subarray(PATHS, { maxLength: 3 }),
      writes: fc.subarray(PATHS, { maxLength: 2 }),
    }),
  },
);

const callArb = fc.record({
  access: accessArb,
  /** When it is submitted, in ms after the start. */
  submitAt: fc.integer({ min: 0, max: 3 }),
  duration: fc.integer({ min: 0, max: 5 }),
  /** Abort after this many ms from submission, if set. */
  cancelAfter: fc.option(fc.integer({ min: 0, max: 6 }), { freq: 4 }),
});

/** The rule, written independently of the scheduler's index: the paths above are already normal. */
type Ref = Access;
const covers = (a: string, b: string) => a === b || b.startsWith(`${a}/`) || a.startsWith(`${b}/`);
function accessConflicts(a: Ref, b: Ref): boolean {
  if (a === "exclusive" || b === "exclusive") return true;
  const hit = (xs: string[], ys: string[]) => xs.some((x) => ys.some((y) => covers(x, y)));
  return hit(a.writes, b.writes) || hit(a.writes, b.reads) || hit(a.reads, b.writes);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface CallRecord {
  id: string;
  access: Ref;
  submitted: number;
  started: number | null;
  finished: boolean;
  waitsFor: string[] | null;
  outcome: "ok" | "cancelled" | "other" | null;
}

describe("Scheduler (property)", () => {
  it("never overlaps conflicting calls, starts them in submission order and finishes everything else", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(callArb, { minLength: 1, maxLength: 14 }), fc.integer({ min: 1, max: 4 }), async (calls, maxConcurrency) => {
        const records: CallRecord[] = [];
        const byId = new Map<string, CallRecord>();
        const scheduler = new Scheduler({
          maxConcurrency,
          emit: (e) => {
            if (e.type === "tool_queued") byId.get(e.callId)!.waitsFor = e.waitsFor;
          },
        });
        let submitted = 0;
        let starts = 0;
        const active = new Set<CallRecord>();
        let maxActive = 0;
        const violations: string[] = [];

        const runs = calls.map(async (spec, i) => {
          await sleep(spec.submitAt);
          const rec: CallRecord = {
            id: `c${i}`,
            access: spec.access,
            submitted: submitted++,
            started: null,
            finished: false,
            waitsFor: null,
            outcome: null,
          };
          // What the call must wait for: every earlier call it conflicts with that is still unfinished.
          const expected = records
            .filter((r) => !r.finished && r.outcome !== "cancelled" && accessConflicts(r.access, rec.access))
            .map((r) => r.id);
          records.push(rec);
          byId.set(rec.id, rec);
          const ac = new AbortController();
          if (spec.cancelAfter !== null) setTimeout(() => ac.abort(), spec.cancelAfter);
          const promise = scheduler.run(
            { callId: rec.id, agentId: `agent${i % 3}`, name: "t", args: {}, access: spec.access },
            async (signal) => {
              rec.started = starts++;
              for (const other of active) {
                if (accessConflicts(other.access, rec.access)) violations.push(`${other.id} overlaps ${rec.id}`);
              }
              active.add(rec);
              maxActive = Math.max(maxActive, active.size);
              // A well-behaved tool stops early when aborted.
              await new Promise<void>((resolve) => {
                const t = setTimeout(resolve, spec.duration);
                signal.addEventListener("abort", () => {
                  clearTimeout(t);
                  resolve();
                });
              });
              active.delete(rec);
              rec.finished = true;
              return rec.id;
            },
            ac.signal,
          );
          expect(rec.waitsFor).toEqual(expected);
          try {
            expect(await promise).toBe(rec.id);
            rec.outcome = "ok";
          } catch (error) {
            rec.outcome = error instanceof CancelledError ? "cancelled" : "other";
          }
        });
        await Promise.all(runs);

        expect(violations).toEqual([]);
        expect(maxActive).toBeLessThanOrEqual(maxConcurrency);
        for (const r of records) {
          expect(r.outcome === "ok" || r.outcome === "cancelled").toBe(true);
          // A cancelled call never ran; every other call ran to completion.
          expect(r.outcome === "cancelled" ? r.started === null : r.finished).toBe(true);
        }
        for (const a of records) {
          for (const b of records) {
            if (a.submitted < b.submitted && a.started !== null && b.started !== null && accessConflicts(a.access, b.access)) {
              expect(a.started).toBeLessThan(b.started);
            }
          }
        }
        expect([scheduler.running, scheduler.waiting]).toEqual([0, 0]);
      }),
      { numRuns: 80 },
    );
  });

  it("runs a batch of reads exactly maxConcurrency at a time", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.subarray(PATHS, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 20 }),
        async (maxConcurrency, readSets) => {
          const scheduler = new Scheduler({ maxConcurrency });
          const signal = new AbortController().signal;
          let active = 0;
          let maxActive = 0;
          await Promise.all(
            readSets.map((paths, i) =>
              scheduler.run(
                { callId: `r${i}`, agentId: "a", name: "read", args: {}, access: { reads: paths, writes: [] } },
                async () => {
                  active++;
                  maxActive = Math.max(maxActive, active);
                  await sleep(1);
                  active--;
                },
                signal,
              ),
            ),
          );
          expect(maxActive).toBe(Math.min(maxConcurrency, readSets.length));
        },
      ),
      { numRuns: 40 },
    );
  });
});
