import type { Stats } from "node:fs";
import type { EmitFn, FileTouch } from "../events/types.js";
import { contentHash } from "./file-version.js";
import { mergedEditNote, partialWriteMessage, staleEditSuffix, staleWriteMessage, unreadWriteMessage, type Change } from "./version-messages.js";
import { afterChange, commandChanges } from "./version-change.js";
import type { EditBasis, FileVersions, WriteCheck } from "./versions.js";

export interface CallInfo {
  agentId: string;
  parentId?: string;
  callId: string;
  tool: string;
  emit: EmitFn;
}

/** One tool call's access to the read versions: what file tools call, and what the log gets. */
export class CallVersions {
  /** What this call saw and changed, for tool_finished (and so for resume). */
  readonly touches: FileTouch[] = [];
  /** The command epoch when the call started (or, until then, was made): see CommandWindow. */
  private since: number;

  constructor(
    private readonly store: FileVersions,
    private readonly call: CallInfo,
  ) {
    this.since = store.epoch();
  }

  /** The scheduler started the call: a read is the session's version only if no command ran since. */
  begin(): void {
    this.since = this.store.epoch();
  }

  private rel(abs: string): string {
    return this.store.workspace.relative(abs);
  }

  /**
   * read_file saw this content (whole or a window of it: either way, this version). The agent knows
   * what it saw; the session takes it as the file's version only if no command ran meanwhile.
   */
  read(abs: string, statBeforeRead: Stats, data: Buffer): void {
    const hash = contentHash(data);
    if (this.store.quietSince(this.since)) this.store.observe(abs, statBeforeRead, hash, this.touches);
    this.store.seen(this.call.agentId).set(abs, { hash });
    this.touches.push({ path: this.rel(abs), hash, change: "read" });
    this.store.contents?.keep(data, hash);
  }

  /**
   * May this agent replace the whole file? Yes for a new file, or an existing one at the very
   * version it knows whole. `stat` is the file's stat now, or null when it does not exist.
   */
  async checkWrite(abs: string, stat: Stats | null): Promise<WriteCheck> {
    if (!stat) {
      this.store.observeMissing(abs, this.touches);
      return { ok: true };
    }
    const hash = await this.store.currentHash(abs, stat, this.touches);
    const seen = this.store.seen(this.call.agentId).get(abs);
    const now = this.store.clock();
    const rel = this.rel(abs);
    const last = this.store.lastChange(abs);
    const name = this.store.nameOf;
    const tool = this.call.tool;
    if (!seen) return this.refuse(abs, "unread", last, `${tool}: ${unreadWriteMessage(rel, last, name, now)}`);
    if (seen.hash !== hash) return this.refuse(abs, "stale", last, `${tool}: ${staleWriteMessage(rel, last, name, now)}`);
    if (seen.partial) {
      const over = seen.partial.over;
      return this.refuse(abs, over ? "stale" : "unread", over, `${tool}: ${partialWriteMessage(rel, over, name, now)}`);
    }
    return { ok: true };
  }

  /** write_file wrote `content`: the agent knows this version whole. */
  wrote(abs: string, content: Buffer | string, created: boolean): void {
    const hash = contentHash(content);
    this.store.recordChange(this.call.agentId, abs, hash, "write_file", { hash }, { created });
    this.touches.push({ path: this.rel(abs), hash, change: "write", ...(created ? { created: true } : {}) });
    this.store.contents?.keep(content, hash);
  }

  /** Before edit_file changes `data` (read after `stat`): did the file change since the agent saw it? */
  editBasis(abs: string, stat: Stats, data: Buffer): EditBasis {
    const hash = contentHash(data);
    this.store.contents?.keep(data, hash);
    this.store.observe(abs, stat, hash, this.touches);
    const seen = this.store.seen(this.call.agentId).get(abs);
    const basis: EditBasis = { hash, full: Boolean(seen && !seen.partial && seen.hash === hash), seen };
    if (seen && seen.hash !== hash) basis.changedSince = { change: this.store.lastChange(abs) };
    return basis;
  }

  /** edit_file was refused on a file that changed under the agent: say so, as a conflict. */
  editRefused(abs: string, basis: EditBasis, message: string): string {
    if (!basis.changedSince) return message;
    const change = basis.changedSince.change;
    const full = message + staleEditSuffix(change, this.store.nameOf, this.store.clock());
    this.refuse(abs, "stale", change, full);
    return full;
  }

  /** edit_file wrote `updated`; returns the note for its result when the file had changed. */
  edited(abs: string, basis: EditBasis, updated: string): string | undefined {
    const hash = contentHash(updated);
    this.store.contents?.keep(updated, hash);
    const next = afterChange(basis.seen, basis.hash, hash, basis.changedSince?.change);
    this.store.recordChange(this.call.agentId, abs, hash, "edit_file", next);
    this.touches.push({ path: this.rel(abs), hash, change: "edit", ...(next.partial ? { partial: true } : {}) });
    if (!basis.changedSince) return undefined;
    return mergedEditNote(this.rel(abs), basis.changedSince.change, this.store.nameOf, this.store.clock());
  }

  /** Before an exclusive call: what changed since it was recorded is counted as changed outside. */
  beforeExclusive(): Promise<void> {
    return this.store.scanBeforeExclusive(this.touches, { key: this, agentId: this.call.agentId }).then(() => void (this.baseline = this.store.knownHashes()));
  }

  /** After an exclusive call: the known files it changed, now counted as changed by this agent. */
  afterExclusive(): Promise<string[]> {
    const from = this.touches.length;
    return this.store.scanAfterExclusive(this.call.agentId, this.touches, this).then((changed) => {
      for (const event of commandChanges(this.call, this.store.workspace.root, this.baseline, this.touches.slice(from))) this.call.emit(event);
      return changed;
    });
  }

  /** `message` is the whole refusal, tool name first, as the agent reads it. */
  private refuse(abs: string, reason: "stale" | "unread", change: Change | undefined, message: string): WriteCheck {
    const { agentId, parentId, callId, tool, emit } = this.call;
    const at = this.store.clock();
    this.store.addConflict(agentId, { callId, tool, path: abs, reason, change, at, resolved: false });
    emit({
      type: "write_conflict",
      agentId,
      parentId,
      callId,
      tool,
      path: this.rel(abs),
      reason,
      changedBy: change ? this.store.source(change) : undefined,
      changedAt: change?.at,
      message,
    });
    return { ok: false, message };
  }

  /** Each known file's version when the command started: what its changes are logged from. */
  private baseline: Map<string, string> | undefined;
}
