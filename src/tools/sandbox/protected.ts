import fs from "node:fs";
import path from "node:path";

/**
 * Paths a sandboxed command may not change even inside the workspace: each one makes something
 * run later, outside the sandbox — orca's own settings and agents, MCP server commands, other
 * agents' and editors' settings, git's configuration and hooks.
 */
export const PROTECTED_NAMES = [".orca", ".mcp.json", ".claude", ".agents", ".vscode", ".idea"] as const;

/** Protected when present (a workspace that is a home directory): a shell or git runs what they say. */
const PROTECTED_IF_PRESENT = [".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile", ".zshenv", ".gitconfig"] as const;

/**
 * A protected path that does not exist yet. A read-only mount needs something to mount on, so
 * orca creates an inert stand-in, kept until the session ends: an empty directory (git ignores
 * empty directories, so nothing shows in `git status`), an empty git config, or a `commondir`
 * that names the git dir itself. Inside the sandbox the stand-in is read-only and, being a mount
 * point, cannot be removed or renamed, so the real thing cannot be created. Made once per session
 * rather than per command: a watcher (a dev server, an editor) would see them come and go.
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
  /** Paths mounted read-only (after the writable ones); includes the placeholders. */
  readOnly: string[];
  placeholders: Placeholder[];
}

/**
 * What to protect in `root` for a sandbox whose writable areas are `isWritable`. Paths outside
 * every writable area are read-only already and are left alone. `standIns` are orca's own
 * placeholders: an empty `.git` of orca's is no repository to look into.
 */
export function protectedPaths(
  root: string,
  isWritable: (p: string) => boolean,
  extraReadOnly: readonly string[] = [],
  standIns: ReadonlySet<string> = new Set(),
): Protection {
  const out: Protection = { pins: [], readOnly: [], placeholders: [] };
  const protect = (p: string, missing: Omit<Placeholder, "path"> | null) => {
    if (!isWritable(p)) return;
    const stat = lstat(p);
    if (stat) out.readOnly.push(p);
    else if (missing) {
      out.placeholders.push({ path: p, ...missing });
      out.readOnly.push(p);
    }
  };
  protectGit(root, isWritable, out, protect, standIns);
  for (const name of PROTECTED_NAMES) protect(path.join(root, name), { kind: "dir" });
  for (const name of PROTECTED_IF_PRESENT) protect(path.join(root, name), null);
  for (const extra of extraReadOnly) protect(realpathOr(path.resolve(root, extra)), null);
  return out;
}

type Protect = (p: string, missing: Omit<Placeholder, "path"> | null) => void;

function protectGit(root: string, isWritable: (p: string) => boolean, out: Protection, protect: Protect, standIns: ReadonlySet<string>): void {
  const dotGit = path.join(root, ".git");
  const stat = lstat(dotGit);
  if (!stat || standIns.has(dotGit)) {
    // No repository yet: one created in the sandbox would come with its own config and hooks.
    protect(dotGit, { kind: "dir" });
    return;
  }
  if (stat.isFile()) {
    // A worktree or submodule: the file says where the git dir is, so it must not change.
    protect(dotGit, null);
    const gitDir = gitDirOf(dotGit);
    if (gitDir) protectGitDir(gitDir, isWritable, out, protect, new Set());
    return;
  }
  const gitDir = stat.isSymbolicLink() ? realpathOr(dotGit) : dotGit;
  protectGitDir(gitDir, isWritable, out, protect, new Set());
}

function protectGitDir(gitDir: string, isWritable: (p: string) => boolean, out: Protection, protect: Protect, seen: Set<string>): void {
  if (seen.has(gitDir) || !isDirectory(gitDir)) return;
  seen.add(gitDir);
  if (isWritable(gitDir)) out.pins.push(gitDir);
  const commondir = path.join(gitDir, "commondir");
  if (lstat(commondir)) {
    // A linked worktree's git dir: its settings live in the common dir it names.
    protect(commondir, null);
    protect(path.join(gitDir, "config.worktree"), null);
    const common = readCommonDir(gitDir, commondir);
    if (common) protectGitDir(common, isWritable, out, protect, seen);
    return;
  }
  // `commondir` would redirect git to another directory's config: "." keeps it here.
  protect(commondir, { kind: "file", content: ".\n" });
  protect(path.join(gitDir, "config"), { kind: "file", content: "" });
  protect(path.join(gitDir, "config.worktree"), null);
  protect(path.join(gitDir, "hooks"), { kind: "dir" });
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

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function realpathOr(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return p;
  }
}

/** The stand-ins of one session: made when first needed (again if removed), removed at the end. */
export class Placeholders {
  private readonly made = new Map<string, Placeholder>();

  /** The paths of the stand-ins made so far. */
  get paths(): ReadonlySet<string> {
    return new Set(this.made.keys());
  }

  /** Makes whatever of `list` is missing. Throws a one-line Error when one cannot be made. */
  ensure(list: readonly Placeholder[]): void {
    for (const placeholder of list) {
      if (fs.existsSync(placeholder.path)) continue;
      if (create(placeholder)) this.made.set(placeholder.path, placeholder);
    }
  }

  /** Removes each stand-in that is still the inert thing orca made; what someone filled stays. */
  removeAll(): void {
    for (const placeholder of this.made.values()) remove(placeholder);
    this.made.clear();
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

function remove(p: Placeholder): void {
  try {
    if (p.kind === "dir") fs.rmdirSync(p.path);
    else if (fs.readFileSync(p.path, "utf8") === (p.content ?? "")) fs.unlinkSync(p.path);
  } catch {
    // Someone put something in it, or removed it: theirs now.
  }
}
