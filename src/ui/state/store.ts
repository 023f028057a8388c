import type { EventBus } from "../../events/bus.js";
import type { OrcaEvent } from "../../events/types.js";
import type { McpServerState, SchedulerCounts } from "../../orchestrator/types.js";
import { coalesce } from "./coalesce.js";
import { FrameCost } from "./frame-cost.js";
import { mainThreadCpu } from "./main-thread-cpu.js";
import { initialState, reduce } from "./reducer.js";
import { replayState, notice } from "./replay.js";
import type { DashboardState } from "./types.js";

export { coalesce };

export interface StoreOptions {
  rootAgentId: string;
  /** Minimum time between two flushes; ~21.7 a second by default. */
  flushIntervalMs?: number;
  /** Share of one core redraws may take before flushes are spaced out (default 0.2). */
  frameBudget?: number;
  maxLines?: number;
}

/**
 * Streamed text needs ~20 frames a second to read as smooth (an Ink app's usual rate, and the
 * render bench's floor's); more costs CPU for nothing a reader sees. Flushes are paced from when
 * each was due, not from when its timer fired, so a timer late on a busy machine does not lower
 * the rate: 46 ms apart is ~21.7 frames a second, a little over 20 so a slow frame now and then
 * does not take the rate under it (it was 42, ~24 a second: CPU for frames no reader needs). 48
 * (~20.8) saved no CPU beyond the run-to-run spread and let single runs fall to 19.6 a second at
 * a load average of 15.
 */
const MIN_INTERVAL_MS = 46;
/**
 * The share of a core frames may take before they are spaced out. At 8 streaming panes on a
 * 160×48 terminal a frame costs ~4–7 ms of CPU, under the 9.2 ms this allows at the rate above;
 * a frame that costs more (a bigger terminal, 32 panes at ~8–13 ms) is drawn less often instead
 * of taking more of the machine, down to ~15 frames a second at 13 ms (bench fanout's 32 panes
 * drew ~12 a second at 15 %).
 */
const FRAME_BUDGET = 0.2;
/** Even when frames are very slow, the screen follows at least a few times a second. */
const MAX_INTERVAL_MS = 250;
/**
 * Holds the dashboard state outside React. Events are queued as they arrive and folded in at
 * most once per interval, so a burst of text deltas from eight agents costs one React update,
 * not hundreds. Shaped for `useSyncExternalStore`.
 *
 * The interval adapts to what a redraw costs: Ink redraws the whole screen on every update, so
 * on a big terminal full of streaming panes each frame is expensive. The store takes the CPU time
 * of each flush up to the next macrotask (React's commit and Ink's write run in between) and spaces flushes so
 * that redrawing takes about `frameBudget` of one core — at most ~24 flushes a second when
 * frames are cheap, fewer when they are not.
 */
export class DashboardStore {
  private state: DashboardState;
  private queue: OrcaEvent[] = [];
  private pendingCounts: SchedulerCounts | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastFlush = 0;
  /** When the pending flush is due (its timer may fire later). */
  private due: number | undefined;
  private listeners = new Set<() => void>();
  private readonly minInterval: number;
  private readonly budget: number;
  /** CPU time of one flush and the render it causes. */
  private readonly frameCost: FrameCost;
  private readonly cpu = mainThreadCpu();
  /**
   * One flush in this many is timed. Timing one is two clock reads and a macrotask after the frame:
   * with Node 24's thread clock that was ~2.4 % of the main thread in bench render (`perf`), and a
   * read of /proc on Node 20 costs more (~15–50 µs on a busy VM). Four is still ~5 samples a
   * second at the full rate, so the estimate follows a lasting change in a second or so.
   */
  private readonly timedEvery = 4;
  private flushes = 0;

  constructor(opts: StoreOptions) {
    this.state = initialState(opts.rootAgentId, opts.maxLines);
    this.minInterval = opts.flushIntervalMs ?? MIN_INTERVAL_MS;
    this.budget = opts.frameBudget ?? FRAME_BUDGET;
    // Until frames are timed, one is taken to cost what the budget allows at the fastest rate: the
    // first flush draws every pane for the first time (React mounts them, V8 has compiled nothing
    // yet), and taken at face value it held the next frames up to 250 ms apart for seconds.
    this.frameCost = new FrameCost(this.minInterval * this.budget);
  }

