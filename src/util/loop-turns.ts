/**
 * Turns of the event loop handed out one at a time, in order: each `next()` resolves in a later
 * iteration of the loop than the one before it, so Node polls for I/O between them.
 *
 * Work started by promise continuations alone never lets I/O in: Node reads sockets only once the
 * microtask queue is empty. A burst of such work (64 sub-agents started by one response) then
 * holds every response that arrives meanwhile until the whole burst is done, and the agents move
 * in lockstep, each step's CPU spent while all of them wait. Taking a turn before each piece lets
 * the responses of the agents already started be read, and their next requests leave, in between.
 */
export class LoopTurns {
  private last: Promise<void> = Promise.resolve();

  next(): Promise<void> {
    // Scheduled once the previous turn has come: an immediate set during the loop's check phase
    // runs in the next iteration, after that iteration's poll.
    const turn = this.last.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    this.last = turn;
    return turn;
  }
}
