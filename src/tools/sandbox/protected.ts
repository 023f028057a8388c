import fs from "node:fs";
import path from "node:path";

/**
 * Paths a sandboxed command may not change even inside the workspace: each one makes something
 * run later, outside the sandbox — orca's own settings and agents, MCP server commands, other
 * agents' and editors' settings, git's configuration and hooks.
 */
export const PROTECTED_NAMES = [".orca", ".mcp.json", ".claude", ".agents", ".vscode", ".idea"] as const;

/**
 * A protected path that does not exist yet. A read-only mount needs something to mount on, so
 * orca creates an inert stand-in for the time a sandboxed command runs: an empty directory (git
 * ignores empty directories, so nothing shows in `git status`), an empty git config, or a
 * `commondir` that names the git dir itself. Inside the sandbox the stand-in is read-only and,
 * being a mount point, cannot be removed or renamed, so the real thing cannot be created.
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
 * every writable area are read-only already and are left alone.
 */
export function protectedPaths(root: string, isWritable: (p: string) => boolean, extraReadOnly: readonly string[] = []): Protection {
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
  protectGit(root, isWritable, out, protect);
  for (const name of PROTECTED_NAMES) protect(path.join(root, name), { kind: "dir" });
  for (const extra of extraReadOnly) protect(realpathOr(path.resolve(root, extra)), null);
  return out;
}

type Protect = (p: string, missing: Omit<Placeholder, "path"> | null) => void;

function protectGit(root: string, isWritable: (p: string) => boolean, out: Protection, protect: Protect): void {
  const dotGit = path.join(root, ".git");
  const stat = lstat(dotGit);
  if (!stat) {
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

/**
 * Creates and removes placeholders, counting the running commands that use each: the stand-in
 * goes once the last of them has ended, and only while it is still the inert thing orca made.
 */
export class Placeholders {
  private readonly users = new Map<string, { placeholder: Placeholder; count: number }>();

  /** Creates what is missing; returns the function that releases them. Throws when one cannot be made. */
  acquire(list: readonly Placeholder[]): () => void {
    const taken: Placeholder[] = [];
    try {
      for (const placeholder of list) {
        const held = this.users.get(placeholder.path);
        if (held) held.count++;
        else if (create(placeholder)) this.users.set(placeholder.path, { placeholder, count: 1 });
        else continue;
        taken.push(placeholder);
      }
    } catch (error) {
      this.release(taken);
      throw error;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(taken);
    };
  }

  private release(list: readonly Placeholder[]): void {
    for (const { path: p } of list) {
      const held = this.users.get(p);
      if (!held) continue;
      if (--held.count > 0) continue;
      this.users.delete(p);
      remove(held.placeholder);
    }
  }

  /** Removes every placeholder still held (session end). */
  releaseAll(): void {
    for (const { placeholder } of this.users.values()) remove(placeholder);
    this.users.clear();
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
