import fs from "node:fs";
import { git } from "./git.js";
import { BASE_REF_PREFIX, BRANCH_PREFIX, removeWorktree } from "./worktree.js";
import { pidExists } from "../util/proc.js";

/** The worktrees orca made in one repository (branch `orca/…`), for `orca worktrees` and its prune. */

export interface OrcaWorktree {
  path: string;
  branch: string;
  head: string;
  /** The commit the agent's changes are measured from, when its ref is still there. */
  base?: string;
  /** Files the branch changes against its base. */
  changed: string[];
  /** The pid of the orca process working in it (from its lock), when that process still runs. */
  inUseBy?: number;
  /** Its directory is gone (git will forget it on prune). */
  missing: boolean;
}

export async function listOrcaWorktrees(repo: string): Promise<OrcaWorktree[]> {
  const porcelain = await git(["worktree", "list", "--porcelain"], { cwd: repo });
  const out: OrcaWorktree[] = [];
  for (const block of porcelain.split(/\n\n+/)) {
    const fields = new Map<string, string>();
    for (const line of block.split("\n")) {
      const space = line.indexOf(" ");
      fields.set(space < 0 ? line : line.slice(0, space), space < 0 ? "" : line.slice(space + 1));
    }
    const branch = fields.get("branch")?.replace(/^refs\/heads\//, "");
    const wtPath = fields.get("worktree");
    if (!branch?.startsWith(BRANCH_PREFIX) || !wtPath) continue;
    const base = await git(["rev-parse", "--verify", "-q", `${BASE_REF_PREFIX}${branch.slice(BRANCH_PREFIX.length)}`], { cwd: repo }).catch(() => undefined);
    const changed = base ? (await git(["diff", "--name-only", base, branch], { cwd: repo }).catch(() => "")).split("\n").filter(Boolean) : [];
    const pid = /\bpid (\d+)/.exec(fields.get("locked") ?? "")?.[1];
    out.push({
      path: wtPath,
      branch,
      head: fields.get("HEAD") ?? "",
      base,
      changed,
      inUseBy: pid && pidExists(Number(pid)) ? Number(pid) : undefined,
      missing: !fs.existsSync(wtPath),
    });
  }
  return out;
}

/** Removes every orca worktree no running orca works in, with its branch; returns what it did, one line each. */
export async function pruneOrcaWorktrees(repo: string): Promise<string[]> {
  const lines: string[] = [];
  for (const wt of await listOrcaWorktrees(repo)) {
    if (wt.inUseBy !== undefined) {
      lines.push(`kept ${wt.path}: orca (pid ${wt.inUseBy}) is working in it`);
      continue;
    }
    await removeWorktree(repo, wt.path, wt.branch);
    lines.push(`removed ${wt.path} and branch ${wt.branch} (was at ${wt.head.slice(0, 12)}; \`git branch ${wt.branch} ${wt.head.slice(0, 12)}\` brings it back until git gc)`);
  }
  await git(["worktree", "prune"], { cwd: repo }).catch(() => undefined);
  return lines;
}
