import type { EventBus } from "../events/bus.js";
import type { OrcaEvent } from "../events/types.js";
import { ChangeSetBuilder, type CheckpointInfo, type FileChange, type RunChangeSet } from "../review/change-set.js";
import { diffVersions, isBinary, versionOf, withoutHunks, type FileDiff, type Version } from "../review/file-diff.js";
import { rewindPlan } from "../review/plans.js";
import { restoreFiles, type RestoreResult } from "../review/restore.js";
import type { ContentKeeper, ContentSource } from "../sessions/content-store.js";
import { readEntryConfined } from "../tools/confined-fs.js";
import type { Workspace } from "../tools/workspace.js";
import { contentHash } from "../util/content-hash.js";
import { ConversationMarks, type ConversationMarksDeps, type ConversationRewind } from "./conversation-rewind.js";
import type { ControlResult } from "./types.js";

/**
 * What the review view and /diff, /rewind act through: the session's change sets (built from its
 * events as they happen, and from the log's on resume), diffs against the files now, and the
 * person's decisions — reject hunks or a file (restored on disk, the comment sent to the agent),
 * accept a held merge, rewind to a checkpoint. Every restore goes through review/restore.ts.
 */
export interface ReviewApi {
  changeSets(): RunChangeSet;
  checkpoints(): readonly CheckpointInfo[];
  /** The file's diff from before the agent's first change to the file now (a worktree's: to its last version). */
  diff(file: FileChange): Promise<FileDiff>;
  /** Restores the hunks numbered `hunks` (all: the whole file) of `agentId`'s change; the comment goes to the agent. */
  reject(agentId: string, file: FileChange, hunks: "all" | readonly number[], comment?: string): Promise<RejectResult>;
  /**
   * The review view's decisions on one agent at once: every rejected hunk or file restored, and one
   * message to the agent with every comment (as reject's: a message when it runs, else `undelivered`).
   */
  reviewAgent(agentId: string, items: readonly ReviewItem[], comment?: string): Promise<AgentReviewResult>;
  /** Accepts an agent's change; for an isolated agent held by `review: ask`, merges it now. */
  accept(agentId: string): Promise<ControlResult & { note?: string }>;
  /** Isolated agents whose merge waits for acceptance. */
  held(): string[];
  rewind(checkpointId: string, force?: boolean): Promise<RestoreResult | { error: string }>;
  /** Takes the coordinator's conversation back to before a turn checkpoint's prompt (the files stay: rewind does those). */
  rewindConversation(checkpointId: string): ConversationRewind;
}

/** One file of an agent's review: the hunks to restore ("all": the whole file; none: only a comment), and what was accepted. */
export interface ReviewItem {
  file: FileChange;
  hunks: "all" | readonly number[];
  /** What the person marked accepted, when nothing is rejected: logged as a review_decision, nothing changes on disk. */
  accepted?: "all" | readonly number[];
  comment?: string;
}

/** A whole review of one agent: what was restored, what could not be (one line each), and the message when it could not reach the agent. */
export interface AgentReviewResult {
  restored: string[];
  errors: string[];
  undelivered?: string;
}

/** A rejection's outcome; `undelivered`: the comment could not reach the agent (it is not running): the caller has its parent resume it. */
export type RejectResult = { ok: true; undelivered?: string } | { ok: false; error: string };

export interface ReviewDeskDeps {
  bus: EventBus;
  workspace: Workspace;
  contents: (ContentSource & ContentKeeper) | undefined;
  rootAgentId: string;
  /** Events of the log this session resumes, so change sets span the whole session. */
  prior?: readonly OrcaEvent[];
  held(): string[];
  acceptMerge(agentId: string): Promise<{ note: string; conflict: boolean } | null>;
  /** Tells an agent of a rejection: a message when it runs, else a turn asking its parent to resume it. */
  tell(agentId: string, text: string): ControlResult;
  /** The coordinator, for /rewind N conversation (absent: this desk cannot rewind a conversation). */
  conversation?: Omit<ConversationMarksDeps, "bus"> & { busy(): boolean };
}

