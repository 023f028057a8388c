import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { readEntryConfined, removeConfined, SymlinkRefused, writeFileAtomic, writeSymlinkAtomic, type Entry } from "../tools/confined-fs.js";
import { isInside, Workspace, WorkspaceError } from "../tools/workspace.js";
import { git, gitBytes, gitRun } from "./git.js";
import type { RepoPaths } from "../util/git-env.js";

/**
 * Brings a worktree's changes (base..head) into the main working tree with a 3-way merge per
 * file: base is what the agent started from, "ours" is the file in the main tree now (which may
 * hold the user's uncommitted edits, or another agent's merged work), "theirs" the agent's.
 * Neither the main index nor HEAD is touched: the result is uncommitted changes, as if the edits
 * had been made in place. All or nothing: when one file conflicts, no file is written, so the main
 * tree is never left half-merged and the agent's branch holds its whole work.
 */

export interface Change {
  /** Repository-relative, with forward slashes, as git prints it. */
  path: string;
  baseMode: string;
  headMode: string;
  baseSha: string;
  headSha: string;
}

export interface MergeOutcome {
  /** Repository-relative paths written (or deleted) in the main tree. */
  applied: string[];
  /** Repository-relative paths that could not be merged; nothing was written when not empty. */
  conflicts: string[];
  /** Repository-relative paths outside the main workspace (or behind a symlink leading out of it). */
  outside: string[];
  /** Paths that were not merged for another reason (a symlink in the way, a gitlink, a protected path refused), each with why. */
  refused: Array<{ path: string; why: string }>;
}

const ZERO = /^0+$/;
const REGULAR = new Set(["100644", "100755"]);
const SYMLINK = "120000";
const GITLINK = "160000";

/** Every path base..head changes, without rename detection (a rename is a delete and an add). */
export async function changesBetween(repo: RepoPaths, base: string, head: string): Promise<Change[]> {
  const raw = await git(["diff", "--raw", "-z", "--no-renames", "--no-abbrev", "--no-ext-diff", "--no-textconv", "--ignore-submodules=none", base, head], { cwd: repo.workTree, repo });
  const parts = raw.split("\0");
  const changes: Change[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [baseMode, headMode, baseSha, headSha] = parts[i]!.replace(/^:/, "").split(" ");
    changes.push({ path: parts[i + 1]!, baseMode: baseMode!, headMode: headMode!, baseSha: baseSha!, headSha: headSha! });
  }
  return changes;
}

/** A file as it is (or is not) somewhere: its kind and bytes. */
export type Version = Entry;

/** One file the merge will write (or delete), absolute. */
export interface Plan {
  path: string;
  /** What the main tree holds now (what the write replaces). */
  before: Version;
  write: Version;
}

/**
 * Told of each temporary file a merge-back write is about to create, before it exists, so the
 * caller can log it (file_write) and the next start can remove it after a crash.
 */
export type WriteAnnouncer = (plan: Plan, temp: string) => void;

export interface MergePlan {
  plans: Plan[];
  conflicts: string[];
  outside: string[];
  refused: Array<{ path: string; why: string }>;
}

/**
 * What merging `changes` into the main tree would write, without writing anything. `workspace`
 * is the main workspace: a change outside it (the agent's bash wrote there), one whose directory
 * in the main tree is reached through a symlink (any component: the merge follows none), a
 * symlink of the branch's that points out of the workspace, and a gitlink are never written.
 * The main tree's file ("ours") is read through the confined walk, after the branch's blobs: a
 * folder swapped for a symlink meanwhile refuses the file, it is never read through.
 */
