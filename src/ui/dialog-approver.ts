import type { Approver, PermissionAnswer, PermissionRequest } from "../tools/approver.js";

export interface PendingPermission {
  /** Unique per request, even when two agents reuse a model call id. */
  readonly id: number;
  readonly request: PermissionRequest;
}

interface Waiter extends PendingPermission {
  resolve(answer: PermissionAnswer): void;
  cleanup(): void;
}

/**
 * Asks the human through the dashboard. Requests from parallel sub-agents queue up in arrival
 * order; the dialog shows the head. A request whose signal aborts leaves the queue (the caller
 * treats it as denied).
 */
export class DialogApprover implements Approver {
  readonly decidedBy = "user" as const;
  private waiters: Waiter[] = [];
  private snapshot: readonly PendingPermission[] = [];
  private listeners = new Set<() => void>();
  private nextId = 1;

  request(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    if (signal.aborted) return Promise.resolve({ decision: "deny", reason: "cancelled" });
    return new Promise<PermissionAnswer>((resolve) => {
      const onAbort = (): void => void this.settle(waiter.id, { decision: "deny", reason: "cancelled" });
      const waiter: Waiter = {
        id: this.nextId++,
        request,
        resolve,
        cleanup: () => signal.removeEventListener("abort", onAbort),
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
      this.changed();
    });
  }

  /** Answers one pending request; unknown ids (already answered or aborted) are ignored. */
  answer(id: number, answer: PermissionAnswer): boolean {
    return this.settle(id, answer);
  }

  /** Denies everything pending, e.g. when the dashboard exits. */
  denyAll(reason = "dashboard closed"): void {
    for (const w of [...this.waiters]) this.settle(w.id, { decision: "deny", reason });
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  readonly getSnapshot = (): readonly PendingPermission[] => this.snapshot;

  private settle(id: number, answer: PermissionAnswer): boolean {
    const index = this.waiters.findIndex((w) => w.id === id);
    if (index < 0) return false;
    const [waiter] = this.waiters.splice(index, 1);
    waiter.cleanup();
    waiter.resolve(answer);
    this.changed();
    return true;
  }

  private changed(): void {
    this.snapshot = this.waiters.map(({ id, request }) => ({ id, request }));
    for (const listener of this.listeners) listener();
  }
}
