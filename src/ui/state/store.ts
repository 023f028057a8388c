import type { EventBus } from "../../events/bus.js";
import type { OrcaEvent } from "../../events/types.js";
import { initialState, reduce } from "./reducer.js";
import type { SchedulerCounts } from "../../orchestrator/types.js";
import type { DashboardState } from "./types.js";

export interface StoreOptions {
  rootAgentId: string;
  /** Minimum time between two flushes; ~30 a second by default. */
  flushIntervalMs?: number;
  maxLines?: number;
}

/**
 * Holds the dashboard state outside React. Events are queued as they arrive and folded in at
 * most once per interval, so a burst of text deltas from eight agents costs one React update,
 * not hundreds. Shaped for `useSyncExternalStore`.
 */
export class DashboardStore {
  private state: DashboardState;
  private queue: OrcaEvent[] = [];
  private pendingCounts: SchedulerCounts | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastFlush = 0;
  private listeners = new Set<() => void>();
  private readonly interval: number;

  constructor(opts: StoreOptions) {
    this.state = initialState(opts.rootAgentId, opts.maxLines);
    this.interval = opts.flushIntervalMs ?? 33;
  }

  /** Subscribes to a bus; returns the unsubscribe function. */
  attach(bus: EventBus): () => void {
    return bus.subscribe((event) => this.push(event));
  }

  /** Follows the scheduler's counts; they are folded in with the next flush. */
  attachScheduler(source: { schedulerCounts(): SchedulerCounts; onSchedulerChange(l: (c: SchedulerCounts) => void): () => void }): () => void {
    this.state = { ...this.state, scheduler: source.schedulerCounts() };
    return source.onSchedulerChange((counts) => {
      this.pendingCounts = counts;
      this.schedule();
    });
  }

  push(event: OrcaEvent): void {
    this.queue.push(event);
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.lastFlush + this.interval - Date.now());
    this.timer = setTimeout(() => this.flush(), wait);
  }

  /** Applies every queued event and notifies subscribers once. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.lastFlush = Date.now();
    if (this.queue.length === 0 && !this.pendingCounts) return;
    const events = this.queue;
    this.queue = [];
    let next = this.state;
    for (const event of events) next = reduce(next, event);
    if (this.pendingCounts) next = { ...next, scheduler: this.pendingCounts };
    this.pendingCounts = undefined;
    this.state = next;
    for (const listener of this.listeners) listener();
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getSnapshot = (): DashboardState => this.state;

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.queue = [];
    this.listeners.clear();
  }
}