export async function planMerge(repo: RepoPaths, workspace: Workspace, changes: Change[], labels: { ours: string; theirs: string }): Promise<MergePlan> {
  const out: MergePlan = { plans: [], conflicts: [], outside: [], refused: [] };
  for (const change of changes) {
    const target = path.join(repo.workTree, ...change.path.split("/"));
    if (target === workspace.root || !isInside(workspace.root, target)) {
      out.outside.push(change.path);
      continue;
    }
    if (change.baseMode === GITLINK || change.headMode === GITLINK) {
      out.refused.push({ path: change.path, why: "a nested repository (gitlink) is never merged" });
      continue;
    }
    const blocked = symlinkOnTheWay(workspace.root, target);
    if (blocked) {
      out.refused.push({ path: change.path, why: `${path.relative(repo.workTree, blocked)} is a symlink in the main tree; the merge follows none` });
      continue;
    }
    const [base, theirs] = await Promise.all([blob(repo, change.baseMode, change.baseSha), blob(repo, change.headMode, change.headSha)]);
    if (theirs.kind === "link" && !isInside(workspace.root, path.resolve(path.dirname(target), theirs.bytes.toString()))) {
      out.outside.push(change.path);
      continue;
    }
    if (theirs.kind === "link" && climbsAfterName(theirs.bytes.toString())) {
      out.refused.push({ path: change.path, why: "its symlink target has `..` after a name: through another link it could lead out of the workspace" });
      continue;
    }
    let ours: Version;
    try {
      ours = await readEntryConfined(workspace, target);
    } catch (err) {
      if (!(err instanceof SymlinkRefused)) throw err;
      out.refused.push({ path: change.path, why: "a symlink appeared on its path in the main tree; the merge follows none" });
      continue;
    }
    if (same(ours, theirs)) continue; // Already so in the main tree.
    if (same(ours, base)) {
      out.plans.push({ path: target, before: ours, write: theirs });
      continue;
    }
    const textual = ours.kind !== "missing" && base.kind !== "missing" && theirs.kind !== "missing" && isRegular(ours) && isRegular(base) && isRegular(theirs);
    const merged = textual ? await mergeFile(repo, ours.bytes, base.bytes, theirs.bytes, labels) : null;
    if (merged === null) out.conflicts.push(change.path);
    // The agent's mode change wins; otherwise the main tree's mode stays.
    else out.plans.push({ path: target, before: ours, write: { kind: base.kind !== theirs.kind ? theirs.kind : ours.kind, bytes: merged } });
  }
  return out;
}

/**
 * The first directory on the way from `root` to `target` that is a symlink, or null. A missing
 * one is fine (the merge makes it). The last component is not looked at: a link there is
 * replaced by the rename, never followed.
 */
export function symlinkOnTheWay(root: string, target: string): string | null {
  const parts = path.relative(root, target).split(path.sep);
  let current = root;
  for (let i = 0; i < parts.length - 1; i++) {
    current = path.join(current, parts[i]!);
    const stat = fs.lstatSync(current, { throwIfNoEntry: false });
    if (!stat) return null;
    if (stat.isSymbolicLink()) return current;
  }
  return null;
}

async function blob(repo: RepoPaths, mode: string, sha: string): Promise<Version> {
  if (ZERO.test(sha) || ZERO.test(mode)) return { kind: "missing", bytes: Buffer.alloc(0) };
  if (!REGULAR.has(mode) && mode !== SYMLINK) return { kind: "other", bytes: Buffer.from(sha) };
  const bytes = await gitBytes(["cat-file", "blob", sha], { cwd: repo.workTree, repo });
  return { kind: mode === SYMLINK ? "link" : mode === "100755" ? "exec" : "file", bytes };
}

/**
 * A link target with `..` after a name (`a/s/../../etc`): lexically inside, but `a/s` may itself be
 * a link (the branch's own, written in the same merge), and `..` climbs from where that leads.
 * Leading `..` only climb from the link's own folder, which the confined walk reached without links.
 */
export function climbsAfterName(target: string): boolean {
  let named = false;
  for (const segment of target.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") named = true;
    else if (named) return true;
  }
  return false;
}

const isRegular = (v: Version): boolean => v.kind === "file" || v.kind === "exec";

function same(a: Version, b: Version): boolean {
  return a.kind === b.kind && a.bytes.equals(b.bytes);
}

