import type { EventOf, OrcaEvent } from "../events/types.js";

/**
 * Change sets, built from the session log alone (DESIGN §14), so they survive resume and work
 * headless: per agent, every file it created, changed or deleted — through write_file / edit_file
 * (file_write), a writing command (file_changed, tool bash) or its worktree's merge-back — with
 * the content hashes before its first change and after its last; per run, the same against the
 * session's start. Contents are not here: they are in the session's content store
 * (sessions/content-store.ts) under these hashes, and a diff is computed on demand (review/diff.ts).
 *
 * A write is counted once it landed: a file_write of a tool call is held until the call's
 * tool_finished names the version it wrote (a refused or failed write is dropped); orca's own
 * writes (merge-back, restores) have no call and count at once.
 */

export type FileStatus = "created" | "modified" | "deleted";

/** The tools a change can come from; restores (rewind, undo, review) are the person's, not an agent's work. */
export type ChangeTool = "write_file" | "edit_file" | "bash" | "merge_worktree" | "rewind" | "undo" | "review";

/** One change of one file, as the log has it. */
export interface ChangeRecord {
  /** Order in the log (index of the event among all events added). */
  seq: number;
  ts: number;
  agentId: string;
  callId?: string;
  tool: ChangeTool;
  /** Workspace-relative (relative to the agent's worktree while the change is only there). */
  path: string;
  before: string | null;
  after: string | null;
  /** Set while the change is only in this agent's git worktree (not merged into the main tree). */
  worktree?: string;
}

/** One file of a change set: its version before the first change and after the last. */
export interface FileChange {
  path: string;
  status: FileStatus;
  /** Content hash before the first change (null: the file did not exist). */
  before: string | null;
  /** Content hash after the last change (null: deleted). */
  after: string | null;
  /** The tools that changed it, in first-use order. */
  tools: ChangeTool[];
  /** How many changes made it. */
  changes: number;
  firstAt: number;
  lastAt: number;
  /** The change is only in this git worktree so far (an isolated agent, not merged yet). */
  worktree?: string;
}

/** What one agent changed. */
export interface AgentChangeSet {
  agentId: string;
  /** The agent definition's name (explorer, editor, …). */
  name: string;
  /** The coordinator's label for it, when it gave one. */
  label?: string;
  parentId?: string;
  /** Its delegated task (the root's: its first prompt). */
  task: string;
  startedAt: number;
  /** Every file it left changed, by path; a file changed and changed back is not in it. */
  files: FileChange[];
}

/** A moment files can be rewound to (a `checkpoint` event). */
export interface CheckpointInfo {
  id: string;
  reason: "turn" | "agent";
  label: string;
  /** Who it was taken for: the root at a turn, the agent at its start. */
  agentId: string;
  ts: number;
  seq: number;
}

/** A whole run's change sets. */
export interface RunChangeSet {
  sessionId?: string;
  workspace?: string;
  /** Every agent that started, in start order (those that changed nothing included, with no files). */
  agents: AgentChangeSet[];
  /** The whole session's change against its start (restores included). */
  files: FileChange[];
  checkpoints: CheckpointInfo[];
}

const RESTORES: ReadonlySet<ChangeTool> = new Set(["rewind", "undo"]);

type AgentInfo = Omit<AgentChangeSet, "files">;

/**
 * Builds change sets event by event: the dashboard feeds it as events arrive, the headless report
 * and `orca undo` feed it a log. Cost is linear in the events; a query is linear in the changes.
 */
export class ChangeSetBuilder {
  private seq = 0;
  private sessionId?: string;
  private workspace?: string;
  private readonly agents = new Map<string, AgentInfo>();
  private readonly records: ChangeRecord[] = [];
  private readonly checkpoints: CheckpointInfo[] = [];
  /** file_write events of a tool call, held until its tool_finished says what landed. */
  private readonly pending = new Map<string, EventOf<"file_write">[]>();
  /** The git worktree each isolated agent works in now. */
  private readonly worktrees = new Map<string, string>();

  add(event: OrcaEvent): void {
    const seq = this.seq++;
    switch (event.type) {
      case "session_started":
        this.sessionId ??= event.sessionId;
        this.workspace ??= event.workspace;
        return;
      case "agent_started":
        if (!this.agents.has(event.agentId)) {
          this.agents.set(event.agentId, { agentId: event.agentId, name: event.name, label: event.label, parentId: event.parentId, task: event.task, startedAt: event.ts });
        }
        return;
      case "user_message": {
        const root = this.agents.get(event.agentId);
        if (root && !root.task) root.task = event.text;
        return;
      }
      case "checkpoint":
        this.checkpoints.push({ id: event.id, reason: event.reason, label: event.label, agentId: event.agentId, ts: event.ts, seq });
        return;
      case "worktree":
        if (event.action === "created" && event.path) this.worktrees.set(event.agentId, event.path);
        else if (event.action === "merged" || event.action === "unavailable") this.worktrees.delete(event.agentId);
        return;
      case "file_write":
        if (event.callId === undefined) this.record(seq, event, event.tool, event.before, event.after);
        else this.hold(event);
        return;
      case "file_changed":
        this.record(seq, event, event.tool, event.before, event.after);
        return;
      case "tool_finished":
        this.settle(seq, event);
        return;
      default:
        return;
    }
  }

  /** Every change recorded so far, in log order. */
  changes(): readonly ChangeRecord[] {
    return this.records;
  }