  /**
   * Starts from a logged session's events instead of an empty screen. Call it before attaching
   * to the live bus: the events are folded straight into the state, never re-emitted (the bus
   * feeds the log, so re-emitting would write them twice).
   */
  replay(events: readonly OrcaEvent[]): void {
    const replayed = replayState(this.state.rootAgentId, events, this.state.maxLines);
    this.state = { ...replayed, scheduler: this.state.scheduler };
    for (const listener of this.listeners) listener();
  }

  /** Start-up notices (settings that were skipped, files that failed to load) for the transcript. */
  notices(lines: readonly string[]): void {
    if (!lines.length) return;
    for (const line of lines) this.state = notice(this.state, line, Date.now());
    for (const listener of this.listeners) listener();
  }

  /** MCP servers as the session knows them before the dashboard listened (a failure is then a notice too). */
  mcpSnapshot(servers: readonly McpServerState[]): void {
    if (!servers.length) return;
    const ts = Date.now();
    for (const s of servers) this.state = reduce(this.state, { type: "mcp_status", ts, sessionId: "", agentId: this.state.rootAgentId, ...s });
    for (const listener of this.listeners) listener();
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
    this.queue.push(event.type === "user_message" ? this.shown(event) : event);
    this.schedule();
  }

  /** Texts sent whole and shown shorter (a long paste as its token): full → shown. */
  private showing: { full: string; shown: string }[] = [];

  /** The next message holding `full` shows `shown` in its place (the log keeps the whole text). */
  showAs(full: string, shown: string): void {
    this.showing = [...this.showing.slice(-7), { full, shown }];
  }

  private shown(event: Extract<OrcaEvent, { type: "user_message" }>): OrcaEvent {
    const i = this.showing.findIndex((s) => event.text.includes(s.full));
    if (i < 0) return event;
    const { full, shown } = this.showing[i]!;
    this.showing = this.showing.filter((_, j) => j !== i);
    // A copy: the same event object went to the log and to other subscribers.
    return { ...event, text: event.text.replace(full, () => shown) };
  }

  private schedule(): void {
    if (this.timer) return;
    const now = Date.now();
    const due = Math.max(now, this.lastFlush + this.interval);
    this.due = due;
    this.timer = setTimeout(() => {
      // It has fired: flush need not clear it (clearTimeout unlinks it from Node's timer lists).
      this.timer = undefined;
      this.flush();
    }, due - now);
  }

  /** Applies every queued event and notifies subscribers once. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    // The next flush is due an interval after this one was due: a timer that fired late does not
    // push every later frame back (which lowered the rate on a busy machine).
    const now = Date.now();
    const due = this.due;
    this.due = undefined;
    this.lastFlush = due !== undefined && now >= due && now - due < this.interval ? due : now;
    if (this.queue.length === 0 && !this.pendingCounts) return;
    const events = coalesce(this.queue);
    this.queue = [];
    let next = this.state;
    for (const event of events) next = reduce(next, event);
    const counts = this.pendingCounts;
    this.pendingCounts = undefined;
    if (counts && (counts.running !== next.scheduler.running || counts.waiting !== next.scheduler.waiting)) next = { ...next, scheduler: counts };
    // Nothing visible changed (e.g. only the scheduler reported the counts it had): no render.
    if (next === this.state) return;
    this.state = next;
    if (this.flushes++ % this.timedEvery !== 0) {
      for (const listener of this.listeners) listener();
      return;
    }
    const started = this.cpu.now();
    for (const listener of this.listeners) listener();
    // React renders and Ink writes in the microtasks after the listeners; a macrotask runs after.
    // The budget is a share of a core, so the frame is timed in CPU time: on a machine shared with
    // other work its wall time also holds the waits for a core, and spaced the frames out to a third
    // of the rate the budget allows while the dashboard used less than it. The main thread's time
    // (main-thread-cpu.ts): V8's compiler and GC threads run beside the frame, not in it.
    setImmediate(() => this.frameCost.record(this.cpu.now() - started));
  }

  /** The time between flushes now: the minimum, or longer when frames are expensive. */
  get interval(): number {
    return Math.min(MAX_INTERVAL_MS, Math.max(this.minInterval, this.frameCost.estimate / this.budget));
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
