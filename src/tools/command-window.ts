import type { Change } from "./version-messages.js";

/**
 * The commands running now, as read versions see them (DESIGN §14). Reads run beside a command, so
 * what a read saw may be the file before the command, after it, or halfway through. Such a read
 * tells its agent what it saw and nothing more: only a read during which no command started, ran or
 * ended is taken as the session's version of the file. Otherwise a read that saw a file before a
 * command changed it, but was recorded after the command's scan (read_file awaits between reading
 * and recording), put that older version back as the session's — and the next command then took
 * it for the file's version at its start, crediting its agent with knowing a result built on a
 * change it never saw.
 */
export class CommandWindow {
  private readonly running = new Map<object, string>();
  /** Moves when a command starts or ends. */
  private moved = 0;

  epoch(): number {
    return this.moved;
  }

  open(key: object, agentId: string): void {
    this.running.set(key, agentId);
    this.moved++;
  }

  close(key: object): void {
    if (this.running.delete(key)) this.moved++;
  }

  /** No command ran at any moment since the epoch was `since`: a read in that span saw the file as it is. */
  quietSince(since: number): boolean {
    return this.running.size === 0 && since === this.moved;
  }

  /** Whose change a file tool found in the workspace: a running command's, else nobody's. */
  changedBy(): Change["by"] {
    for (const agentId of this.running.values()) return { kind: "agent", agentId, via: "bash" };
    return { kind: "outside" };
  }
}