  /** The change set of one agent; undefined for an agent the log never started. */
  agent(agentId: string): AgentChangeSet | undefined {
    const info = this.agents.get(agentId);
    if (!info) return undefined;
    return { ...info, files: summarise(this.records.filter((r) => r.agentId === agentId && !RESTORES.has(r.tool))) };
  }

  /** Every agent's change set and the run's. */
  run(): RunChangeSet {
    const byAgent = new Map<string, ChangeRecord[]>();
    for (const r of this.records) {
      if (RESTORES.has(r.tool)) continue;
      let list = byAgent.get(r.agentId);
      if (!list) byAgent.set(r.agentId, (list = []));
      list.push(r);
    }
    const agents = [...this.agents.values()].map((info) => ({ ...info, files: summarise(byAgent.get(info.agentId) ?? []) }));
    return {
      sessionId: this.sessionId,
      workspace: this.workspace,
      agents,
      files: summarise(this.records.filter((r) => r.worktree === undefined)),
      checkpoints: [...this.checkpoints],
    };
  }

  checkpointList(): readonly CheckpointInfo[] {
    return this.checkpoints;
  }

  /**
   * A checkpoint's files: each main-tree path changed after it, with the version it had then (the
   * version before the first change logged after it) and the version the log last recorded.
   */
  since(checkpointId: string): FileChange[] | undefined {
    const at = this.checkpoints.find((c) => c.id === checkpointId);
    if (!at) return undefined;
    return summarise(this.records.filter((r) => r.seq > at.seq && r.worktree === undefined));
  }

  /** The last change logged of a main-tree path, by anyone. */
  lastChange(path: string): ChangeRecord | undefined {
    for (let i = this.records.length - 1; i >= 0; i--) {
      const r = this.records[i]!;
      if (r.path === path && r.worktree === undefined) return r;
    }
    return undefined;
  }

  /** A display name for an agent: its label when it has one ("editor-1 [fix subtract]"). */
  nameOf(agentId: string): string {
    const label = this.agents.get(agentId)?.label;
    return label ? `${agentId} [${label}]` : agentId;
  }

  private hold(event: EventOf<"file_write">): void {
    const key = event.callId!;
    const list = this.pending.get(key);
    if (list) list.push(event);
    else this.pending.set(key, [event]);
  }

  /** A tool call ended: its held writes count when it says it made that version of that path. */
  private settle(seq: number, event: EventOf<"tool_finished">): void {
    const held = this.pending.get(event.callId);
    if (!held) return;
    this.pending.delete(event.callId);
    // By the version made, not the path: an isolated agent's versions are named from the main
    // workspace (its worktree's path, absolute) while its file_write names it from the worktree.
    const made = new Set((event.versions ?? []).filter((t) => t.change === "write" || t.change === "edit").map((t) => t.hash));
    for (const w of held) if (made.has(w.after)) this.record(seq, w, w.tool, w.before, w.after);
  }

  private record(seq: number, event: { ts: number; agentId: string; callId?: string; path: string }, tool: string, before: string | null, after: string | null): void {
    const worktree = tool === "merge_worktree" || RESTORES.has(tool as ChangeTool) || tool === "review" ? undefined : this.worktrees.get(event.agentId);
    if (tool === "merge_worktree") this.landed(event.agentId);
    this.records.push({ seq, ts: event.ts, agentId: event.agentId, callId: event.callId, tool: asTool(tool), path: event.path, before, after, ...(worktree ? { worktree } : {}) });
  }

  /**
   * A merge-back writes the agent's work into the main tree: from then on the merge's own records
   * (the main tree's version before it, the merged one after) are its change, not the worktree's,
   * whose base may be older than what the main tree had.
   */
  private landed(agentId: string): void {
    for (let i = this.records.length - 1; i >= 0; i--) {
      const r = this.records[i]!;
      if (r.agentId === agentId && r.worktree !== undefined) this.records.splice(i, 1);
    }
  }
}

function asTool(tool: string): ChangeTool {
  switch (tool) {
    case "write_file":
    case "edit_file":
    case "bash":
    case "merge_worktree":
    case "rewind":
    case "undo":
    case "review":
      return tool;
    default:
      // A file tool added later logs file_write with its own name: it writes like write_file.
      return "write_file";
  }
}

/** Per path, the version before the first record and after the last; files that ended as they began are left out. */
export function summarise(records: readonly ChangeRecord[]): FileChange[] {
  const byPath = new Map<string, FileChange>();
  for (const r of records) {
    const f = byPath.get(r.path);
    if (!f) {
      byPath.set(r.path, { path: r.path, status: "modified", before: r.before, after: r.after, tools: [r.tool], changes: 1, firstAt: r.ts, lastAt: r.ts, ...(r.worktree ? { worktree: r.worktree } : {}) });
      continue;
    }
    f.after = r.after;
    f.changes++;
    f.lastAt = r.ts;
    if (!f.tools.includes(r.tool)) f.tools.push(r.tool);
    if (r.worktree) f.worktree = r.worktree;
    else delete f.worktree;
  }
  const files: FileChange[] = [];
  for (const f of byPath.values()) {
    if (f.before === f.after) continue;
    f.status = f.before === null ? "created" : f.after === null ? "deleted" : "modified";
    files.push(f);
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Every change set of a log's events. */
export function buildChangeSets(events: Iterable<OrcaEvent>): RunChangeSet {
  const builder = new ChangeSetBuilder();
  for (const e of events) builder.add(e);
  return builder.run();
}