/** "src/a.js" (whole) or "hunks 1, 3 of src/a.js", as the agent is told. */
function rejectedWhat(path: string, hunks: "all" | readonly number[]): string {
  if (hunks === "all") return `your whole change to ${path}`;
  return `hunk${hunks.length === 1 ? "" : "s"} ${hunks.map((h) => h + 1).join(", ")} of your change to ${path}`;
}

const EMPTY: ContentSource & ContentKeeper = { read: () => null, keep: () => false };

export class ReviewDesk implements ReviewApi {
  private readonly builder = new ChangeSetBuilder();
  private readonly contents: ContentSource & ContentKeeper;
  private readonly conversation?: ConversationMarks;

  constructor(private readonly deps: ReviewDeskDeps) {
    if (deps.conversation) this.conversation = new ConversationMarks({ ...deps.conversation, bus: deps.bus });
    for (const e of deps.prior ?? []) this.builder.add(e);
    deps.bus.subscribe((e) => this.builder.add(e));
    this.contents = deps.contents ?? EMPTY;
  }

  changeSets(): RunChangeSet {
    return this.builder.run();
  }

  checkpoints(): readonly CheckpointInfo[] {
    return this.builder.checkpointList();
  }

  async diff(file: FileChange): Promise<FileDiff> {
    const now = file.worktree ? versionOf(file.after, this.contents) : await this.current(file.path);
    return diffVersions(file.path, file.status, versionOf(file.before, this.contents), now);
  }

  held(): string[] {
    return this.deps.held();
  }

  async accept(agentId: string): Promise<ControlResult & { note?: string }> {
    this.deps.bus.emit({ type: "review_decision", agentId: this.deps.rootAgentId, decision: "accept", target: agentId });
    if (!this.deps.held().includes(agentId)) return { ok: true };
    const merged = await this.deps.acceptMerge(agentId);
    if (!merged) return { ok: false, error: `${agentId} has no merge waiting` };
    return merged.conflict ? { ok: false, error: merged.note } : { ok: true, note: merged.note };
  }

  async reject(agentId: string, file: FileChange, hunks: "all" | readonly number[], comment?: string): Promise<RejectResult> {
    const restored = await this.restoreHunks(agentId, file, hunks);
    if (restored) return { ok: false, error: restored };
    this.deps.bus.emit({ type: "review_decision", agentId: this.deps.rootAgentId, decision: "reject", target: agentId, path: file.path, ...(hunks === "all" ? {} : { hunks: [...hunks] }), ...(comment ? { comment } : {}) });
    if (!comment) return { ok: true };
    const message = `Review: the person rejected ${rejectedWhat(file.path, hunks)}; it is restored on disk as it was before. Their comment: ${comment}\nRevise your change accordingly (read the file again first).`;
    return this.deps.tell(agentId, message).ok ? { ok: true } : { ok: true, undelivered: message };
  }

  async reviewAgent(agentId: string, items: readonly ReviewItem[], comment?: string): Promise<AgentReviewResult> {
    const result: AgentReviewResult = { restored: [], errors: [] };
    const rejected: string[] = [];
    const notes: string[] = [];
    for (const item of items) {
      const rejects = item.hunks === "all" || item.hunks.length > 0;
      if (rejects) {
        const error = await this.restoreHunks(agentId, item.file, item.hunks);
        if (error) {
          result.errors.push(error);
          continue;
        }
        result.restored.push(item.file.path);
        rejected.push(rejectedWhat(item.file.path, item.hunks));
      }
      const which = rejects ? item.hunks : item.accepted;
      if (which) {
        const hunks = which === "all" ? {} : { hunks: [...which] };
        this.deps.bus.emit({ type: "review_decision", agentId: this.deps.rootAgentId, decision: rejects ? "reject" : "accept", target: agentId, path: item.file.path, ...hunks, ...(item.comment ? { comment: item.comment } : {}) });
      }
      if (item.comment) notes.push(`- ${item.file.path}: ${item.comment}`);
    }
    if (comment) notes.unshift(`- ${comment}`);
    if (!notes.length) return result;
    const head = rejected.length ? `Review: the person rejected ${rejected.join("; ")}; ${rejected.length === 1 ? "it is" : "they are"} restored on disk as before.` : "Review: the person commented on your change.";
    const message = `${head} Their comments:\n${notes.join("\n")}\nRevise your change accordingly (read the files again first).`;
    if (!this.deps.tell(agentId, message).ok) result.undelivered = message;
    return result;
  }

