import type { Stats } from "node:fs";
import path from "node:path";
import type { ChangeSource, FileTouch } from "../events/types.js";
import type { ContentKeeper } from "../sessions/content-store.js";
import { hashFile, sameStat, statKey, statOrNull, type StatKey } from "./file-version.js";
import { afterChange, hashKeeping, type Seen } from "./version-change.js";
import type { Change, ChangeVia, NameOf } from "./version-messages.js";
import type { Workspace } from "./workspace.js";
import { CommandWindow } from "./command-window.js";
import { CallVersions, type CallInfo } from "./call-versions.js";

/**
 * Read versions: no agent's write lands on a file version it has not seen.
 *
 * Each agent keeps, per path, the version (content hash) it last saw: recorded when its read_file,
 * write_file or edit_file touched the file, and when its own bash command changed it.
 * The session keeps the latest version it knows of each path and who changed it last, so a
 * refusal can say who and when.
 *
 * Atomicity: a check and the write after it run inside one scheduled call, and the scheduler
 * serialises every call that writes a path with every other call that reads or writes it, and a
 * command with every write and command, so no other orca tool can change the file between the two.
 * Reads run beside a command: the agent knows what it read (the file before the command, after it,
 * or halfway), but the session's versions move only with reads during which no command ran
 * (CommandWindow), so the scan after a command compares each file with its version when the command
 * started, and a write based on a version the command then changed is refused as stale.
 * Programs outside orca (an editor, a background shell, an MCP server) are not serialised: their
 * change is caught by the next check, but one landing between a check and its write is not.
 *
 * An agent "knows" a version whole when it read it, wrote it, or changed a version it knew whole.
 * A change made on top of a version it did not know (edit_file whose old_string still matched, a
 * bash command) leaves the agent knowing only its own change: it may go on editing by exact text,
 * but a whole-file write_file waits until it reads the file again.
 */

interface Version {
  hash: string;
  /** Null when the stat cannot vouch for the content (recent, or rebuilt from a log): hash again. */
  stat: StatKey | null;
}

export interface ConflictRecord {
  callId: string;
  tool: string;
  /** Absolute. */
  path: string;
  reason: "stale" | "unread";
  change?: Change;
  at: number;
  /** The agent later changed the path successfully (it read it again, or merged by exact text). */
  resolved: boolean;
}

/** On refusal, `message` is the whole error, tool name first. */
export type WriteCheck = { ok: true } | { ok: false; message: string };

/** What edit_file learns before it writes: whether the file changed since the agent saw it. */
export interface EditBasis {
  hash: string;
  /** The agent knew this very version whole. */
  full: boolean;
  /** Set when the agent had seen another version: what changed it since. */
  changedSince?: { change?: Change };
  seen?: Seen;
}

// Stat calls in flight at once while looking for what a bash command changed.
const SCAN_BATCH = 64;

const VIA_OF: Record<"write" | "edit" | "bash", ChangeVia> = { write: "write_file", edit: "edit_file", bash: "bash" };

/** The session's read versions: one per session, shared by every agent's calls. */
export class FileVersions {
  /** The latest version the session knows of each file it has touched. */
  private readonly known = new Map<string, Version>();
  /** The last change to each path that the session knows of. */
  private readonly changes = new Map<string, Change>();
  private readonly seenByAgent = new Map<string, Map<string, Seen>>();
  private readonly conflicts = new Map<string, ConflictRecord[]>();
  private readonly commands = new CommandWindow();
  readonly nameOf: NameOf;
  private readonly now: () => number;

  constructor(
    readonly workspace: Workspace,
    opts: { nameOf?: NameOf; now?: () => number; contents?: ContentKeeper } = {},
  ) {
    this.nameOf = opts.nameOf ?? ((id) => id);
    this.now = opts.now ?? Date.now;
    this.contents = opts.contents;
  }

  /** Where the versions tools see and make are kept, so a change can be diffed and restored (review/). */
  readonly contents: ContentKeeper | undefined;
  /** The hash of every file known now. */
  knownHashes(): Map<string, string> {
    return new Map([...this.known].map(([abs, v]) => [abs, v.hash]));
  }

  /** The view one tool call works through; it collects what the call saw and changed. */
  forCall(call: CallInfo): CallVersions {
    return new CallVersions(this, call);
  }

