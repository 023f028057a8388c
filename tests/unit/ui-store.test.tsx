import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import type { OrcaEvent } from "../../src/events/types.js";
import { reduce, initialState } from "../../src/ui/state/reducer.js";
import { FrameCost } from "../../src/ui/state/frame-cost.js";
import { coalesce, DashboardStore } from "../../src/ui/state/store.js";
import { wrapPlain } from "../../src/ui/wrap.js";

const base = { ts: 1, sessionId: "s" };
const delta = (agentId: string, text: string, type: "text_delta" | "thinking_delta" = "text_delta"): OrcaEvent => ({ ...base, type, agentId, text });
const texts = (events: OrcaEvent[]) => events.map((e) => ("text" in e ? `${e.agentId}:${e.type === "thinking_delta" ? "t:" : ""}${e.text}` : `${e.agentId}:${e.type}`));

describe("store delta coalescing", () => {
  it("folds each agent's deltas into one, across other agents' deltas", () => {
    const out = coalesce([delta("a", "1 "), delta("b", "x"), delta("a", "2\n"), delta("b", "y"), delta("a", "3")]);
    expect(texts(out)).toEqual(["a:1 2\n3", "b:xy"]);
  });

  it("keeps an agent's order around its other events and between text and thinking", () => {
    const tool: OrcaEvent = { ...base, type: "tool_started", agentId: "a", callId: "c", name: "grep" };
    const out = coalesce([delta("a", "1"), delta("b", "x"), tool, delta("a", "2"), delta("b", "y"), delta("a", "t", "thinking_delta"), delta("a", "3")]);
    expect(texts(out)).toEqual(["a:1", "b:xy", "a:tool_started", "a:2", "a:t:t", "a:3"]);
  });

  it("gives each pane the same transcript as reducing the deltas one by one", () => {
    const event = fc.record({ agent: fc.constantFrom("a", "b"), kind: fc.constantFrom("text_delta", "thinking_delta", "model_request"), text: fc.constantFrom("w ", "x\n", "yz", "\n", "") });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (list) => {
        const events: OrcaEvent[] = list.map((e, i) =>
          e.kind === "model_request" ? { ...base, type: "model_request", agentId: e.agent, step: i, messageCount: 1, tokenEstimate: 1 } : delta(e.agent, e.text, e.kind as "text_delta"),
        );
        const one = events.reduce(reduce, initialState("root"));
        const folded = coalesce(events).reduce(reduce, initialState("root"));
        for (const id of ["a", "b"]) {
          const lines = (s: typeof one) => (s.agents[id]?.entries ?? []).map((e) => [e.kind, "text" in e ? e.text : ""]);
          expect(lines(folded)).toEqual(lines(one));
        }
      }),
    );
  });
});

describe("DashboardStore flushes", () => {
  it("does not notify when a flush changes nothing, and notifies once for a burst", () => {
    let counts = { running: 0, waiting: 0 };
    let onChange: ((c: typeof counts) => void) | undefined;
    const store = new DashboardStore({ rootAgentId: "root" });
    store.attachScheduler({ schedulerCounts: () => counts, onSchedulerChange: (l) => ((onChange = l), () => undefined) });
    let notified = 0;
    store.subscribe(() => notified++);
    onChange?.({ ...counts });
    store.flush();
    expect(notified).toBe(0);
    counts = { running: 1, waiting: 0 };
    onChange?.(counts);
    for (let i = 0; i < 50; i++) store.push(delta("a", `t${i} `));
    store.flush();
    expect(notified).toBe(1);
    expect(store.getSnapshot().scheduler.running).toBe(1);
    store.dispose();
  });

  it("paces flushes from when each was due, so a timer that fires late does not lower the rate", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    // The wall clock apart from the timers' own, so a timer can fire late.
    let clock = 1_000;
    const now = vi.spyOn(Date, "now").mockImplementation(() => clock);
    try {
      const store = new DashboardStore({ rootAgentId: "root", flushIntervalMs: 40 });
      let flushes = 0;
      store.subscribe(() => flushes++);
      store.push(delta("a", "one "));
      vi.advanceTimersByTime(0);
      expect(flushes).toBe(1);
      // The next flush is due 40 ms on; its timer fires 12 ms late (a busy machine).
      store.push(delta("a", "two "));
      clock += 52;
      vi.advanceTimersByTime(40);
      expect(flushes).toBe(2);
      // The one after is due 40 ms after the last was due: 28 ms from now, not 40.
      store.push(delta("a", "three "));
      vi.advanceTimersByTime(27);
      expect(flushes).toBe(2);
      vi.advanceTimersByTime(1);
      expect(flushes).toBe(3);
      store.dispose();
    } finally {
      now.mockRestore();
      vi.useRealTimers();
    }
  });

  it("spaces flushes no closer than the minimum interval", () => {
    const store = new DashboardStore({ rootAgentId: "root", flushIntervalMs: 40 });
    expect(store.interval).toBe(40);
    store.dispose();
  });
});

describe("the frame cost the store spaces flushes by", () => {
  it("is moved little by one stall between steady frames, and follows a lasting rise within a few frames", () => {
    const cost = new FrameCost();
    for (let i = 0; i < 20; i++) cost.record(4);
    cost.record(40);
    // One 40 ms stall: the estimate rises to 5.6 ms, not 11.2 (flushes 70 ms apart at an 8 % budget, not 140).
    expect(cost.estimate).toBeCloseTo(5.6, 5);
    cost.record(4);
    expect(cost.estimate).toBeLessThan(5.6);
    for (let i = 0; i < 10; i++) cost.record(40);
    expect(cost.estimate).toBeGreaterThan(30);
  });
});

describe("wrapPlain", () => {
  it("breaks at the last space that fits and hard-breaks long words", () => {
    expect(wrapPlain("the quick brown fox", 9)).toEqual(["the quick", "brown fox"]);
    expect(wrapPlain("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
    expect(wrapPlain("short", 10)).toEqual(["short"]);
  });

  it("never returns a row wider than the width and loses no characters but the break spaces", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "b", " ", "c") , maxLength: 200 }), fc.integer({ min: 1, max: 30 }), (text, width) => {
        const rows = wrapPlain(text, width);
        for (const row of rows) expect(row.length).toBeLessThanOrEqual(width);
        expect(rows.join("").replace(/ /g, "")).toBe(text.replace(/ /g, ""));
      }),
    );
  });
});
