import type { ChangeSetBuilder, ChangeRecord } from "./change-set.js";
import type { RestoreItem } from "./restore.js";

/**
 * What a rewind or an undo would put back, from the change sets: each file to its version before,
 * provided it is still the version the change left (restore.ts checks the disk; here, the log).
 */

export interface RestorePlan {
  items: RestoreItem[];
  /** Files the plan leaves alone, with why (a change only in an unmerged worktree). */
  skipped: Array<{ path: string; why: string }>;
}

/** Every main-tree file changed after the checkpoint, back to its version then. Undefined: no such checkpoint. */
export function rewindPlan(builder: ChangeSetBuilder, checkpointId: string): RestorePlan | undefined {
  const files = builder.since(checkpointId);
  if (!files) return undefined;
  return { items: files.map((f) => ({ path: f.path, to: f.before, expected: f.after })), skipped: [] };
}

/** Every main-tree file the session changed, back to its version before the session's first change of it. */
export function sessionPlan(builder: ChangeSetBuilder): RestorePlan {
  return { items: builder.run().files.map((f) => ({ path: f.path, to: f.before, expected: f.after })), skipped: [] };
}

/**
 * One agent's files back to their versions before its first change. A file someone changed after
 * it (another agent, a rewind) is marked, so it is skipped unless forced: undoing this agent must
 * not silently undo theirs. Undefined: no such agent.
 */
export function undoPlan(builder: ChangeSetBuilder, agentId: string): RestorePlan | undefined {
  const set = builder.agent(agentId);
  if (!set) return undefined;
  const plan: RestorePlan = { items: [], skipped: [] };
  for (const f of set.files) {
    if (f.worktree) {
      plan.skipped.push({ path: f.path, why: `only in its git worktree ${f.worktree} (not merged): nothing to undo in the workspace` });
      continue;
    }
    const last = builder.lastChange(f.path);
    const changedBy = last && !isOwn(last, agentId) ? describeChanger(builder, last) : undefined;
    plan.items.push({ path: f.path, to: f.before, expected: last?.after ?? f.after, ...(changedBy ? { changedBy } : {}) });
  }
  return plan;
}

/** A change that is the agent's own: its tools, or a review of its change (a rejected hunk). */
function isOwn(change: ChangeRecord, agentId: string): boolean {
  return change.agentId === agentId && change.tool !== "rewind" && change.tool !== "undo";
}

function describeChanger(builder: ChangeSetBuilder, change: ChangeRecord): string {
  if (change.tool === "rewind" || change.tool === "undo") return change.tool === "undo" ? "an undo" : "a rewind";
  return builder.nameOf(change.agentId);
}