  /** How many write conflicts `agentId` has had; a mark for conflictsOf. */
  conflictCount(agentId: string): number {
    return this.conflicts.get(agentId)?.length ?? 0;
  }

  conflictsOf(agentId: string, from = 0): readonly ConflictRecord[] {
    return (this.conflicts.get(agentId) ?? []).slice(from);
  }

  /**
   * Replays what one logged tool call saw and changed (resume): the same bookkeeping as when it
   * ran, minus the stats, so the first check of each file after a resume hashes it.
   */
  replay(agentId: string, touches: readonly FileTouch[], ts: number): void {
    for (const t of touches) {
      const abs = path.resolve(this.workspace.root, t.path);
      const by: Change["by"] = t.change === "read" || t.change === "outside" ? { kind: "outside" } : { kind: "agent", agentId, via: VIA_OF[t.change] };
      if (t.hash === null) {
        this.known.delete(abs);
        if (t.change !== "read") this.changes.set(abs, { by, at: ts, deleted: true });
        continue;
      }
      this.known.set(abs, { hash: t.hash, stat: null });
      if (t.change === "read") this.seen(agentId).set(abs, { hash: t.hash });
      else if (t.change === "outside") this.changes.set(abs, { by, at: ts });
      else {
        this.changes.set(abs, { by, at: ts, created: t.created });
        this.seen(agentId).set(abs, t.partial ? { hash: t.hash, partial: {} } : { hash: t.hash });
      }
    }
  }

  /** The change as the write_conflict event carries it. */
  source(change: Change): ChangeSource {
    return change.by.kind === "outside" ? { kind: "outside" } : { kind: "agent", agentId: change.by.agentId, name: this.nameOf(change.by.agentId), via: change.by.via };
  }

  // ---- used by CallVersions -------------------------------------------------------------------

  seen(agentId: string): Map<string, Seen> {
    let map = this.seenByAgent.get(agentId);
    if (!map) this.seenByAgent.set(agentId, (map = new Map()));
    return map;
  }

  clock(): number {
    return this.now();
  }

  epoch(): number {
    return this.commands.epoch();
  }

  /** No command started, ran or ended since the epoch was `since`. */
  quietSince(since: number): boolean {
    return this.commands.quietSince(since);
  }

  /** Whose change a file tool found: a running command's in the workspace, else outside orca's. */
  private changedBy(abs: string): Change["by"] {
    return this.workspace.contains(abs) ? this.commands.changedBy() : { kind: "outside" };
  }

  lastChange(abs: string): Change | undefined {
    return this.changes.get(abs);
  }

  /**
   * Records the content a tool just read (with the stat taken before reading it, so a change
   * racing the read makes the stat disagree rather than vouch for the wrong content). A version
   * that differs from the one the session knew was changed outside orca's tools.
   */
  observe(abs: string, stat: Stats | null, hash: string, touches: FileTouch[]): void {
    const prior = this.known.get(abs);
    const now = this.now();
    if (prior && prior.hash !== hash) {
      const by = this.changedBy(abs);
      this.changes.set(abs, { by, at: stat ? Math.min(stat.mtimeMs, now) : now });
      // A command's change is logged once, by the command's own scan after it.
      if (by.kind === "outside") touches.push({ path: this.workspace.relative(abs), hash, change: "outside" });
    }
    this.known.set(abs, { hash, stat: stat ? statKey(stat, now) : null });
  }

  /** A file the session knew is gone, and no orca tool removed it. */
  observeMissing(abs: string, touches: FileTouch[]): void {
    if (!this.known.delete(abs)) return;
    const by = this.changedBy(abs);
    this.changes.set(abs, { by, at: this.now(), deleted: true });
    if (by.kind === "outside") touches.push({ path: this.workspace.relative(abs), hash: null, change: "outside" });
  }

  /** The current version of an existing file: from the stat when it vouches, else by hashing. */
  async currentHash(abs: string, stat: Stats, touches: FileTouch[]): Promise<string> {
    const prior = this.known.get(abs);
    if (prior?.stat && sameStat(prior.stat, stat)) return prior.hash;
    const hash = await hashFile(abs, stat.size);
    this.observe(abs, stat, hash, touches);
    return hash;
  }

