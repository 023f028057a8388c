import fs from "node:fs";
import path from "node:path";
import { isDirectory, realpathOr } from "../../util/fs.js";
import { PROTECTED_AT_ROOT, PROTECTED_NAMES } from "../permissions/protected-paths.js";
import { isInside } from "../workspace.js";

/**
 * Paths a sandboxed command may not change even inside the workspace: each one makes something
 * run later, outside the sandbox — orca's own settings and agents, MCP server commands, other
 * agents' and editors' settings, git's configuration and hooks. The names are the file tools'
 * (permissions/protected-paths.ts): one list, so a command and write_file get the same answer.
 */
export { PROTECTED_NAMES };

/**
 * Protected when present (a workspace that is a home directory): a shell or git runs what they
 * say. Not made when missing: an empty `.bashrc` in every writable root would be a stray file.
 */
const PROTECTED_IF_PRESENT = PROTECTED_AT_ROOT;

/**
 * A protected path that does not exist yet. A read-only mount needs something to mount on, so
 * orca creates an inert stand-in: an empty directory (git ignores empty directories, so nothing
 * shows in `git status`), an empty git config, or a `commondir` that names the git dir itself.
 * Inside the sandbox the stand-in is read-only and, being a mount point, cannot be removed or
 * renamed, so the real thing cannot be created. It is there only while a sandboxed process of the
 * session runs (stand-in-leases.ts): the user's tree holds nothing orca made once they have ended.
 */
export interface Placeholder {
  path: string;
  kind: "dir" | "file";
  /** For a file: its content, which git reads as "no change". */
  content?: string;
}

export interface Protection {
  /** Writable directories bound onto themselves, so they cannot be renamed away and replaced. */
  pins: string[];
  /** Paths mounted read-only (after the writable ones), stand-ins included. */
  readOnly: string[];
  /** Every protected path that needs a stand-in when missing, whether it is missing now or not. */
  placeholders: Placeholder[];
}

/**
 * What to protect in `root` for a sandbox whose writable areas are `isWritable`. Paths outside
 * every writable area are read-only already and are left alone.
 */
export function protectedPaths(root: string, isWritable: (p: string) => boolean, extraReadOnly: readonly string[] = [], nested: readonly string[] = []): Protection {
  const out: Protection = { pins: [], readOnly: [], placeholders: [] };
  const protect = (p: string, standIn: Omit<Placeholder, "path"> | null) => {
    if (!isWritable(p)) return;
    if (standIn) out.placeholders.push({ path: p, ...standIn });
    if (standIn || lstat(p)) out.readOnly.push(p);
  };
  protectGit(root, isWritable, out, protect, nested);
  for (const name of PROTECTED_NAMES) protect(path.join(root, name), { kind: "dir" });
  for (const name of PROTECTED_IF_PRESENT) protect(path.join(root, name), null);
  for (const extra of extraReadOnly) {
    const p = realpathOr(path.resolve(root, extra));
    protect(p, null);
    if (out.readOnly.includes(p)) out.pins.push(...foldersAbove(p, root, isWritable));
  }
  return out;
}

/**
 * The folders above `p` a command could rename, outermost first: each below the workspace root or
 * the writable area holding it (already mount points). A read-only mount cannot be renamed, but a
 * folder above it can, mount and all: a command could move ~/.cache away and make a new
 * ~/.cache/orca/compile-cache, whose code the next start runs as the user. Pinned, none can move.
 */
function foldersAbove(p: string, root: string, isWritable: (p: string) => boolean): string[] {
  const out: string[] = [];
  for (let dir = path.dirname(p); dir !== root && path.dirname(dir) !== dir && isWritable(path.dirname(dir)); dir = path.dirname(dir)) out.unshift(dir);
  return out;
}

/** Parents before what is in them: a pin is bound from the host's view, and one bound later over a folder would hide the mounts made in it before. */
const outermostFirst = (a: string, b: string): number => a.split(path.sep).length - b.split(path.sep).length;

export function joinProtection(list: readonly Protection[]): Protection {
  return { pins: [...new Set(list.flatMap((p) => p.pins))].sort(outermostFirst), readOnly: list.flatMap((p) => p.readOnly), placeholders: list.flatMap((p) => p.placeholders) };
}

type Protect = (p: string, missing: Omit<Placeholder, "path"> | null) => void;

/**
 * `nested`: the repositories inside the root that were there when the session first looked
 * (nested-repos.ts), each a `.git` entry or a bare repository's folder: the user's, kept as their
 * submodules are. (One a command makes later is checked after it instead.)
 */
