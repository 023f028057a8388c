import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import PQueue from "p-queue";
import type { Entry } from "../tools/confined-fs.js";
import type { Workspace } from "../tools/workspace.js";
import { checkAdminDir, openRepo } from "./contained-repo.js";
import { git, gitBytes, GitError, ORCA_AUTHOR } from "./git.js";
import type { RepoPaths } from "../util/git-env.js";
import { applyPlans, changesBetween, planMerge, repoRelative, type Change, type MergeOutcome, type WriteAnnouncer } from "./merge.js";
import { stageWorkTree, type Skip } from "./stage.js";

/**
 * One git worktree per isolated sub-agent: a new branch `orca/<session>/<agent>` checked out in
 * `<data_dir>/worktrees/<repo>-<hash>/<session>-<agent>`, starting from HEAD plus a snapshot of
 * the main tree's uncommitted changes, so the agent sees exactly what the coordinator sees. The
 * snapshot commit is remembered as `refs/orca/base/<session>/<agent>`: the agent's changes are
 * measured from it, so the user's own uncommitted edits are never merged back twice. While an
 * agent works in it, the worktree is locked (git worktree lock) with orca's pid as the reason.
 */

export const BRANCH_PREFIX = "orca/";
export const BASE_REF_PREFIX = "refs/orca/base/";

export interface Worktree {
  /** The main repository's top directory. */
  repo: string;
  /** The worktree's top directory. */
  path: string;
  /**
   * Its administrative directory in the main repository (.git/worktrees/<name>). orca's own git
   * calls in the worktree name it, never trusting the `.git` file there, which the agent could rewrite.
   */
  gitDir: string;
  /** The main repository's git dir, which the admin dir's `commondir` must name. */
  commonDir: string;
  branch: string;
  /** The commit the agent's changes are measured from. */
  base: string;
  /** The agent's workspace: the main workspace's place in the repository, inside the worktree. */
  workspaceRoot: string;
}

export type Opened = { worktree: Worktree; reused: boolean; note?: string } | { unavailable: string };

/** More untracked files than this (a build folder nobody ignored) are left out of the snapshot. */
export const UNTRACKED_LIMIT = 2000;

/** What the caller says about the files a merge is about to write (absolute): those it refuses, each with why. */
export type MergeVet = (files: string[]) => Promise<Array<{ path: string; why: string }>>;

export interface FinishResult extends MergeOutcome {
  /** The branch's commit holding the agent's work; null when it changed nothing. */
  head: string | null;
}

interface Repository {
  repo: string;
  head: string;
  headTree: string;
  /** The git dir of the working tree the workspace is in. */
  gitDir: string;
  /** The shared git directory (where .git/worktrees/ is). */
  commonDir: string;
  indexFile: string;
  /** How many untracked files that are not ignored the main tree has. */
  untracked: number;
}

/** The repository a directory is in (one git call), or why there is none orca can use. */
export async function repositoryOf(dir: string, signal?: AbortSignal): Promise<Repository | { unavailable: string }> {
  let lines: string[];
  // Listed alongside, not after: snapshot() needs it, and one git start less is felt on a busy machine.
  const untracked = gitBytes(["ls-files", "--others", "--exclude-standard", "-z", "--", ":/"], { cwd: dir, signal }).then(
    (out) => out.toString("utf8").split("\0").filter(Boolean).length,
    () => 0,
  );
  try {
    lines = (await git(["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir", "--git-path", "index", "HEAD", "HEAD^{tree}"], { cwd: dir, signal })).split("\n");
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    if (error.code === null) return { unavailable: "git is not installed" };
    const inRepo = await git(["rev-parse", "--show-toplevel"], { cwd: dir, signal }).then(Boolean, () => false);
    return { unavailable: inRepo ? "the repository has no commit yet" : "the workspace is not in a git repository" };
  }
  const [top, gitDir, common, index, head, headTree] = lines;
  if (!top || !gitDir || !common || !index || !head || !headTree) return { unavailable: "the workspace is not in a git repository's working tree" };
  return { repo: fs.realpathSync(top), head, headTree, gitDir, commonDir: path.resolve(dir, common), indexFile: path.resolve(dir, index), untracked: await untracked };
}

export function repoKey(repo: string): string {
  return `${path.basename(repo).replace(/[^A-Za-z0-9._-]/g, "_")}-${crypto.createHash("sha1").update(repo).digest("hex").slice(0, 8)}`;
}

