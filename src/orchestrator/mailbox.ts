/**
 * What waits to be said to one agent between its model requests: a user's steering message, a
 * parent's `message_agent`, a background sub-agent's result. The loop appends every letter as a
 * user message before its next request (never between a tool call and its result), and an agent
 * that has ended its turn while background work is pending sleeps here until a letter comes.
 */
export interface Letter {
  text: string;
  /** Set for another agent's message_agent: its id (the loop logs the delivery as from it, not the person). */
  from?: string;
  /** Set for a background sub-agent's result: the sub-agent's id, so a join can take it back. */
  resultOf?: string;
}

export class Mailbox {
  private letters: Letter[] = [];
  private readonly wakers = new Set<() => void>();

  get size(): number {
    return this.letters.length;
  }

  post(letter: Letter): void {
    this.letters.push(letter);
    for (const wake of [...this.wakers]) wake();
  }

  /** Every letter, oldest first; the box is empty afterwards. */
  drain(): Letter[] {
    const out = this.letters;
    this.letters = [];
    return out;
  }

  /** Takes back a sub-agent's result not read yet (wait_agents returned it already). */
  withdraw(resultOf: string): boolean {
    const before = this.letters.length;
    this.letters = this.letters.filter((l) => l.resultOf !== resultOf);
    return this.letters.length !== before;
  }

  /** Wakes a sleeping reader without a letter, so it looks again at what it waits for. */
  nudge(): void {
    for (const wake of [...this.wakers]) wake();
  }

  /** Resolves once a letter is in the box (at once if one is), on a nudge, or when `signal` aborts. */
  next(signal: AbortSignal): Promise<void> {
    if (this.letters.length || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.wakers.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      this.wakers.add(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }
}
