import fs from "node:fs";
import path from "node:path";
import { realpathOr } from "../../util/fs.js";
import { neutraliseGitDir, type Neutralised } from "./git-dir-check.js";
import { protectedPaths } from "./protected.js";
import { isInside } from "../workspace.js";
import type { InputOf } from "../../events/types.js";
import { nestedRepoNotice } from "../../events/schema-nested-repos.js";

/**
 * Git repositories inside a writable root besides its own: a sandboxed command can make one
 * anywhere it may write (`git init sub`, or a `.git` folder written by hand), and its config or
 * hooks would run when the user later runs git there, outside the sandbox. The sandbox cannot
 * forbid the name, so orca looks after each command instead:
 *
 * - the repositories there when the session first looks (the user's own) are protected like
 *   submodules — config, hooks and the rest read-only, the git dir pinned (protected.ts);
 * - one that appeared later (an agent's) is checked once the command has ended, right after a file
 *   tool's write into it, and whenever its git dir changes: what in it could run code is moved to
 *   a quarantine (git-dir-check.ts). Only a folder git would take for a git dir is changed, never
 *   one of the user's (a `.git` the agent points at `.claude/` or `deploy/` moves nothing there).
 *
 * Finding them is a walk of the root's directories, but each directory is read only when its
 * ctime moved since the last walk (a new entry changes it, and a command cannot set it back), so
 * a walk after a command costs one lstat per directory. A folder that holds HEAD, objects and refs
 * counts too: git takes it for a bare repository when the user runs git inside it.
 */

/** A `.git` (folder, file or link) or a bare-looking folder, and the git dir it leads to. */
export interface GitEntry {
  /** The `.git` entry, or the bare repository's folder. */
  entry: string;
  /** Null: a `.git` file or link whose git dir is not there. */
  gitDir: string | null;
}

interface DirState {
  ctime: bigint;
  ino: bigint;
  subdirs: string[];
  entries: GitEntry[];
}

/**
 * A directory read this close to a walk (ns) could change again within the file system's timestamp
 * granularity without its ctime moving: it is read again next time.
 */
const RACY_NS = 2_000_000_000n;

/** Walks a root for git entries, reading only the directories that changed since the last walk. */
export class GitEntryWalker {
  private dirs = new Map<string, DirState>();

  constructor(private readonly root: string) {}

  walk(): GitEntry[] {
    const started = BigInt(Date.now()) * 1_000_000n;
    const next = new Map<string, DirState>();
    const found: GitEntry[] = [];
    const stack = [this.root];
    while (stack.length) {
      const dir = stack.pop()!;
      let stat: fs.BigIntStats;
      try {
        stat = fs.lstatSync(dir, { bigint: true });
      } catch {
        continue;
      }
      if (!stat.isDirectory()) continue;
      const known = this.dirs.get(dir);
      const state = known && known.ctime === stat.ctimeNs && known.ino === stat.ino && started - stat.ctimeNs > RACY_NS ? known : this.read(dir, stat);
      next.set(dir, state);
      found.push(...state.entries);
      stack.push(...state.subdirs);
    }
    this.dirs = next;
    return found;
  }

  private read(dir: string, stat: fs.BigIntStats): DirState {
    let items: fs.Dirent[];
    try {
      items = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return { ctime: stat.ctimeNs, ino: stat.ino, subdirs: [], entries: [] };
    }
    const subdirs: string[] = [];
    const entries: GitEntry[] = [];
    const names = new Set<string>();
    for (const item of items) {
      names.add(item.name);
      const full = path.join(dir, item.name);
      if (item.name === ".git") {
        // The root's own is protected (protected.ts); git dirs are not walked into.
        if (dir !== this.root) entries.push({ entry: full, gitDir: gitDirOf(full) });
        continue;
      }
      // A file system that does not say an entry's type: asked, without following a link.
      if (item.isDirectory() || (!item.isSymbolicLink() && !item.isFile() && lstatDir(full))) subdirs.push(full);
    }
    if (dir !== this.root && names.has("HEAD") && names.has("objects") && names.has("refs")) entries.push({ entry: dir, gitDir: dir });
    return { ctime: stat.ctimeNs, ino: stat.ino, subdirs, entries };
  }
}

