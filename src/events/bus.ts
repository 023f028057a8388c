import type { EmitFn, EventInput, OrcaEvent } from "./types.js";

export type Listener = (event: OrcaEvent) => void;

/**
 * The session's event stream. Listeners run synchronously in subscription order, so the log
 * writer (subscribed first) has appended an event before any other consumer sees it.
 */
export class EventBus {
  private listeners: Listener[] = [];

  constructor(readonly sessionId: string) {}

  readonly emit: EmitFn = (input: EventInput) => {
    const event = { ...input, ts: Date.now(), sessionId: this.sessionId } as OrcaEvent;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A consumer's bug must never break the core; consumers report their own failures.
      }
    }
  };

  subscribe(listener: Listener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }
}