export class WorktreeManager {
  /** Merges one at a time. */
  private readonly merges = new PQueue({ concurrency: 1 });
  /**
   * git's worktree commands one at a time. Each lists the repository's worktrees, and one
   * `worktree add` can read another's half-made admin directory and fail ("failed to read
   * .git/worktrees/<other>/commondir"). The snapshots before them still run in parallel.
   */
  private readonly admin = new PQueue({ concurrency: 1 });

  constructor(
    private readonly opts: {
      /** Where worktrees go: `<data_dir>/worktrees`. */
      dir: string;
      sessionId: string;
      /** The main workspace. */
      workspace: Workspace;
      /** Whether a read deny hides a workspace-relative path: such a file is never recorded in a commit. */
      readDenied?: (relative: string) => boolean;
    },
  ) {}

  /** What stageWorkTree leaves out: files a read deny hides, judged from `root` (a workspace). */
  private skipFor(workTree: string, root: string): Skip {
    const denied = this.opts.readDenied;
    if (!denied) return () => false;
    return (rel) => {
      const abs = path.join(workTree, ...rel.split("/"));
      return abs !== root && path.relative(root, abs).startsWith("..") ? false : denied(path.relative(root, abs));
    };
  }

  /** The agent's worktree: the one it had (a resumed agent), or a new one. */
  async open(agentId: string, signal?: AbortSignal): Promise<Opened> {
    const found = await repositoryOf(this.opts.workspace.root, signal);
    if ("unavailable" in found) return found;
    const { repo } = found;
    const name = `${this.opts.sessionId}-${agentId}`;
    const wtPath = path.join(this.opts.dir, repoKey(repo), name);
    const branch = `${BRANCH_PREFIX}${this.opts.sessionId}/${agentId}`;
    const baseRef = `${BASE_REF_PREFIX}${this.opts.sessionId}/${agentId}`;
    const workspaceRoot = path.join(wtPath, path.relative(repo, this.opts.workspace.root));
    const main = await openMain(found, signal);
    const opts = { cwd: repo, signal, repo: main };
    const { commonDir } = found;
    const known = adminDirOf(commonDir, wtPath);
    if (known) {
      checkAdminDir(known, commonDir, wtPath);
      const base = await git(["rev-parse", "--verify", "-q", baseRef], opts).catch(() => git(["rev-parse", branch], opts));
      await this.admin.add(() => this.lock(repo, wtPath));
      return { worktree: { repo, path: wtPath, gitDir: known, commonDir, branch, base, workspaceRoot }, reused: true };
    }
    const skip = this.skipFor(repo, this.opts.workspace.root);
    const { base, note } = await snapshot(found, main, skip, `orca: uncommitted changes when ${agentId} started`, signal);
    fs.mkdirSync(path.dirname(wtPath), { recursive: true });
    const add = (lock: string[]) => addWorktree(["--quiet", ...lock], { branch, path: wtPath, base }, opts);
    await Promise.all([
      this.admin.add(() =>
        // `add --reason` needs git 2.35; an older git adds first and locks after.
        add(["--lock", "--reason", this.lockReason()]).catch(async (error: unknown) => {
          if (!(error instanceof GitError && /unknown option|usage:/.test(error.stderr))) throw error;
          await add([]);
          await this.lock(repo, wtPath);
        }),
      ),
      git(["update-ref", baseRef, base], opts),
    ]);
    const gitDir = adminDirOf(commonDir, wtPath);
    if (!gitDir) throw new Error(`git worktree add did not register ${wtPath}`);
    checkAdminDir(gitDir, commonDir, wtPath);
    return { worktree: { repo, path: wtPath, gitDir, commonDir, branch, base, workspaceRoot }, reused: false, ...(note ? { note } : {}) };
  }

  /**
   * Records the agent's work as a commit on its branch, then, when `merge` is set, brings it into
   * the main tree (`withPaths` holds the scheduler's write slots on the files it touches). The
   * worktree is unlocked either way; the caller removes it after a clean merge.
   */
  finish(
    wt: Worktree,
    opts: {
      message: string;
      merge: boolean;
      labels: { ours: string; theirs: string };
      withPaths(paths: string[], fn: () => Promise<MergeOutcome>): Promise<MergeOutcome>;
      /** Asked before anything is written (protected paths go to the permission check here). */
      vet?: MergeVet;
      /** Told of each file the merge wrote (null bytes: deleted), for the read versions. */
      wrote?: (file: string, bytes: Buffer | null, before: Entry) => void;
      /** Told of each temporary file a write is about to create (see WriteAnnouncer). */
      announce?: WriteAnnouncer;
    },
  ): Promise<FinishResult> {
    return this.merges.add(async () => {
      try {
        checkAdminDir(wt.gitDir, wt.commonDir, wt.path);
        const head = await commitAll(wt, opts.message, this.skipFor(wt.path, wt.workspaceRoot));
        const none: FinishResult = { head, applied: [], conflicts: [], outside: [], refused: [] };
        if (!head || !opts.merge) return none;
        const found = await repositoryOf(this.opts.workspace.root);
        if ("unavailable" in found) throw new GitError(`the main repository: ${found.unavailable}`, null, "");
        const main = await openMain(found);
        const changes = await changesBetween(main, wt.base, head);
        if (!changes.length) return none;
        const paths = changes.map((c) => path.join(main.workTree, ...c.path.split("/")));
        const merged = await opts.withPaths(paths, () => this.merge(main, changes, opts));
        return { head, ...merged };
      } finally {
        await this.admin.add(() => git(["worktree", "unlock", wt.path], { cwd: wt.repo })).catch(() => undefined);
      }
    });
  }