function protectGit(root: string, isWritable: (p: string) => boolean, out: Protection, protect: Protect, nested: readonly string[]): void {
  const seen = new Set<string>();
  for (const entry of nested) {
    const nestedStat = lstat(entry);
    if (nestedStat && path.basename(entry) !== ".git") protectGitDir(entry, isWritable, out, protect, seen);
    else if (nestedStat) protectDotGit(entry, nestedStat, isWritable, out, protect, seen);
  }
  const dotGit = path.join(root, ".git");
  const stat = lstat(dotGit);
  // An empty .git (a stand-in) is no repository: git looks past it.
  if (!stat || (stat.isDirectory() && isInert({ path: dotGit, kind: "dir" }))) {
    // No repository yet: one created in the sandbox would come with its own config and hooks.
    protect(dotGit, { kind: "dir" });
    return;
  }
  protectDotGit(dotGit, stat, isWritable, out, protect, seen);
  // A submodule checked out with its git dir inside it (not absorbed into .git/modules): the user's
  // `git status` here runs git in it, under its own config and hooks.
  for (const sub of submodulePaths(root)) {
    const inner = path.join(root, sub, ".git");
    const innerStat = isInside(root, realpathOr(path.join(root, sub))) ? lstat(inner) : null;
    if (innerStat && !innerStat.isSymbolicLink()) protectDotGit(inner, innerStat, isWritable, out, protect, seen);
  }
}

function protectDotGit(dotGit: string, stat: fs.Stats, isWritable: (p: string) => boolean, out: Protection, protect: Protect, seen: Set<string>): void {
  if (stat.isFile()) {
    // A worktree or submodule: the file says where the git dir is, so it must not change.
    protect(dotGit, null);
    const gitDir = gitDirOf(dotGit);
    if (gitDir) protectGitDir(gitDir, isWritable, out, protect, seen);
    return;
  }
  const gitDir = stat.isSymbolicLink() ? realpathOr(dotGit) : dotGit;
  protectGitDir(gitDir, isWritable, out, protect, seen);
}

/** The submodule paths `.gitmodules` names (a protected file: a sandboxed command cannot add one). */
function submodulePaths(root: string): string[] {
  try {
    return [...fs.readFileSync(path.join(root, ".gitmodules"), "utf8").matchAll(/^\s*path\s*=\s*"?(.+?)"?\s*$/gm)].map((m) => m[1]!);
  } catch {
    return [];
  }
}

function protectGitDir(gitDir: string, isWritable: (p: string) => boolean, out: Protection, protect: Protect, seen: Set<string>): void {
  if (seen.has(gitDir) || !isDirectory(gitDir)) return;
  seen.add(gitDir);
  if (isWritable(gitDir)) out.pins.push(gitDir);
  const commondir = path.join(gitDir, "commondir");
  // A `commondir` naming the git dir itself (the stand-in made below) is no linked worktree's:
  // taking it for one would leave this dir's config and hooks unprotected from then on.
  const common = lstat(commondir) ? readCommonDir(gitDir, commondir) : null;
  if (common !== null && common !== realpathOr(gitDir)) {
    // A linked worktree's git dir: its settings live in the common dir it names (a config or
    // hooks of its own, should it have them, are kept too).
    protectAdminFiles(gitDir, protect);
    for (const own of ["config", "hooks"]) protect(path.join(gitDir, own), null);
    protectGitDir(common, isWritable, out, protect, seen);
    return;
  }
  // `commondir` would redirect git to another directory's config: "." keeps it here.
  protect(commondir, { kind: "file", content: ".\n" });
  protect(path.join(gitDir, "config"), { kind: "file", content: "" });
  protect(path.join(gitDir, "config.worktree"), null);
  protect(path.join(gitDir, "hooks"), { kind: "dir" });
  // Every linked worktree's admin dir: orca's git and the user's read where its config is from there.
  for (const name of readdirOrEmpty(path.join(gitDir, "worktrees"))) {
    const admin = path.join(gitDir, "worktrees", name);
    if (!lstat(admin)?.isDirectory()) continue;
    if (isWritable(admin)) out.pins.push(admin);
    protectAdminFiles(admin, protect);
  }
  // Each submodule's git dir (`modules/<name>`, names may hold slashes): the user's `git status`
  // runs git inside every submodule, under that dir's config and hooks.
  // The submodule's `.git` file in the work tree says which git dir that is: it must not change either.
  for (const module of submoduleGitDirs(path.join(gitDir, "modules"), 0)) {
    const workTree = submoduleWorkTree(module);
    if (workTree && lstat(path.join(workTree, ".git"))?.isFile()) protect(path.join(workTree, ".git"), null);
    protectGitDir(module, isWritable, out, protect, seen);
  }
}

/** A submodule git dir's work tree (`core.worktree`, relative to the git dir), or null. */
function submoduleWorkTree(gitDir: string): string | null {
  try {
    const m = /^\s*worktree\s*=\s*"?(.+?)"?\s*$/m.exec(fs.readFileSync(path.join(gitDir, "config"), "utf8"));
    return m ? path.resolve(gitDir, m[1]!) : null;
  } catch {
    return null;
  }
}

