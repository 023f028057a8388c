import { setMaxListeners } from "node:events";
import { Cancelled, type OrcaError } from "./errors.js";

const CHILDREN_LIMIT = 1_000;

/**
 * A node of the cancellation tree: aborting a scope aborts every scope below it, never above.
 * session → run → agent → (model request, tool call, child process via the signal they receive).
 */
export class CancelScope {
  private readonly controller = new AbortController();
  private readonly detach: () => void;

  constructor(parent?: AbortSignal) {
    // A scope legitimately has many children at once (parallel tool calls, sub-agents), each
    // listening once and detaching when done; Node's default warning at 11 would be noise.
    setMaxListeners(CHILDREN_LIMIT, this.controller.signal);
    if (!parent) {
      this.detach = () => {};
      return;
    }
    if (parent.aborted) {
      this.controller.abort(parent.reason);
      this.detach = () => {};
      return;
    }
    const onAbort = () => this.controller.abort(parent.reason);
    parent.addEventListener("abort", onAbort, { once: true });
    this.detach = () => parent.removeEventListener("abort", onAbort);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** `reason` says why (read back with abortReason): a BudgetExceeded, a hook's stop; default a user's cancel. */
  cancel(reason: OrcaError = new Cancelled()): void {
    this.controller.abort(reason);
  }

  /** Stops listening to the parent, so long-lived parents do not collect dead children. */
  dispose(): void {
    this.detach();
  }
}
