import { describe, expect, it } from "vitest";
import type { Access, EventInput } from "../../src/events/types.js";
import { CancelledError, Scheduler, type ScheduledCall } from "../../src/tools/scheduler.js";

interface Gate {
  promise: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

function reads(...paths: string[]): Access {
  return { reads: paths, writes: [] };
}
function writes(...paths: string[]): Access {
  return { reads: [], writes: paths };
}

/** Runs calls whose tasks block on a gate, and records which have started. */
function harness(maxConcurrency = 8) {
  const events: EventInput[] = [];
  const scheduler = new Scheduler({ maxConcurrency, emit: (e) => events.push(e) });
  const started: string[] = [];
  const gates = new Map<string, Gate>();
  const never = new AbortController().signal;
  let n = 0;
  function submit(access: Access, opts: { id?: string; signal?: AbortSignal; agentId?: string; parentId?: string } = {}) {
    const callId = opts.id ?? `c${++n}`;
    const g = gate();
    gates.set(callId, g);
    const call: ScheduledCall = { callId, agentId: opts.agentId ?? "a1", parentId: opts.parentId, name: "t", args: {}, access };
    const result = scheduler.run(
      call,
      async () => {
        started.push(callId);
        await g.promise;
        return callId;
      },
      opts.signal ?? never,
    );
    return { callId, result, finish: () => g.open() };
  }
  const queued = (id: string) => events.find((e) => e.type === "tool_queued" && e.callId === id);
  return { scheduler, events, started, submit, queued };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("Scheduler", () => {
  it("serialises two writes to the same path and reports what the second waits for", async () => {
    const h = harness();
    const w1 = h.submit(writes("/ws/a.ts"));
    const w2 = h.submit(writes("/ws/a.ts"));
    await flush();
    expect(h.started).toEqual([w1.callId]);
    expect(h.queued(w2.callId)).toMatchObject({ waitsFor: [w1.callId] });
    w1.finish();
    await w1.result;
    await flush();
    expect(h.started).toEqual([w1.callId, w2.callId]);
    w2.finish();
    await expect(w2.result).resolves.toBe(w2.callId);
  });

  it("runs reads of the same path together", async () => {
    const h = harness();
    const r1 = h.submit(reads("/ws/a.ts"));
    const r2 = h.submit(reads("/ws/a.ts"));
    await flush();
    expect(h.started).toEqual([r1.callId, r2.callId]);
    expect(h.queued(r2.callId)).toMatchObject({ waitsFor: [] });
    r1.finish();
    r2.finish();
    await Promise.all([r1.result, r2.result]);
  });

  it("orders a read after an earlier write and a write after an earlier read", async () => {
    const h = harness();
    const r1 = h.submit(reads("/ws/a"));
    const w = h.submit(writes("/ws/a"));
    const r2 = h.submit(reads("/ws/a"));
    await flush();
    expect(h.started).toEqual([r1.callId]);
    // The later read may not jump the queued write: conflicting calls start in submission order.
    expect(h.queued(r2.callId)).toMatchObject({ waitsFor: [w.callId] });
    r1.finish();
    await flush();
    expect(h.started).toEqual([r1.callId, w.callId]);
    w.finish();
    await flush();
    expect(h.started).toEqual([r1.callId, w.callId, r2.callId]);
    r2.finish();
    await Promise.all([r1.result, w.result, r2.result]);
  });

  it("lets a directory cover everything below it, on whole path segments", async () => {
    const h = harness();
    const dir = h.submit(writes("/ws/a/b"));
    const below = h.submit(reads("/ws/a/b/c/d.ts"));
    const sibling = h.submit(writes("/ws/a/bc"));
    const above = h.submit(reads("/ws/a"));
    await flush();
    expect(h.started).toEqual([dir.callId, sibling.callId]);
    expect(h.queued(below.callId)).toMatchObject({ waitsFor: [dir.callId] });
    expect(h.queued(above.callId)).toMatchObject({ waitsFor: [dir.callId, sibling.callId] });
    for (const c of [dir, below, sibling, above]) c.finish();
    await Promise.all([dir.result, below.result, sibling.result, above.result]);
  });

  it("waits only for conflicting calls, not for what those wait for", async () => {
    const h = harness();
    const dir = h.submit(writes("/ws/src"));
    const x = h.submit(writes("/ws/src/x.ts"));
    const y = h.submit(writes("/ws/src/y.ts"));
    expect(h.queued(x.callId)).toMatchObject({ waitsFor: [dir.callId] });
    expect(h.queued(y.callId)).toMatchObject({ waitsFor: [dir.callId] });
    dir.finish();
    await flush();
    expect(h.started).toEqual([dir.callId, x.callId, y.callId]);
    x.finish();
    y.finish();
    await Promise.all([dir.result, x.result, y.result]);
  });

  it("normalises paths before comparing them", async () => {
    const h = harness();
    const w1 = h.submit(writes("/ws/src/../a.ts"));
    const w2 = h.submit(writes("/ws//a.ts/"));
    expect(h.queued(w2.callId)).toMatchObject({ waitsFor: [w1.callId] });
    w1.finish();
    w2.finish();
    await Promise.all([w1.result, w2.result]);
  });

  it("compares pseudo-paths like mcp:server on their own", async () => {
    const h = harness();
    const w = h.submit(writes("mcp:github"));
    const r = h.submit(reads("mcp:github"));
    const other = h.submit(writes("mcp:memory"));
    const file = h.submit(writes("/ws/mcp:github"));
    const root = h.submit(writes("/"));
    await flush();
    expect(h.queued(r.callId)).toMatchObject({ waitsFor: [w.callId] });
    expect(h.queued(other.callId)).toMatchObject({ waitsFor: [] });
    expect(h.queued(file.callId)).toMatchObject({ waitsFor: [] });
    // The filesystem root covers every file path but no pseudo-path.
    expect(h.queued(root.callId)).toMatchObject({ waitsFor: [file.callId] });
    expect(h.started).toEqual([w.callId, other.callId, file.callId]);
    for (const c of [w, r, other, file, root]) c.finish();
    await Promise.all([w.result, r.result, other.result, file.result, root.result]);
  });

  it("makes an exclusive call conflict with everything, both ways", async () => {
    const h = harness();
    const r = h.submit(reads("/ws/a"));
    const ex = h.submit("exclusive");
    const mcp = h.submit(reads("mcp:x"));
    const ex2 = h.submit("exclusive");
    await flush();
    expect(h.queued(ex.callId)).toMatchObject({ waitsFor: [r.callId] });
    expect(h.queued(mcp.callId)).toMatchObject({ waitsFor: [ex.callId] });
    expect(h.queued(ex2.callId)).toMatchObject({ waitsFor: [r.callId, ex.callId, mcp.callId] });
    expect(h.started).toEqual([r.callId]);
    r.finish();
    await flush();
    expect(h.started).toEqual([r.callId, ex.callId]);
    ex.finish();
    await flush();
    expect(h.started).toEqual([r.callId, ex.callId, mcp.callId]);
    mcp.finish();
    await flush();
    expect(h.started).toEqual([r.callId, ex.callId, mcp.callId, ex2.callId]);
    ex2.finish();
    await Promise.all([r.result, ex.result, mcp.result, ex2.result]);
  });

  it("bounds non-conflicting calls by maxConcurrency and keeps the counts", async () => {
    const h = harness(2);
    const seen: Array<{ running: number; waiting: number }> = [];
    h.scheduler.onChange((c) => seen.push(c));
    const calls = [1, 2, 3, 4].map((i) => h.submit(reads(`/ws/f${i}`)));
    await flush();
    expect(h.started).toEqual([calls[0].callId, calls[1].callId]);
    expect([h.scheduler.running, h.scheduler.waiting]).toEqual([2, 2]);
    calls[0].finish();
    await calls[0].result;
    await flush();
    expect(h.started).toHaveLength(3);
    expect([h.scheduler.running, h.scheduler.waiting]).toEqual([2, 1]);
    for (const c of calls) c.finish();
    await Promise.all(calls.map((c) => c.result));
    expect([h.scheduler.running, h.scheduler.waiting]).toEqual([0, 0]);
    expect(seen.at(-1)).toEqual({ running: 0, waiting: 0 });
    expect(Math.max(...seen.map((c) => c.running))).toBe(2);
  });

  it("removes a cancelled waiting call without running it and unblocks its waiters", async () => {
    const h = harness();
    const w1 = h.submit(writes("/ws/a"));
    const ac = new AbortController();
    const w2 = h.submit(writes("/ws/a", "/ws/b"), { signal: ac.signal });
    const r = h.submit(reads("/ws/b"));
    expect(h.queued(r.callId)).toMatchObject({ waitsFor: [w2.callId] });
    ac.abort();
    await expect(w2.result).rejects.toBeInstanceOf(CancelledError);
    await flush();
    // The read of b waited only for the cancelled call, so it runs while w1 still holds a.
    expect(h.started).toEqual([w1.callId, r.callId]);
    expect(h.scheduler.waiting).toBe(0);
    w1.finish();
    r.finish();
    await Promise.all([w1.result, r.result]);
    expect(h.started).not.toContain(w2.callId);
  });

  it("cancels a call that is ready but waiting for a concurrency slot", async () => {
    const h = harness(1);
    const first = h.submit(reads("/ws/a"));
    const ac = new AbortController();
    const second = h.submit(reads("/ws/b"), { signal: ac.signal });
    const third = h.submit(reads("/ws/c"));
    ac.abort();
    await expect(second.result).rejects.toBeInstanceOf(CancelledError);
    first.finish();
    await flush();
    expect(h.started).toEqual([first.callId, third.callId]);
    third.finish();
    await Promise.all([first.result, third.result]);
  });

  it("rejects a call whose signal is already aborted without admitting it", async () => {
    const h = harness();
    const ac = new AbortController();
    ac.abort();
    const c = h.submit(writes("/ws/a"), { signal: ac.signal });
    await expect(c.result).rejects.toBeInstanceOf(CancelledError);
    expect(h.events).toEqual([]);
    const next = h.submit(writes("/ws/a"));
    expect(h.queued(next.callId)).toMatchObject({ waitsFor: [] });
    next.finish();
    await next.result;
  });

  it("passes the signal to a running task, which keeps its paths until it settles", async () => {
    const scheduler = new Scheduler({ maxConcurrency: 4 });
    const ac = new AbortController();
    const stopped = gate();
    let sawAbort = false;
    const running = scheduler.run(
      { callId: "w1", agentId: "a", name: "t", args: {}, access: writes("/ws/a") },
      async (signal) => {
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        sawAbort = signal.aborted;
        await stopped.promise;
        return "stopped";
      },
      ac.signal,
    );
    let secondStarted = false;
    const second = scheduler.run(
      { callId: "w2", agentId: "b", name: "t", args: {}, access: writes("/ws/a") },
      async () => {
        secondStarted = true;
        return "second";
      },
      new AbortController().signal,
    );
    await flush();
    ac.abort();
    await flush();
    expect(sawAbort).toBe(true);
    expect(secondStarted).toBe(false);
    stopped.open();
    await expect(running).resolves.toBe("stopped");
    await expect(second).resolves.toBe("second");
  });

  it("never lets a failing task block later calls", async () => {
    const scheduler = new Scheduler({ maxConcurrency: 2 });
    const signal = new AbortController().signal;
    const call = (id: string): ScheduledCall => ({ callId: id, agentId: "a", name: "t", args: {}, access: writes("/ws/a") });
    const boom = scheduler.run(call("1"), async () => {
      throw new Error("boom");
    }, signal);
    const sync = scheduler.run(call("2"), () => {
      throw new Error("sync boom");
    }, signal);
    const after = scheduler.run(call("3"), async () => "ok", signal);
    await expect(boom).rejects.toThrow("boom");
    await expect(sync).rejects.toThrow("sync boom");
    await expect(after).resolves.toBe("ok");
    expect([scheduler.running, scheduler.waiting]).toEqual([0, 0]);
  });

  it("emits tool_queued and tool_started with the agent and parent ids", async () => {
    const h = harness();
    const c = h.submit(writes("/ws/a"), { id: "call-1", agentId: "editor#1", parentId: "coordinator" });
    c.finish();
    await c.result;
    expect(h.events).toEqual([
      {
        type: "tool_queued",
        agentId: "editor#1",
        parentId: "coordinator",
        callId: "call-1",
        name: "t",
        args: {},
        access: writes("/ws/a"),
        waitsFor: [],
      },
      { type: "tool_started", agentId: "editor#1", parentId: "coordinator", callId: "call-1", name: "t" },
    ]);
  });

  it("refuses a maxConcurrency below 1", () => {
    expect(() => new Scheduler({ maxConcurrency: 0 })).toThrow(/max_concurrency/);
  });
});

describe("Scheduler cancellation through a shared signal", () => {
  it("cancels every waiting call of an agent, even ones waiting on each other, without running any", async () => {
    const h = harness(8);
    const blocker = h.submit(writes("/ws/a"), { agentId: "other" });
    const agent = new AbortController();
    // Twelve chained writes on one signal: more listeners than Node allows without a leak warning.
    const first = h.submit(writes("/ws/a", "/ws/b"), { signal: agent.signal });
    const chain = [first, ...Array.from({ length: 12 }, () => h.submit(writes("/ws/a"), { signal: agent.signal }))];
    // These wait only for calls of the same agent: cancelling `first` frees them before their own cancel.
    chain.push(h.submit(writes("/ws/b"), { signal: agent.signal }));
    chain.push(h.submit(reads("/ws/b"), { signal: agent.signal }));
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      agent.abort();
      const outcomes = await Promise.allSettled(chain.map((c) => c.result));
      expect(outcomes.every((o) => o.status === "rejected" && o.reason instanceof CancelledError)).toBe(true);
      await flush();
      expect(warnings).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
    expect(h.started).toEqual([blocker.callId]);
    const after = h.submit(writes("/ws/a"));
    expect(h.queued(after.callId)).toMatchObject({ waitsFor: [blocker.callId] });
    blocker.finish();
    after.finish();
    await Promise.all([blocker.result, after.result]);
    expect(h.started).toEqual([blocker.callId, after.callId]);
  });
});
