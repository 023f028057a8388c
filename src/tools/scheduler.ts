import PQueue from "p-queue";
import type { Access, EmitFn } from "../events/types.js";
import { normaliseAccess, PathIndex, type IndexHandle } from "./conflicts.js";

/**
 * The one queue every tool call of a session goes through. Calls are admitted in submission order
 * across all agents; a call waits only for the earlier, unfinished calls it conflicts with (see
 * conflicts.ts) and otherwise runs at once, bounded by `maxConcurrency`.
 */

export interface ScheduledCall {
  callId: string;
  agentId: string;
  parentId?: string;
  name: string;
  args: unknown;
  access: Access;
}

export class CancelledError extends Error {
  override readonly name = "CancelledError";
  constructor(message = "cancelled before it started") {
    super(message);
  }
}

export interface SchedulerCounts {
  running: number;
  waiting: number;
}

type State = "waiting" | "running" | "done" | "cancelled";

interface Entry {
  /** Submission order. */
  readonly seq: number;
  readonly call: ScheduledCall;
  readonly exclusive: boolean;
  readonly handles: IndexHandle<Entry>[];
  state: State;
  /** Earlier conflicting calls still unfinished. */
  blockers: number;
  /** Later calls that counted this one among their blockers. */
  waiters: Entry[] | null;
  /** Hands the call to the p-queue; set once the promise exists. */
  launch: () => void;
}

export class Scheduler {
  private readonly queue: PQueue;
  private readonly emit: EmitFn | undefined;
  private readonly index = new PathIndex<Entry>();
  /** Every unfinished call, in submission order: what an exclusive call waits for. */
  private readonly live = new Set<Entry>();
  private readonly liveExclusive = new Set<Entry>();
  /** Reused by admit() so the common call allocates no set of its own. */
  private readonly scratch = new Set<Entry>();
  private readonly listeners = new Set<(counts: SchedulerCounts) => void>();
  private runningCount = 0;
  private nextSeq = 0;
  private waitingCount = 0;

  constructor(opts: { maxConcurrency: number; emit?: EmitFn }) {
    if (!Number.isInteger(opts.maxConcurrency) || opts.maxConcurrency < 1) {
      throw new Error(`scheduler.max_concurrency must be a positive integer, got ${String(opts.maxConcurrency)}`);
    }
    this.queue = new PQueue({ concurrency: opts.maxConcurrency });
    this.emit = opts.emit;
  }

  get running(): number {
    return this.runningCount;
  }

  get waiting(): number {
    return this.waitingCount;
  }

  onChange(listener: (counts: SchedulerCounts) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Admits the call now, waits for earlier conflicting calls, then runs `task` under the
   * concurrency bound. Rejects with CancelledError (task never called) if `signal` aborts first;
   * once running, the task owns cancellation through the signal it is given, and the call keeps
   * its paths until the task settles, so an aborted write never overlaps the next one.
   */
  run<T>(call: ScheduledCall, task: (signal: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T> {
    if (signal.aborted) return Promise.reject(new CancelledError());
    const { entry, waitsFor } = this.admit(call);

    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        if (entry.state !== "waiting") return;
        this.unwatch(signal, onAbort);
        entry.state = "cancelled";
        this.waitingCount--;
        this.release(entry);
        this.changed();
        reject(new CancelledError());
      };

      entry.launch = () => {
        void this.queue.add(async () => {
          // A call cancelled while it sat in the p-queue has already been released.
          if (entry.state !== "waiting") return;
          // Released by a sibling's cancel in the same abort dispatch, before its own callback ran.
          if (signal.aborted) return onAbort();
          this.unwatch(signal, onAbort);
          entry.state = "running";
          this.waitingCount--;
          this.runningCount++;
          this.emit?.({ type: "tool_started", agentId: call.agentId, parentId: call.parentId, callId: call.callId, name: call.name });
          this.changed();
          try {
            resolve(await task(signal));
          } catch (error) {
            reject(error);
          } finally {
            entry.state = "done";
            this.runningCount--;
            this.release(entry);
            this.changed();
          }
        });
      };

      this.emit?.({
        type: "tool_queued",
        agentId: call.agentId,
        parentId: call.parentId,
        callId: call.callId,
        name: call.name,
        args: call.args,
        access: call.access,
        waitsFor,
      });
      this.changed();
      if (entry.blockers === 0) entry.launch();
      // Only a call that did not start at once needs to hear about a cancel.
      if (entry.state === "waiting") this.watch(signal, onAbort);
    });
  }