  /** An agent changed a file through a tool: it is the session's latest version and the agent's. */
  recordChange(agentId: string, abs: string, hash: string | null, via: ChangeVia, seen: Seen | null, extra: { created?: boolean } = {}): void {
    const now = this.now();
    if (hash === null) this.known.delete(abs);
    else this.known.set(abs, { hash, stat: null });
    this.changes.set(abs, { by: { kind: "agent", agentId, via }, at: now, created: extra.created, deleted: hash === null || undefined });
    if (seen) this.seen(agentId).set(abs, seen);
    for (const c of this.conflicts.get(agentId) ?? []) if (c.path === abs) c.resolved = true;
  }

  addConflict(agentId: string, record: ConflictRecord): void {
    let list = this.conflicts.get(agentId);
    if (!list) this.conflicts.set(agentId, (list = []));
    list.push(record);
  }

  /**
   * Before an exclusive call (a bash command that may write anything): every file the session
   * knows is checked against its recorded version, and one that changed since was changed outside
   * orca's tools (another process, a merge) — not by the command about to run. So the command
   * cannot launder it: an agent that saw the old version still holds the old version.
   */
  async scanBeforeExclusive(touches: FileTouch[], command?: { key: object; agentId: string }): Promise<void> {
    await this.eachKnown(async (abs) => {
      const now = await this.probe(abs);
      if (now === null || now.kind === "same") return;
      if (now.kind === "missing") this.observeMissing(abs, touches);
      else this.observe(abs, now.stat, now.hash, touches);
    });
    if (command) this.commands.open(command.key, command.agentId);
  }

  /**
   * After an exclusive call or a command: every file the session knows whose stat moved is hashed;
   * those whose content changed were changed by that call, since no other orca tool wrote beside
   * it, the scan before it took what had changed until then, and no read during it moved the
   * session's versions (CommandWindow). No directory walk: only known files matter, as only they
   * can have been seen by an agent.
   */
  async scanAfterExclusive(agentId: string, touches: FileTouch[], key?: object): Promise<string[]> {
    const changed: string[] = [];
    try {
      await this.eachKnown((abs) => this.rescan(agentId, abs, touches, changed));
    } finally {
      if (key) this.commands.close(key);
    }
    return changed;
  }

  private async eachKnown(visit: (abs: string) => Promise<void>): Promise<void> {
    const paths = [...this.known.keys()];
    for (let i = 0; i < paths.length; i += SCAN_BATCH) await Promise.all(paths.slice(i, i + SCAN_BATCH).map(visit));
  }

  /** A known file now: as recorded (`same`, its stat refreshed), changed, or gone; null when unreadable. */
  private async probe(abs: string): Promise<{ kind: "same" } | { kind: "missing" } | { kind: "changed"; stat: Stats; hash: string } | null> {
    const prior = this.known.get(abs);
    if (!prior) return null;
    let stat: Stats | null;
    let hash: string;
    try {
      stat = await statOrNull(abs);
      if (stat && prior.stat && sameStat(prior.stat, stat)) return { kind: "same" };
      if (!stat || !stat.isFile()) return { kind: "missing" };
      hash = this.contents ? await hashKeeping(abs, stat.size, prior.hash, this.contents) : await hashFile(abs, stat.size);
    } catch {
      // Unreadable now: the next check that needs it will say so.
      return null;
    }
    if (hash !== prior.hash) return { kind: "changed", stat, hash };
    this.known.set(abs, { hash, stat: statKey(stat, this.now()) });
    return { kind: "same" };
  }

  private async rescan(agentId: string, abs: string, touches: FileTouch[], changed: string[]): Promise<void> {
    const prior = this.known.get(abs);
    const now = await this.probe(abs);
    if (!prior || now === null || now.kind === "same") return;
    const rel = this.workspace.relative(abs);
    if (now.kind === "missing") {
      this.recordChange(agentId, abs, null, "bash", null);
      touches.push({ path: rel, hash: null, change: "bash" });
      changed.push(abs);
      return;
    }
    const seen = this.seen(agentId).get(abs);
    // It read the very result whole (beside its own command): it knows what it saw.
    const next = seen && !seen.partial && seen.hash === now.hash ? seen : afterChange(seen, prior.hash, now.hash, this.changes.get(abs));
    this.recordChange(agentId, abs, now.hash, "bash", next);
    touches.push({ path: rel, hash: now.hash, change: "bash", ...(next.partial ? { partial: true } : {}) });
    changed.push(abs);
  }
}

export { CallVersions };
