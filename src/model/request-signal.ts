import { ModelError } from "../util/errors.js";

/**
 * One abort signal for an SDK request: the caller's abort and orca's own idle timeout both end it.
 * The idle clock runs only while orca waits on the server, so a consumer slow to pull the next event
 * never counts as the server's silence.
 */
export class RequestSignal {
  private readonly inner = new AbortController();
  private idleTimer: NodeJS.Timeout | undefined;
  private timedOut = false;
  private ended = false;
  private readonly onAbort = () => this.inner.abort(this.caller.reason);

  constructor(
    private readonly caller: AbortSignal,
    private readonly idleMs: number,
  ) {
    caller.addEventListener("abort", this.onAbort, { once: true });
  }

  /** What the SDK is given. */
  get signal(): AbortSignal {
    return this.inner.signal;
  }

  get aborted(): boolean {
    return this.caller.aborted;
  }

  get idleTimedOut(): boolean {
    return this.timedOut;
  }

  /** `source`'s items, with the idle clock running only while the next one is awaited. */
  async *watchIdle<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
    this.armIdle();
    try {
      for await (const item of source) {
        clearTimeout(this.idleTimer);
        yield item;
        this.armIdle();
      }
    } finally {
      clearTimeout(this.idleTimer);
    }
  }

  /**
   * After a stream ended: the SDK ends an aborted stream silently, as if it were complete, so a
   * cancel or an idle timeout is told here. A plain Error("idle") is classified with the context
   * (idleTimedOut) that says so.
   */
  throwIfEnded(): void {
    if (this.caller.aborted) throw new ModelError("aborted", "cancelled");
    if (this.timedOut) throw new Error("idle");
  }

  /** The response was read to its end: nothing is left to release. */
  finished(): void {
    this.ended = true;
  }

  /**
   * Also when the consumer stopped early: release the connection. A response read to its end has
   * released it already, and an abort then (a DOMException and every listener the SDK and undici
   * hung on the signal) was a noticeable part of a step's CPU.
   */
  close(): void {
    clearTimeout(this.idleTimer);
    this.caller.removeEventListener("abort", this.onAbort);
    if (!this.ended) this.inner.abort();
  }

  private armIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.timedOut = true;
      this.inner.abort();
    }, this.idleMs);
  }
}