  private admit(call: ScheduledCall): { entry: Entry; waitsFor: string[] } {
    const access = normaliseAccess(call.access);
    const entry: Entry = {
      seq: this.nextSeq++,
      call,
      exclusive: access.exclusive,
      handles: [],
      state: "waiting",
      blockers: 0,
      waiters: null,
      launch: () => undefined,
    };
    // Conflicts are found before the entry is indexed, so it never finds itself.
    let ordered: Entry[];
    if (access.exclusive) {
      // The live set is already in submission order.
      ordered = [...this.live];
      this.liveExclusive.add(entry);
    } else {
      const found = this.scratch;
      for (const other of this.liveExclusive) found.add(other);
      for (const segs of access.writes) this.index.collect(segs, "write", found);
      for (const segs of access.reads) this.index.collect(segs, "read", found);
      for (const segs of access.commands) this.index.collect(segs, "command", found);
      for (const segs of access.writes) entry.handles.push(this.index.add(segs, "write", entry));
      for (const segs of access.reads) entry.handles.push(this.index.add(segs, "read", entry));
      for (const segs of access.commands) entry.handles.push(this.index.add(segs, "command", entry));
      ordered = found.size === 0 ? [] : [...found];
      found.clear();
      if (ordered.length > 1) ordered.sort((a, b) => a.seq - b.seq);
    }
    const waitsFor: string[] = new Array(ordered.length);
    for (let i = 0; i < ordered.length; i++) {
      const blocker = ordered[i];
      (blocker.waiters ??= []).push(entry);
      waitsFor[i] = blocker.call.callId;
    }
    entry.blockers = ordered.length;
    this.live.add(entry);
    this.waitingCount++;
    return { entry, waitsFor };
  }

  /** Drops a finished or cancelled call and starts whoever was waiting only for it. */
  private release(entry: Entry): void {
    this.live.delete(entry);
    if (entry.exclusive) this.liveExclusive.delete(entry);
    for (const handle of entry.handles) this.index.remove(handle, entry);
    const waiters = entry.waiters;
    entry.waiters = null;
    if (!waiters) return;
    for (const waiter of waiters) {
      if (waiter.state !== "waiting") continue;
      waiter.blockers--;
      if (waiter.blockers === 0) waiter.launch();
    }
  }

  /**
   * One abort listener per signal, however many calls wait on it: an agent's signal is shared by
   * all its calls, and Node warns about a possible leak past ten listeners on one signal.
   */
  private readonly watchers = new WeakMap<AbortSignal, { callbacks: Set<() => void>; listener: () => void }>();

  private watch(signal: AbortSignal, callback: () => void): void {
    let watcher = this.watchers.get(signal);
    if (!watcher) {
      const callbacks = new Set<() => void>();
      const listener = (): void => {
        for (const cb of [...callbacks]) cb();
      };
      watcher = { callbacks, listener };
      this.watchers.set(signal, watcher);
      signal.addEventListener("abort", listener, { once: true });
    }
    watcher.callbacks.add(callback);
  }

  private unwatch(signal: AbortSignal, callback: () => void): void {
    const watcher = this.watchers.get(signal);
    if (!watcher) return;
    watcher.callbacks.delete(callback);
    if (watcher.callbacks.size === 0) {
      signal.removeEventListener("abort", watcher.listener);
      this.watchers.delete(signal);
    }
  }

  private changed(): void {
    if (this.listeners.size === 0) return;
    const counts = { running: this.runningCount, waiting: this.waitingCount };
    for (const listener of this.listeners) {
      try {
        listener(counts);
      } catch {
        // A status-bar bug must never stall tool calls.
      }
    }
  }
}