  /** Puts `hunks` of the agent's change to `file` back on disk; a one-line error, or undefined when done. */
  private async restoreHunks(agentId: string, file: FileChange, hunks: "all" | readonly number[]): Promise<string | undefined> {
    if (file.worktree) return `${file.path} is only in ${agentId}'s worktree: nothing to restore in the workspace (leave it unaccepted)`;
    const now = await this.current(file.path);
    if (now === "not-kept") return `${file.path} cannot be read now`;
    const before = versionOf(file.before, this.contents);
    if (before === "not-kept") return `the version of ${file.path} before the change was not kept: restore it by hand`;
    let to: string | null = file.before;
    if (hunks !== "all") {
      // Hunks of a text decoding would write a corrupted binary file back.
      if (isBinary(before) || isBinary(now)) return `${file.path} is binary: it has no hunks to reject (reject the whole file)`;
      const undone = withoutHunks(file.path, before?.toString("utf8") ?? "", now?.toString("utf8") ?? "", hunks);
      if (undone === null) return `${file.path} changed since: those hunks no longer apply`;
      to = before === null && undone === "" ? null : contentHash(undone);
      if (to !== null) this.contents.keep(undone, to);
    }
    const current = now === null ? null : contentHash(now);
    const result = await restoreFiles([{ path: file.path, to, expected: current }], {
      workspace: this.deps.workspace,
      contents: this.contents,
      emit: this.deps.bus.emit,
      agentId,
      tool: "review",
    });
    const skipped = result.skipped[0];
    return skipped ? `${file.path}: ${skipped.why}` : undefined;
  }

  async rewind(checkpointId: string, force = false): Promise<RestoreResult | { error: string }> {
    const plan = rewindPlan(this.builder, checkpointId);
    if (!plan) return { error: `no checkpoint "${checkpointId}"` };
    return restoreFiles(plan.items, { workspace: this.deps.workspace, contents: this.contents, emit: this.deps.bus.emit, agentId: this.deps.rootAgentId, tool: "rewind", force });
  }

  rewindConversation(checkpointId: string): ConversationRewind {
    const at = this.builder.checkpointList().find((c) => c.id === checkpointId);
    if (!at) return { ok: false, error: `no checkpoint "${checkpointId}"` };
    if (at.reason !== "turn") return { ok: false, error: `"${at.label}" is a sub-agent's start: only a turn's checkpoint takes the conversation back` };
    if (!this.conversation) return { ok: false, error: "this session cannot rewind its conversation" };
    if (this.deps.conversation?.busy()) return { ok: false, error: "a run is in progress" };
    return this.conversation.rewind(checkpointId, at.label);
  }

  private async current(relative: string): Promise<Version> {
    try {
      const entry = await readEntryConfined(this.deps.workspace, this.deps.workspace.resolve(relative));
      return entry.kind === "missing" ? null : entry.kind === "file" || entry.kind === "exec" ? entry.bytes : "not-kept";
    } catch {
      // Outside the workspace now, or a symlink on its path: there is no file to diff against.
      return "not-kept";
    }
  }
}