/** git merge-file on the three versions; null when it conflicts or cannot merge (binary). */
async function mergeFile(repo: RepoPaths, ours: Buffer, base: Buffer, theirs: Buffer, labels: { ours: string; theirs: string }): Promise<Buffer | null> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-merge-"));
  try {
    // The bytes read through the walk, never the main tree's path: merge-file would follow a link.
    const oursPath = path.join(dir, "ours");
    fs.writeFileSync(oursPath, ours);
    const basePath = path.join(dir, "base");
    const theirsPath = path.join(dir, "theirs");
    fs.writeFileSync(basePath, base);
    fs.writeFileSync(theirsPath, theirs);
    const run = await gitRun(["merge-file", "-p", "-L", labels.ours, "-L", "base", "-L", labels.theirs, oursPath, basePath, theirsPath], { cwd: repo.workTree, repo });
    return run.code === 0 ? run.stdout : null;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** planMerge, then, only when nothing was in the way, every plan written: all or nothing. */
export async function mergeInto(repo: RepoPaths, workspace: Workspace, changes: Change[], labels: { ours: string; theirs: string }): Promise<MergeOutcome> {
  const plan = await planMerge(repo, workspace, changes, labels);
  const { conflicts, outside, refused } = plan;
  if (conflicts.length || outside.length || refused.length) return { applied: [], conflicts, outside, refused };
  const written = await applyPlans(workspace, plan.plans);
  return { applied: written.written.map((p) => repoRelative(repo, p)), conflicts, outside, refused: written.refused.map((r) => ({ ...r, path: repoRelative(repo, r.path) })) };
}

export const repoRelative = (repo: RepoPaths, abs: string): string => path.relative(repo.workTree, abs).split(path.sep).join("/");

/**
 * Writes every plan, each only if no component of its path became a symlink meanwhile (the
 * scheduler holds the paths, but a background shell is not scheduled). Returns the paths written.
 */
export async function applyPlans(workspace: Workspace, plans: readonly Plan[], announce?: WriteAnnouncer): Promise<{ written: string[]; refused: Array<{ path: string; why: string }> }> {
  const written: string[] = [];
  const refused: Array<{ path: string; why: string }> = [];
  for (const plan of plans) {
    const blocked = symlinkOnTheWay(workspace.root, plan.path);
    if (blocked) {
      refused.push({ path: plan.path, why: `${path.relative(workspace.root, blocked)} became a symlink` });
      continue;
    }
    try {
      await writeVersion(workspace, plan, announce);
      written.push(plan.path);
    } catch (err) {
      // The walk found a symlink swapped in after the check above (or the write failed): that file
      // is refused with git's own words for it, never written through the link.
      refused.push({ path: plan.path, why: err instanceof SymlinkRefused ? "a symlink appeared on its path" : (err as Error).message });
    }
  }
  // Links are checked once all are written: a chain through another link (the branch's or one the
  // main tree had) is only seen whole now. One leading out is removed again.
  const root = new Workspace(workspace.root);
  for (const plan of plans) {
    if (plan.write.kind !== "link" || !written.includes(plan.path) || !leadsOut(root, plan.path)) continue;
    written.splice(written.indexOf(plan.path), 1);
    try {
      await removeConfined(workspace, plan.path);
      refused.push({ path: plan.path, why: "its symlink leads out of the workspace through another link; removed again" });
    } catch (err) {
      refused.push({ path: plan.path, why: `its symlink leads out of the workspace through another link, and could not be removed: ${(err as Error).message}` });
    }
  }
  return { written, refused };
}

function leadsOut(root: Workspace, link: string): boolean {
  try {
    root.resolve(link);
    return false;
  } catch (err) {
    if (err instanceof WorkspaceError) return true;
    throw err;
  }
}

/**
 * The one place the merge puts bytes on disk: the same confined, crash-safe path as write_file
 * (tools/confined-fs.ts: no symlink followed in any component, a temporary file renamed over the
 * target, fsynced). A branch's own symlink (already checked to point inside the workspace) is a
 * link made beside the target, in the folder the walk opened, and renamed over it there.
 */
async function writeVersion(workspace: Workspace, plan: Plan, announce?: WriteAnnouncer): Promise<void> {
  const { path: file, write: version } = plan;
  if (version.kind === "missing") {
    await removeConfined(workspace, file);
    return;
  }
  const onTemp = announce ? { onTemp: (temp: string) => announce(plan, temp) } : {};
  if (version.kind === "link") {
    await writeSymlinkAtomic(workspace, file, version.bytes.toString(), { createParents: true, ...onTemp });
    return;
  }
  // An existing file keeps its permission bits unless the exec bit is what changed.
  await writeFileAtomic(workspace, file, version.bytes, {
    createParents: true,
    mode: version.kind === "exec" ? 0o755 : 0o644,
    exec: version.kind === "exec",
    ...onTemp,
  });
}
