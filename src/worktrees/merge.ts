import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isInside, WorkspaceError, type Workspace } from "../tools/workspace.js";
import { git, gitBytes, gitRun } from "./git.js";

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
}

const ZERO = /^0+$/;
const REGULAR = new Set(["100644", "100755"]);
const SYMLINK = "120000";

/** Every path base..head changes, without rename detection (a rename is a delete and an add). */
export async function changesBetween(repo: string, base: string, head: string): Promise<Change[]> {
  const raw = await git(["diff", "--raw", "-z", "--no-renames", "--no-abbrev", base, head], { cwd: repo });
  const parts = raw.split("\0");
  const changes: Change[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [baseMode, headMode, baseSha, headSha] = parts[i]!.replace(/^:/, "").split(" ");
    changes.push({ path: parts[i + 1]!, baseMode: baseMode!, headMode: headMode!, baseSha: baseSha!, headSha: headSha! });
  }
  return changes;
}

/** A file as it is (or is not) somewhere: its kind and bytes. */
interface Version {
  kind: "missing" | "file" | "exec" | "link" | "other";
  bytes: Buffer;
}

type Plan = { path: string; write: Version };

/**
 * `workspace` is the main workspace: a change outside it (the agent's bash wrote there) or behind
 * a symlink of the main tree that leads out of it is never written; it makes the merge fail.
 */
export async function mergeInto(repo: string, workspace: Workspace, changes: Change[], labels: { ours: string; theirs: string }): Promise<MergeOutcome> {
  const plans: Plan[] = [];
  const conflicts: string[] = [];
  const outside: string[] = [];
  for (const change of changes) {
    const target = inside(workspace, path.join(repo, ...change.path.split("/")));
    if (target === null) {
      outside.push(change.path);
      continue;
    }
    const [base, theirs] = await Promise.all([blob(repo, change.baseMode, change.baseSha), blob(repo, change.headMode, change.headSha)]);
    const ours = onDisk(target);
    if (same(ours, theirs)) continue; // Already so in the main tree.
    if (same(ours, base)) {
      plans.push({ path: target, write: theirs });
      continue;
    }
    const textual = ours.kind !== "missing" && base.kind !== "missing" && theirs.kind !== "missing" && isRegular(ours) && isRegular(base) && isRegular(theirs);
    const merged = textual ? await mergeFile(repo, target, base.bytes, theirs.bytes, labels) : null;
    if (merged === null) conflicts.push(change.path);
    // The agent's mode change wins; otherwise the main tree's mode stays.
    else plans.push({ path: target, write: { kind: base.kind !== theirs.kind ? theirs.kind : ours.kind, bytes: merged } });
  }
  if (conflicts.length || outside.length) return { applied: [], conflicts, outside };
  for (const plan of plans) write(plan.path, plan.write);
  return { applied: plans.map((p) => path.relative(repo, p.path).split(path.sep).join("/")), conflicts, outside };
}

/**
 * The path to write for `target`, its directory resolved through symlinks (its last component
 * is not: a link there is replaced, never followed); null when that lands outside the workspace.
 */
function inside(workspace: Workspace, target: string): string | null {
  if (path.resolve(target) === workspace.root || !isInside(workspace.root, path.resolve(target))) return null;
  try {
    const dir = workspace.resolve(path.dirname(target));
    return isInside(workspace.root, dir) ? path.join(dir, path.basename(target)) : null;
  } catch (error) {
    if (error instanceof WorkspaceError) return null;
    throw error;
  }
}

async function blob(repo: string, mode: string, sha: string): Promise<Version> {
  if (ZERO.test(sha) || ZERO.test(mode)) return { kind: "missing", bytes: Buffer.alloc(0) };
  if (!REGULAR.has(mode) && mode !== SYMLINK) return { kind: "other", bytes: Buffer.from(sha) };
  const bytes = await gitBytes(["cat-file", "blob", sha], { cwd: repo });
  return { kind: mode === SYMLINK ? "link" : mode === "100755" ? "exec" : "file", bytes };
}

function onDisk(file: string): Version {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return { kind: "missing", bytes: Buffer.alloc(0) };
  }
  if (stat.isSymbolicLink()) return { kind: "link", bytes: Buffer.from(fs.readlinkSync(file)) };
  if (!stat.isFile()) return { kind: "other", bytes: Buffer.alloc(0) };
  return { kind: stat.mode & 0o100 ? "exec" : "file", bytes: fs.readFileSync(file) };
}

const isRegular = (v: Version): boolean => v.kind === "file" || v.kind === "exec";

function same(a: Version, b: Version): boolean {
  return a.kind === b.kind && a.bytes.equals(b.bytes);
}

/** git merge-file on the three versions; null when it conflicts or cannot merge (binary). */
async function mergeFile(repo: string, ours: string, base: Buffer, theirs: Buffer, labels: { ours: string; theirs: string }): Promise<Buffer | null> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-merge-"));
  try {
    const basePath = path.join(dir, "base");
    const theirsPath = path.join(dir, "theirs");
    fs.writeFileSync(basePath, base);
    fs.writeFileSync(theirsPath, theirs);
    const run = await gitRun(["merge-file", "-p", "-L", labels.ours, "-L", "base", "-L", labels.theirs, ours, basePath, theirsPath], { cwd: repo });
    return run.code === 0 ? run.stdout : null;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes through a temporary file and a rename, so no reader ever sees half a file. */
function write(file: string, version: Version): void {
  if (version.kind === "missing") {
    fs.rmSync(file, { force: true });
    return;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.orca-${crypto.randomBytes(4).toString("hex")}`);
  if (version.kind === "link") {
    fs.symlinkSync(version.bytes.toString(), temp);
  } else {
    fs.writeFileSync(temp, version.bytes, { mode: version.kind === "exec" ? 0o755 : 0o644 });
    // An existing file keeps its permission bits unless the exec bit is what changed.
    try {
      const mode = fs.statSync(file).mode & 0o777;
      fs.chmodSync(temp, version.kind === "exec" ? mode | 0o111 : mode & ~0o111);
    } catch {
      // A new file: the mode given above.
    }
  }
  fs.renameSync(temp, file);
}