  /** The merge itself, inside the scheduler's hold on its paths: plan, vet, write, record. */
  private async merge(main: RepoPaths, changes: Change[], opts: { labels: { ours: string; theirs: string }; vet?: MergeVet; wrote?: (file: string, bytes: Buffer | null, before: Entry) => void; announce?: WriteAnnouncer }): Promise<MergeOutcome> {
    const plan = await planMerge(main, this.opts.workspace, changes, opts.labels);
    const { conflicts, outside } = plan;
    const rel = (p: string) => repoRelative(main, p);
    if (conflicts.length || outside.length || plan.refused.length) return { applied: [], conflicts, outside, refused: plan.refused };
    const vetoed = opts.vet ? await opts.vet(plan.plans.map((p) => p.path)) : [];
    if (vetoed.length) return { applied: [], conflicts, outside, refused: vetoed.map((v) => ({ ...v, path: rel(v.path) })) };
    const { written, refused } = await applyPlans(this.opts.workspace, plan.plans, opts.announce);
    for (const p of plan.plans) if (written.includes(p.path)) opts.wrote?.(p.path, p.write.kind === "missing" ? null : p.write.bytes, p.before);
    return { applied: written.map(rel), conflicts, outside, refused: refused.map((r) => ({ ...r, path: rel(r.path) })) };
  }

  /** Deletes the worktree, its branch and its base ref (after a clean merge: nothing is lost). */
  async remove(wt: Worktree): Promise<void> {
    await this.admin.add(() => removeWorktree(wt.repo, wt.path, wt.branch, wt.gitDir));
  }

  private lockReason(): string {
    return `orca session ${this.opts.sessionId} pid ${process.pid}`;
  }

  private async lock(repo: string, wtPath: string): Promise<void> {
    await git(["worktree", "lock", "--reason", this.lockReason(), wtPath], { cwd: repo }).catch((error: unknown) => {
      // Already locked by this process (a resumed agent): fine.
      if (!(error instanceof GitError && /already locked/.test(error.message))) throw error;
    });
  }

}

/**
 * `git worktree add`, tried again when it tripped over another process's worktree being made or
 * removed at that moment (two orca sessions in one repository): in-process adds are already in turn.
 */
function addWorktree(args: string[], to: { branch: string; path: string; base: string }, opts: { cwd: string; signal?: AbortSignal }): Promise<string> {
  // git makes the branch before it looks at the other worktrees: a retry resets it (it is this agent's, just made).
  return untilNotRaced((attempt) => git(["worktree", "add", ...args, attempt === 1 ? "-b" : "-B", to.branch, to.path, to.base], opts), opts.signal);
}

/** Runs a git command that lists the worktrees again (up to 3 times) when one of them was half made or half removed. */
async function untilNotRaced<T>(run: (attempt: number) => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run(attempt);
    } catch (error) {
      const raced = error instanceof GitError && /failed to read .*worktrees[\\/]/.test(error.message);
      if (!raced || attempt === 3 || signal?.aborted) throw error;
    }
  }
}

/**
 * Removes a worktree (even a locked one), its branch and base ref; missing pieces are fine. When
 * git will not (its `.git` file was tampered with), the directory and its admin entry go by hand.
 */
export async function removeWorktree(repo: string, wtPath: string, branch: string, gitDir?: string): Promise<void> {
  const opts = { cwd: repo };
  // `git worktree prune` is left to `orca worktrees prune`: run here it could race another agent's `worktree add`.
  await git(["worktree", "remove", "--force", "--force", wtPath], opts).catch(async () => {
    fs.rmSync(wtPath, { recursive: true, force: true });
    if (gitDir) fs.rmSync(gitDir, { recursive: true, force: true });
    else await git(["worktree", "prune"], opts).catch(() => undefined);
  });
  await untilNotRaced(() => git(["branch", "-D", branch], opts)).catch(() => undefined);
  if (branch.startsWith(BRANCH_PREFIX)) await git(["update-ref", "-d", `${BASE_REF_PREFIX}${branch.slice(BRANCH_PREFIX.length)}`], opts).catch(() => undefined);
}