/** The git dir a `.git` entry leads to (a folder, a link to one, or a `gitdir:` file), or null. */
export function gitDirOf(entry: string): string | null {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(entry);
  } catch {
    return null;
  }
  if (stat.isDirectory()) return entry;
  // Where it leads even while nothing is there: a git dir written there later is found by its path.
  if (stat.isSymbolicLink()) return isDir(entry) ? realpathOr(entry) : linkTarget(entry);
  try {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(entry, "utf8"));
    return m ? realpathOr(path.resolve(path.dirname(entry), m[1]!)) : null;
  } catch {
    return null;
  }
}

function lstatDir(p: string): boolean {
  try {
    return fs.lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

function linkTarget(link: string): string | null {
  try {
    return realpathOr(path.resolve(path.dirname(link), fs.readlinkSync(link)));
  } catch {
    return null;
  }
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** What a check found and did in one repository a command made. */
export interface NestedRepoReport extends Neutralised {
  /** The `.git` entry (or bare folder) that leads to it. */
  entry: string;
  /** Set when the git dir could not be changed: the reason. */
  failed?: string;
}

/**
 * The nested repositories of the writable roots: the user's (those there at the first look), kept
 * read-only by the sandbox, and the ones commands made, checked after each command.
 */
export class NestedRepos {
  private readonly walkers = new Map<string, GitEntryWalker>();
  /** Per root: the entries there at the first look, with their inode (one made later in their place is a command's). */
  private readonly existing = new Map<string, Map<string, bigint>>();
  /**
   * The git dirs the first look of each root found (its own, its worktrees' and submodules', the
   * nested ones'), real paths: only these are the user's. A folder a command made inside one (its
   * `objects/` and `modules/` are writable) is not.
   */
  private readonly userGitDirs = new Set<string>();
  /**
   * The first look's protected folders (`.claude/`, `.vscode/`, a git dir's `hooks/`…), real paths:
   * a `.git` leading into one is not a command's git dir, however it looks.
   */
  private readonly userProtected = new Set<string>();
  /** Every git dir an agent's entry led to (real paths, there or not yet), with that entry: a write inside one is checked. */
  private readonly agentGitDirs = new Map<string, string>();
  /** Per git dir a command made: its fingerprint when last checked. */
  private readonly checked = new Map<string, string>();
  /** Checks run one at a time; a queued one not started yet is shared by whoever asks meanwhile. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly pending = new Map<string, Promise<NestedRepoReport[]>>();
  /** The check walking now (or last), and when it began: one that began after a command ended has seen its work. */
  private running: { key: string; started: number; done: Promise<NestedRepoReport[]> } | null = null;

  constructor(private readonly report: (reports: NestedRepoReport[]) => void = () => {}) {}

  /**
   * The entries of `root` that were there when the session first looked (the user's), for the
   * sandbox to protect. The first call walks the whole root.
   */
  preexisting(root: string): string[] {
    let known = this.existing.get(root);
    if (!known) {
      known = new Map(this.walker(root).walk().map((e) => [e.entry, inode(e.entry)] as const));
      this.existing.set(root, known);
      const protection = protectedPaths(root, () => true, [], [...known.keys()]);
      for (const dir of protection.pins) this.userGitDirs.add(realpathOr(dir));
      for (const p of protection.readOnly) this.userProtected.add(realpathOr(p));
    }
    return [...known.keys()];
  }

  /**
   * Looks, once every command that wrote has ended, for repositories commands made in `roots` and
   * neutralises what in them could run code; what it did goes to the reporter once and is the
   * answer. A check that has not started yet, or started after `endedAt` (performance.now() when the
   * caller's command had ended), sees that command's work, so it is shared.
   */
  check(roots: readonly string[], isWritable: (p: string) => boolean, endedAt: number = performance.now()): Promise<NestedRepoReport[]> {
    const key = roots.join("\0");
    const waiting = this.pending.get(key);
    if (waiting) return waiting;
    if (this.running?.key === key && this.running.started >= endedAt) return this.running.done;
    const run: Promise<NestedRepoReport[]> = this.enqueue(() => {
      this.pending.delete(key);
      this.running = { key, started: performance.now(), done: run };
      return this.checkNow(roots, isWritable);
    });
    this.pending.set(key, run);
    return run;
  }

  /**
   * Checks, right after a file tool wrote `written` (absolute real paths), the repository each
   * belongs to: not a walk, only each path's ancestors up to its root — a `.git`, a bare-looking
   * folder, or a git dir an agent's entry leads to (the last write may complete a git dir whose
   * `.git` file or `commondir` was written earlier). Queued with every other check, so concurrent
   * writes to one new repository are each followed by a check that sees them.
   */
  checkWritten(roots: readonly string[], isWritable: (p: string) => boolean, written: readonly string[]): Promise<NestedRepoReport[]> {
    return this.enqueue(async () => {
      const reports: NestedRepoReport[] = [];
      const theirs = this.untouchable(roots);
      for (const file of written) {
        const root = roots.find((r) => isInside(r, file));
        if (root) for (const found of this.entriesAbove(root, file)) await this.checkEntry(found, root, roots, isWritable, theirs, reports);
      }
      return reports;
    });
  }

  /** Runs `work` after every check before it; what it found goes to the reporter once. */
  private enqueue(work: () => Promise<NestedRepoReport[]>): Promise<NestedRepoReport[]> {
    const run = this.queue.then(work);
    // A reporter that throws (a closed log) must not stop the checks after it.
    this.queue = run.then((reports) => reports.length && this.report(reports)).catch(() => undefined);
    return run;
  }

  /** The git entries `file` and its folders up to `root` (not included) are, or lead into. */
  private entriesAbove(root: string, file: string): GitEntry[] {
    const out: GitEntry[] = [];
    for (let dir = file; dir !== root && isInside(root, dir); dir = path.dirname(dir)) {
      if (path.basename(dir) === ".git") out.push({ entry: dir, gitDir: gitDirOf(dir) });
      else if (["HEAD", "objects", "refs"].every((name) => lstatOf(path.join(dir, name)))) out.push({ entry: dir, gitDir: dir });
      const entry = this.agentGitDirs.get(dir);
      if (entry !== undefined) out.push({ entry, gitDir: gitDirOf(entry) });
    }
    return out;
  }

  private async checkNow(roots: readonly string[], isWritable: (p: string) => boolean): Promise<NestedRepoReport[]> {
    const reports: NestedRepoReport[] = [];
    const theirs = this.untouchable(roots);
    for (const root of roots) for (const found of this.walker(root).walk()) await this.checkEntry(found, root, roots, isWritable, theirs, reports);
    return reports;
  }

  /** Neutralises the git dir (and common dir) one entry of `root` leads to, unless it is not a command's. */
  private async checkEntry(found: GitEntry, root: string, roots: readonly string[], isWritable: (p: string) => boolean, theirs: Set<string>, reports: NestedRepoReport[]): Promise<void> {
    const original = this.existing.get(root)?.get(found.entry);
    // A user's entry is left alone while it leads where it led at the first look: a `.git` file
    // whose git dir was missing then leads to whatever a command makes there now.
    if (original !== undefined && original === inode(found.entry) && (!found.gitDir || this.userGitDirs.has(realpathOr(found.gitDir)))) return;
    const chain = withCommonDir(found.gitDir && realpathOr(found.gitDir));
    for (const gitDir of chain) if (!theirs.has(gitDir)) this.agentGitDirs.set(gitDir, found.entry);
    // Nothing of a folder git does not take for a git dir runs: a `.git` leading to the user's
    // `deploy/` (a `config`, a `hooks/`) must not have them moved. A file that makes it one later
    // changes its fingerprint (or is a write inside it), so it is checked again then.
    if (!looksLikeGitDir(chain)) return;
    // A git dir no command can write is not one a command made; nor is the workspace's own, one of
    // the user's, or one inside a protected folder (`.claude/`), which a link or `gitdir:` file a
    // command made may lead to. A `commondir` sends git to another folder for config and hooks:
    // that one is checked too.
    for (const gitDir of chain) {
      if (!isWritable(gitDir) || theirs.has(gitDir) || [...this.userProtected].some((p) => isInside(p, gitDir))) continue;
      const print = fingerprint(gitDir);
      if (!print.includes("racy") && this.checked.get(gitDir) === print) continue;
      if (!roots.some((r) => isInside(r, gitDir))) {
        // A temp dir commands share (network on): maybe the user's own repository there. orca
        // changes nothing outside the workspace; the user is told instead.
        reports.push({ gitDir, entry: found.entry, removed: [], quarantine: "", failed: `its git dir ${gitDir} is outside the workspace, which orca does not change` });
        this.checked.set(gitDir, print);
        continue;
      }
      try {
        const done = await neutraliseGitDir(gitDir);
        if (done) reports.push({ ...done, entry: found.entry });
      } catch (error) {
        reports.push({ gitDir, entry: found.entry, removed: [], quarantine: "", failed: (error as Error).message });
        continue;
      }
      this.checked.set(gitDir, fingerprint(gitDir));
    }
  }

  /** The git dirs that are not a command's: each root's own, and those found at the first look. */
  private untouchable(roots: readonly string[]): Set<string> {
    const dirs = roots.map((root) => gitDirOf(path.join(root, ".git")));
    return new Set([...this.userGitDirs, ...dirs.filter((d): d is string => d !== null).map((d) => realpathOr(d))]);
  }

  private walker(root: string): GitEntryWalker {
    let walker = this.walkers.get(root);
    if (!walker) this.walkers.set(root, (walker = new GitEntryWalker(root)));
    return walker;
  }
}

/** A git dir and, when its `commondir` names another folder, that one (real paths). */
function withCommonDir(gitDir: string | null): string[] {
  if (!gitDir) return [];
  try {
    const common = realpathOr(path.resolve(gitDir, fs.readFileSync(path.join(gitDir, "commondir"), "utf8").trim()));
    return common === gitDir ? [gitDir] : [gitDir, common];
  } catch {
    return [gitDir];
  }
}

/**
 * Whether git would take the first of `chain` (a git dir, then its common dir) for a git dir: a
 * HEAD in it, a `refs` in the common dir (or in it). Looser than git (no `objects` asked for,
 * which an environment variable can stand in for), so a folder git would use is never skipped.
 */
function looksLikeGitDir(chain: readonly string[]): boolean {
  const [gitDir, common] = chain;
  if (!gitDir || !lstatOf(path.join(gitDir, "HEAD"))) return false;
  return lstatOf(path.join(common ?? gitDir, "refs")) !== undefined || lstatOf(path.join(gitDir, "refs")) !== undefined;
}

function lstatOf(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

function inode(p: string): bigint {
  try {
    return fs.lstatSync(p, { bigint: true }).ino;
  } catch {
    return -1n;
  }
}

/** What changes when anything a check looks at does: the git dir's entries, its config, its hooks. */
function fingerprint(gitDir: string): string {
  const now = BigInt(Date.now()) * 1_000_000n;
  return ["", "config", "hooks", "config.worktree", "commondir"]
    .map((name) => {
      try {
        const s = fs.lstatSync(path.join(gitDir, name), { bigint: true });
        // Changed this recently, it could change again unseen (see RACY_NS): never equal, so checked again.
        if (now - s.ctimeNs <= RACY_NS) return "racy";
        return `${s.ino}:${s.ctimeNs}:${s.size}`;
      } catch {
        return "-";
      }
    })
    .join("|");
}

/** The event of one report, its path relative to `root` (the workspace) when inside it. */
export function nestedRepoEvent(report: NestedRepoReport, root: string, agentId: string): InputOf<"nested_repo_neutralised"> {
  const rel = path.relative(root, report.entry);
  return {
    type: "nested_repo_neutralised",
    agentId,
    path: rel.startsWith("..") || path.isAbsolute(rel) ? report.entry : rel.split(path.sep).join("/"),
    gitDir: report.gitDir,
    removed: report.removed,
    quarantine: report.quarantine,
    ...(report.failed ? { failed: report.failed } : {}),
  };
}

/** What the model reads after the tool result that made them: one `[orca: …]` line per report. */
export function nestedRepoNotes(reports: readonly NestedRepoReport[], root: string, agentId: string): string {
  return reports.map((r) => `\n[orca: ${nestedRepoNotice(nestedRepoEvent(r, root, agentId))}]`).join("");
}
