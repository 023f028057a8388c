import { ConfigError } from "../util/errors.js";
import { listOrcaWorktrees, pruneOrcaWorktrees } from "../worktrees/list.js";
import { repositoryOf } from "../worktrees/worktree.js";

/**
 * `orca worktrees [list]`: the git worktrees orca made for `isolation: worktree` sub-agents in this
 * repository (kept after a conflict, a cancel or a failure). `orca worktrees prune` removes them
 * and their branches, except one a running orca works in.
 */
export async function worktreesCommand(workspace: string, action: string | undefined): Promise<string[]> {
  if (action !== undefined && action !== "list" && action !== "prune") {
    throw new ConfigError(`orca worktrees: unknown action "${action}" (list or prune)`);
  }
  const found = await repositoryOf(workspace);
  if ("unavailable" in found) return [`worktrees: none (${found.unavailable})`];
  if (action === "prune") {
    const lines = await pruneOrcaWorktrees(found.repo);
    return lines.length ? lines : ["worktrees: nothing to prune"];
  }
  const list = await listOrcaWorktrees(found.repo);
  if (!list.length) return [`worktrees: none in ${found.repo}`];
  const lines = [`worktrees of ${found.repo} (merge one by hand: git diff BASE BRANCH | git apply --3way; remove them all: orca worktrees prune):`];
  for (const wt of list) {
    const state = wt.missing ? "directory missing" : wt.inUseBy !== undefined ? `in use by orca (pid ${wt.inUseBy})` : "kept";
    lines.push(`  ${wt.branch}  ${state}`);
    lines.push(`    path: ${wt.path}`);
    lines.push(`    base: ${wt.base ? wt.base.slice(0, 12) : "unknown"} · head: ${wt.head.slice(0, 12)} · ${wt.changed.length} file${wt.changed.length === 1 ? "" : "s"} changed${wt.changed.length ? `: ${wt.changed.slice(0, 8).join(", ")}${wt.changed.length > 8 ? ", …" : ""}` : ""}`);
  }
  return lines;
}