/** The admin directory of the repository's worktree at `wtPath`, or null when there is none (anymore). */
function adminDirOf(commonDir: string, wtPath: string): string | null {
  let real: string;
  try {
    real = fs.realpathSync(wtPath);
  } catch {
    return null;
  }
  const admin = path.join(commonDir, "worktrees");
  let names: string[];
  try {
    names = fs.readdirSync(admin);
  } catch {
    return null;
  }
  // git names it after the directory, with a number when that name is taken: look there first.
  const base = path.basename(wtPath);
  names.sort((a, b) => Number(b.startsWith(base)) - Number(a.startsWith(base)));
  for (const name of names) {
    try {
      const gitdir = fs.readFileSync(path.join(admin, name, "gitdir"), "utf8").trim();
      if (fs.realpathSync(path.dirname(gitdir)) === real) return path.join(admin, name);
    } catch {
      // A stale entry (its worktree is gone): not this one.
    }
  }
  return null;
}

/** The main repository, checked and made ready for orca's git (contained-repo.ts). */
async function openMain(found: Repository, signal?: AbortSignal): Promise<RepoPaths> {
  if (path.resolve(found.gitDir) !== path.resolve(found.commonDir)) checkAdminDir(found.gitDir, found.commonDir, found.repo);
  return openRepo({ gitDir: found.gitDir, commonDir: found.commonDir, workTree: found.repo }, signal);
}

/**
 * HEAD plus the main tree's uncommitted changes (modified, deleted and untracked files that are
 * not ignored; no untracked file when there are too many; never a file a read deny hides, nor a
 * nested repository) as a commit on top of HEAD; HEAD itself when there are none. A copy of the
 * index is used, so the user's index is untouched and unchanged files are not hashed again.
 */
async function snapshot(repo: Repository, main: RepoPaths, skip: Skip, message: string, signal?: AbortSignal): Promise<{ base: string; note?: string }> {
  const tooMany = repo.untracked > UNTRACKED_LIMIT;
  const privateIndex = `${repo.indexFile}.orca-${crypto.randomBytes(4).toString("hex")}`;
  try {
    if (fs.existsSync(repo.indexFile)) {
      fs.copyFileSync(repo.indexFile, privateIndex);
      // The copy keeps the index's mtime: git content-checks an entry as old as the index ("racy"),
      // and a newer copy would make it trust the stat of a same-size change made in that second.
      const { atime, mtime } = fs.statSync(repo.indexFile);
      fs.utimesSync(privateIndex, atime, mtime);
    }
    await stageWorkTree(main, { index: privateIndex, untracked: !tooMany, skip, signal });
    const tree = await git(["write-tree"], { cwd: repo.repo, repo: main, env: { GIT_INDEX_FILE: privateIndex }, signal });
    const note = tooMany ? `its worktree has none of the ${repo.untracked} untracked files of the main tree (more than ${UNTRACKED_LIMIT}; add them to .gitignore or commit them)` : undefined;
    if (tree === repo.headTree) return { base: repo.head, note };
    return { base: await git(["commit-tree", "--no-gpg-sign", tree, "-p", repo.head, "-m", message], { cwd: repo.repo, repo: main, env: ORCA_AUTHOR, signal }), note };
  } finally {
    fs.rmSync(privateIndex, { force: true });
  }
}

/** Commits everything in the worktree onto its branch; the new head, or null when nothing changed. */
async function commitAll(wt: Worktree, message: string, skip: Skip): Promise<string | null> {
  const repo = await openRepo({ gitDir: wt.gitDir, commonDir: wt.commonDir, workTree: wt.path });
  const opts = { cwd: wt.path, repo };
  await stageWorkTree(repo, { untracked: true, skip });
  const tree = await git(["write-tree"], opts);
  const head = await git(["rev-parse", "HEAD"], opts);
  const headTree = await git(["rev-parse", "HEAD^{tree}"], opts);
  if (tree === headTree) return head === wt.base ? null : head;
  const commit = await git(["commit-tree", "--no-gpg-sign", tree, "-p", head, "-m", message], { ...opts, env: ORCA_AUTHOR });
  await git(["update-ref", `refs/heads/${wt.branch}`, commit, head], opts);
  return commit;
}
