import type { Change } from "./version-messages.js";

/**
 * The commands running now, as read versions see them (DESIGN §14): reads run beside a command,
 * so a change a read finds meanwhile is the command's, not from outside, and the scan after the
 * command compares each file with its version when the command started.
 */

interface RunningCommand {
  agentId: string;
  /** Each known file's version when the command started. */
  baseline: Map<string, string>;
  /** What its own agent read beside it (`path\0hash`): a version it then knows whole. */
  ownReads: Set<string>;
}

export class CommandWindow {
  private readonly running = new Map<object, RunningCommand>();
  /** Moves when a command starts or ends: a call that saw it move may have read during one. */
  private moved = 0;
  private lastAgent: string | undefined;

  epoch(): number {
    return this.moved;
  }

  open(key: object, agentId: string, baseline: Map<string, string>): void {
    this.running.set(key, { agentId, baseline, ownReads: new Set() });
    this.moved++;
    this.lastAgent = agentId;
  }

  close(key: object): void {
    if (this.running.delete(key)) this.moved++;
  }

  /** The file's version when the command started, if the session knew it then. */
  before(key: object | undefined, abs: string): string | undefined {
    return key ? this.running.get(key)?.baseline.get(abs) : undefined;
  }

  isOpen(key: object | undefined): boolean {
    return key !== undefined && this.running.has(key);
  }

  /** An agent read a version: beside its own running command, it then knows that version whole. */
  read(agentId: string, abs: string, hash: string): void {
    for (const command of this.running.values()) if (command.agentId === agentId) command.ownReads.add(`${abs}\0${hash}`);
  }

  ownRead(key: object | undefined, abs: string, hash: string): boolean {
    return key !== undefined && (this.running.get(key)?.ownReads.has(`${abs}\0${hash}`) ?? false);
  }

  /** Whose change a file tool found in the workspace: a command's that runs (or ran since `since`), else nobody's. */
  changedBy(since: number | undefined): Change["by"] {
    for (const command of this.running.values()) return { kind: "agent", agentId: command.agentId, via: "bash" };
    if (since !== undefined && since !== this.moved && this.lastAgent) return { kind: "agent", agentId: this.lastAgent, via: "bash" };
    return { kind: "outside" };
  }
}
