import type { SandboxLease } from "../../util/process-group.js";
import { groupAlive } from "../../util/process-group.js";
import { processStartTime, processState } from "../../util/proc.js";
import type { Placeholder, Placeholders } from "./protected.js";

/**
 * Stand-ins exist on the host only while a sandboxed process of the session relies on them (a
 * command, a background shell, a hook): each sandboxed spawn holds a lease, and the last lease to
 * end removes them. They must outlive every process of the sandbox, not just bwrap: removing the
 * host's entry detaches the read-only mount inside the sandbox too, and the path could then be
 * made from in there. Node runs this on one thread and making and removing are synchronous, so a
 * command starting as the last one ends either holds its lease before the removal (nothing is
 * removed) or makes its stand-ins again after it.
 */
export class StandInLeases {
  private readonly live = new Set<Lease>();
  private closed = false;

  constructor(private readonly placeholders: Placeholders) {}

  /**
   * Makes what of `list` is missing and holds it until the lease ends, then calls `ended` (nothing
   * of the sandbox runs any more). Throws a one-line Error when one cannot be made.
   */
  acquire(list: readonly Placeholder[], ended: () => void = () => {}): SandboxLease {
    try {
      this.placeholders.ensure(list);
    } catch (error) {
      if (!this.live.size) this.placeholders.removeAll();
      throw error;
    }
    const lease = new Lease(() => {
      try {
        this.release(lease);
      } finally {
        ended();
      }
    });
    this.live.add(lease);
    return lease;
  }

  /**
   * The end of the session, once its processes were told to stop: waits up to `limitMs` for their
   * sandboxes to be gone, then removes the stand-ins. False when one is still there: its stand-ins
   * stay (the manifest names them, and the next start removes them).
   */
  async close(limitMs: number): Promise<boolean> {
    this.closed = true;
    const deadline = Date.now() + limitMs;
    for (let wait = 2; !this.allGone(); wait = Math.min(wait * 2, POLL_MS)) {
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    this.placeholders.removeAll();
    return true;
  }

  /** close() for a process 'exit' handler, where nothing asynchronous runs: the same wait, blocking. */
  closeSync(limitMs: number): boolean {
    this.closed = true;
    const deadline = Date.now() + limitMs;
    for (let wait = 2; !this.allGone(); wait = Math.min(wait * 2, POLL_MS)) {
      if (Date.now() >= deadline) return false;
      Atomics.wait(SLEEPER, 0, 0, wait);
    }
    this.placeholders.removeAll();
    return true;
  }

  private allGone(): boolean {
    return [...this.live].every((lease) => lease.gone());
  }

  private release(lease: Lease): void {
    if (!this.live.delete(lease) || this.closed) return;
    if (!this.live.size) this.placeholders.removeAll();
  }
}

const POLL_MS = 50;
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/** One sandboxed process's hold on the stand-ins: ends once nothing of its sandbox runs any more. */
class Lease implements SandboxLease {
  private pid: number | null = null;
  private init: { pid: number; start: string | null } | null = null;
  private ended = false;
  private watching = false;

  constructor(private readonly end: () => void) {}

  spawned(pid: number): void {
    this.pid = pid;
  }

  sandboxInit(pid: number): void {
    this.init = { pid, start: processStartTime(pid) };
  }

  /** bwrap has exited, or was never started: the lease ends as soon as its sandbox is empty. */
  exited(): void {
    if (this.watching) return;
    this.watching = true;
    const look = (wait: number) => {
      if (this.gone()) return this.finish();
      // Unref'd: a pending look must not keep orca alive; its exit handler waits for the sandbox instead.
      setTimeout(() => look(Math.min(wait * 2, POLL_MS)), wait).unref();
    };
    look(1);
  }

  /**
   * Nothing of the sandbox runs: the kernel ends every other process of a pid namespace before its
   * init may end, so an init that is a zombie, gone, or a new process with its pid says so. Before
   * bwrap has reported its init, the init is in bwrap's process group, and the group being empty
   * says the same.
   */
  gone(): boolean {
    if (this.ended || this.pid === null) return true;
    if (!this.init) return !groupAlive(this.pid);
    const state = processState(this.init.pid);
    if (state === null || state === "Z" || state === "X") return true;
    return this.init.start !== null && processStartTime(this.init.pid) !== this.init.start;
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.end();
  }
}
