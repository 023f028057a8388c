import type { EmitFn, EventInput, OrcaEvent } from "./types.js";

export type Listener = (event: OrcaEvent) => void;

/**
 * The session's event stream. Listeners run synchronously in subscription order, so the log
 * writer (subscribed first) has appended an event before any other consumer sees it.
 *
 * A listener that throws never breaks the core nor the other listeners, and is never silent: its
 * failure becomes an `error` event (where: "listener"), once per listener, so a consumer's bug
 * shows in the log and on the user's screen instead of vanishing.
 */
export class EventBus {
  private listeners: Listener[] = [];
  private readonly reported = new WeakSet<Listener>();
  /** Set while a listener's failure is being reported: a failure in that report is not reported again. */
  private reporting = false;

  constructor(readonly sessionId: string) {}

  readonly emit: EmitFn = (input: EventInput) => {
    // Copied, then stamped, rather than `{ ...input, ts, sessionId }`: on Node 20's V8 a spread
    // that adds properties, at a site that sees many shapes (every event type passes here), made
    // a new hidden class for every event (~1 µs each; every consumer's reads of it then went
    // megamorphic). The same keys in the same order; the caller's object is not touched.
    const event = Object.assign({}, input) as OrcaEvent & { ts: number; sessionId: string };
    event.ts = Date.now();
    event.sessionId = this.sessionId;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.report(listener, event, error);
      }
    }
  };

  subscribe(listener: Listener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  private report(listener: Listener, event: OrcaEvent, error: unknown): void {
    if (this.reporting || this.reported.has(listener)) return;
    this.reported.add(listener);
    const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
    this.reporting = true;
    try {
      this.emit({ type: "error", agentId: event.agentId, where: "listener", message: `an event consumer failed on ${event.type}: ${message}` });
    } finally {
      this.reporting = false;
    }
  }
}
