import fs from "node:fs";
import path from "node:path";
import { isInside, WorkspaceError, type Workspace } from "./workspace.js";

/**
 * The confined walk under tools/confined-fs.ts: a checked path reached one folder at a time from
 * the root that holds it, each folder opened with O_NOFOLLOW (by descriptor through /proc where
 * there is one), so no symlink is followed on the way.
 */

export const C = fs.constants;
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;

/** A symlink found where the checked path had none: the operation is refused, nothing was opened through it. */
export class SymlinkRefused extends Error {
  override readonly name = "SymlinkRefused";
  readonly code = "ESYMLINK";
  constructor(readonly relative: string) {
    super(`refused: ${relative} is a symbolic link now (it was not when the path was checked); nothing was opened through it`);
  }
}

let procWalk: boolean | undefined;

/** Whether folders can be walked by descriptor (/proc/self/fd, Linux). */
export function walksByDescriptor(): boolean {
  procWalk ??= process.platform === "linux" && canResolveThroughProc();
  return procWalk;
}

function canResolveThroughProc(): boolean {
  try {
    const fd = fs.openSync("/", C.O_RDONLY | C.O_DIRECTORY);
    try {
      return fs.statSync(`/proc/self/fd/${fd}/.`).isDirectory();
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}

/** An open folder on the walk. */
export class Folder {
  constructor(
    readonly fd: number,
    /** Its real absolute path (for messages, and the path used where /proc is missing). */
    readonly real: string,
    /** Its path relative to the root walked from, for messages. */
    readonly relative: string,
  ) {}

  /** How to name `name` inside this folder without resolving anything above it again. */
  entry(name: string): string {
    return walksByDescriptor() ? `/proc/self/fd/${this.fd}/${name}` : path.join(this.real, name);
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

export function errnoError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

/** The root (workspace or additional folder) that holds `abs`: the innermost when they nest. */
function rootFor(workspace: Workspace, abs: string): string {
  const roots = [workspace.root, ...workspace.additionalDirs].filter((dir) => isInside(dir, abs));
  if (!roots.length) throw new WorkspaceError(`path ${abs} is outside the workspace ${workspace.root}`);
  return roots.reduce((a, b) => (b.length > a.length ? b : a));
}

function openRoot(root: string): Folder {
  const fd = fs.openSync(root, C.O_RDONLY | C.O_DIRECTORY);
  // The root is a real path (Workspace resolves it at start): a descriptor naming another folder
  // means something above the root was moved or swapped since.
  if (walksByDescriptor() && fs.readlinkSync(`/proc/self/fd/${fd}`) !== root) {
    fs.closeSync(fd);
    throw new WorkspaceError(`the folder ${root} was moved or replaced; nothing was opened`);
  }
  return new Folder(fd, root, "");
}

/**
 * The error of an open with O_NOFOLLOW, as said to the model: ELOOP is a symlink at the last
 * component (even if it is gone again by now); ENOTDIR is one when O_DIRECTORY met a symlink.
 */
export function symlinkOr(err: unknown, folder: Folder, at: string, relative: string): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ELOOP") return new SymlinkRefused(relative);
  if (code === "ENOTDIR" && isSymlink(at)) return new SymlinkRefused(relative);
  return realPaths(err, folder);
}

/** An fs error names the /proc path it was given: say the folder's real path instead. */
export function realPaths(err: unknown, folder: Folder): unknown {
  if (!(err instanceof Error) || !walksByDescriptor()) return err;
  const proc = `/proc/self/fd/${folder.fd}/`;
  const real = `${folder.real}${path.sep}`;
  err.message = err.message.split(proc).join(real);
  const e = err as NodeJS.ErrnoException & { dest?: string };
  if (e.path?.startsWith(proc)) e.path = real + e.path.slice(proc.length);
  if (e.dest?.startsWith(proc)) e.dest = real + e.dest.slice(proc.length);
  return err;
}

function openFolder(parent: Folder, name: string, relative: string): Folder {
  const at = parent.entry(name);
  // Without /proc the path is opened whole; its last component is still opened with O_NOFOLLOW.
  if (!walksByDescriptor() && isSymlink(at)) throw new SymlinkRefused(relative);
  try {
    return new Folder(fs.openSync(at, DIR_FLAGS), path.join(parent.real, name), relative);
  } catch (err) {
    throw symlinkOr(err, parent, at, relative);
  }
}

export function isSymlink(at: string): boolean {
  try {
    return fs.lstatSync(at).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Opens the folder holding `abs`, following no symlink. With `create`, missing folders are made
 * on the way (mkdir in the open parent, then opened with O_NOFOLLOW like any other step).
 * `name` is the last component ("." when `abs` is the root itself).
 */
export function walkToParent(workspace: Workspace, abs: string, create: boolean): { folder: Folder; name: string; relative: string } {
  const root = rootFor(workspace, abs);
  const parts = path.relative(root, abs).split(path.sep).filter(Boolean);
  let folder = openRoot(root);
  if (!parts.length) return { folder, name: ".", relative: "." };
  const name = parts.pop()!;
  try {
    for (const part of parts) {
      const relative = folder.relative ? path.join(folder.relative, part) : part;
      let next: Folder;
      try {
        next = openFolder(folder, part, relative);
      } catch (err) {
        if (!create || (err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
        makeFolder(folder, part);
        next = openFolder(folder, part, relative);
      }
      folder.close();
      folder = next;
    }
  } catch (err) {
    folder.close();
    throw err;
  }
  return { folder, name, relative: folder.relative ? path.join(folder.relative, name) : name };
}

function makeFolder(parent: Folder, name: string): void {
  try {
    // mkdir never follows a symlink at its last component (it fails with EEXIST).
    fs.mkdirSync(parent.entry(name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw realPaths(err, parent);
    return;
  }
  // The new entry must survive a crash as much as the file that goes in it.
  fs.fsyncSync(parent.fd);
}