/** The git dirs under a `modules` folder: a folder with a HEAD is one; any other is a name's prefix. */
function submoduleGitDirs(dir: string, depth: number): string[] {
  if (depth > 8) return [];
  const out: string[] = [];
  for (const name of readdirOrEmpty(dir)) {
    const sub = path.join(dir, name);
    if (!lstat(sub)?.isDirectory()) continue;
    if (lstat(path.join(sub, "HEAD"))) out.push(sub);
    else out.push(...submoduleGitDirs(sub, depth + 1));
  }
  return out;
}

/** The files of a linked worktree's admin dir that say where its repository and config are. */
function protectAdminFiles(admin: string, protect: Protect): void {
  for (const file of ["commondir", "gitdir", "config.worktree"]) protect(path.join(admin, file), null);
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function gitDirOf(dotGitFile: string): string | null {
  try {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotGitFile, "utf8"));
    return m ? realpathOr(path.resolve(path.dirname(dotGitFile), m[1]!)) : null;
  } catch {
    return null;
  }
}

function readCommonDir(gitDir: string, file: string): string | null {
  try {
    return realpathOr(path.resolve(gitDir, fs.readFileSync(file, "utf8").trim()));
  } catch {
    return null;
  }
}

function lstat(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
}

/**
 * The stand-ins a session made or relies on. Sessions list theirs in a manifest in their session
 * dir (`manifests` reads those of the other live sessions), so that one session's end never
 * removes a stand-in another still has mounted, and a session killed before it could clean up
 * (kill -9, a power cut) has its stand-ins removed by the next one (see removeAbandoned).
 */
export class Placeholders {
  private readonly mine = new Map<string, Placeholder>();

  constructor(
    /** Where to list them; a function when the session dir is made on first use (sandbox.ts). */
    private readonly manifest: string | null | (() => string | null) = null,
    private readonly othersInUse: () => Set<string> = () => new Set(),
  ) {}

  /**
   * Makes whatever of `list` is missing, and takes on an existing stand-in of another session.
   * Throws a one-line Error when one cannot be made.
   */
  ensure(list: readonly Placeholder[]): void {
    let others: Set<string> | null = null;
    const missing: Placeholder[] = [];
    let listed = false;
    for (const placeholder of list) {
      if (!fs.existsSync(placeholder.path)) missing.push(placeholder);
      else if (!this.mine.has(placeholder.path) && isInert(placeholder)) {
        others ??= this.othersInUse();
        if (others.has(placeholder.path)) listed = this.record(placeholder) || listed;
      }
    }
    // Listed before they are made (one write for them all: this runs before every command): a
    // crash in between leaves a name to check, not a stray.
    for (const placeholder of missing) listed = this.record(placeholder) || listed;
    if (listed) this.writeManifest();
    for (const placeholder of missing) create(placeholder);
  }

  /** Removes each stand-in no other live session uses, while it is still the inert thing made. */
  removeAll(): void {
    if (!this.mine.size) return;
    const others = this.othersInUse();
    for (const placeholder of this.mine.values()) if (!others.has(placeholder.path)) remove(placeholder);
    this.mine.clear();
    // Listed no more: another session ending must not keep them for this one's sake.
    this.writeManifest();
  }

  /** True when it was not listed yet. */
  private record(placeholder: Placeholder): boolean {
    if (this.mine.has(placeholder.path)) return false;
    this.mine.set(placeholder.path, placeholder);
    return true;
  }

  private writeManifest(): void {
    const file = typeof this.manifest === "function" ? this.manifest() : this.manifest;
    if (file) fs.writeFileSync(file, JSON.stringify([...this.mine.values()]));
  }
}

/** The stand-ins a session's manifest lists (nothing for a missing or damaged one). */
export function readManifest(file: string): Placeholder[] {
  try {
    const list: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
    if (!Array.isArray(list)) return [];
    return (list as Placeholder[]).filter((p) => p && typeof p.path === "string" && path.isAbsolute(p.path) && (p.kind === "dir" || p.kind === "file"));
  } catch {
    return [];
  }
}

/** Still what orca made: an empty directory, or a file holding exactly the stand-in's content. */
function isInert(p: Placeholder): boolean {
  try {
    return p.kind === "dir" ? fs.readdirSync(p.path).length === 0 : fs.readFileSync(p.path, "utf8") === (p.content ?? "");
  } catch {
    return false;
  }
}

/** False when something else made the path in the meantime: the read-only mount covers it all the same. */
function create(p: Placeholder): boolean {
  try {
    if (p.kind === "dir") fs.mkdirSync(p.path);
    else fs.writeFileSync(p.path, p.content ?? "", { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new Error(`cannot protect ${p.path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

export function remove(p: Placeholder): void {
  if (!isInert(p)) return;
  try {
    if (p.kind === "dir") fs.rmdirSync(p.path);
    else fs.unlinkSync(p.path);
  } catch {
    // Removed meanwhile.
  }
}
