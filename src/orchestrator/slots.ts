/**
 * `agents.max_parallel`: how many sub-agents work at once. A slot is held while an agent works and
 * given up while it waits on its own sub-agents (a foreground delegate call, wait_agents, the idle
 * wait for background ones): a parent that kept its slot while its children queued for one would
 * wait for ever under `max_parallel: 1` (issue 33). So the limit counts agents that can make
 * progress; one that waits takes a slot again, in turn, before it goes on. Every holder either
 * ends or starts waiting, and both free its slot, so the queue always moves.
 */
export class AgentSlots {
  private free: number;
  private readonly queue: Array<() => void> = [];
  /** Agents holding a slot now. */
  private readonly holders = new Set<string>();
  /**
   * Per agent: its waits on children in progress (calls of one turn run at once) and whether the
   * first of them gave up a slot, to take back when the last ends.
   */
  private readonly waits = new Map<string, { count: number; gaveSlot: boolean }>();

  constructor(max: number) {
    this.free = Math.max(1, max);
  }

  /** Takes a slot for `agentId`, in turn; false when `signal` aborted first (no slot is then held). */
  async acquire(agentId: string, signal?: AbortSignal): Promise<boolean> {
    if (!(await this.take(signal))) return false;
    this.holders.add(agentId);
    return true;
  }

  /** Gives back `agentId`'s slot, if it holds one. */
  release(agentId: string): void {
    if (!this.holders.delete(agentId)) return;
    this.give();
  }

  /**
   * Runs `waiting` (an agent waiting on its sub-agents) without `agentId`'s slot, and takes one
   * again once its last such wait ends — unless `signal` aborted meanwhile: the agent is then
   * winding down and goes on without one.
   */
  async whileWaiting<T>(agentId: string, waiting: Promise<T>, signal?: AbortSignal): Promise<T> {
    let wait = this.waits.get(agentId);
    if (!wait) {
      wait = { count: 0, gaveSlot: this.holders.has(agentId) };
      this.waits.set(agentId, wait);
      if (wait.gaveSlot) this.release(agentId);
    }
    wait.count++;
    try {
      return await waiting;
    } finally {
      if (--wait.count === 0) {
        this.waits.delete(agentId);
        if (wait.gaveSlot) await this.acquire(agentId, signal);
      }
    }
  }

  private take(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const onAbort = () => {
        const at = this.queue.indexOf(grant);
        if (at >= 0) this.queue.splice(at, 1);
        resolve(false);
      };
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(true);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(grant);
    });
  }

  private give(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.free++;
  }
}
