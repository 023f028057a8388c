import fs from "node:fs";
import fsp, { type FileHandle } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { isTempName, tempName } from "../util/atomic-write.js";
import { isInside, WorkspaceError, type Workspace } from "./workspace.js";

/**
 * Confined file operations: open what was checked, and replace files atomically.
 *
 * `Workspace.resolve` checks a path (`..` and symlinks resolved, inside the workspace); these
 * functions then reach the resolved path one component at a time from the root that holds it,
 * opening each folder with O_NOFOLLOW, so no symlink is followed anywhere on the way. A symlink
 * that appears after the check (swapped in by a background command) is refused with
 * `SymlinkRefused`; nothing outside the workspace is ever opened, written or removed through it.
 * A symlink inside the workspace that points inside it keeps working: `resolve` has already
 * replaced it by its target, and the walk runs on that real path.
 *
 * Linux has no openat() in Node, but `/proc/self/fd/<dirfd>/<name>` resolves `name` inside the
 * open folder `dirfd` exactly like openat(dirfd, name): every step, the temporary file, the rename
 * and the unlink go through the folder's descriptor, not through a path that could be redirected.
 * Without /proc (macOS, BSD) each step opens the folder's full path with O_NOFOLLOW after an lstat:
 * a symlink at the last component of a step is still refused, but one swapped into a folder already
 * walked is not seen (the same check-then-use window as before, narrowed).
 *
 * Writes are crash-safe: the new content goes to a temporary file (`.orca-tmp-<pid>-<hex>`, see
 * util/atomic-write.ts) created with O_EXCL|O_NOFOLLOW in the target's folder, written, given the
 * old file's mode (and owner where permitted), fsynced, renamed over the target within the same
 * folder descriptor, and the folder is fsynced. A crash at any point leaves the old content or the
 * new, plus at most a temporary file, which the next start removes (`onTemp` lets the caller log
 * its name first). A file replaced this way gets a new inode: hard links to it keep the old content.
 *
 * This is the one way orca changes a user's file: write_file, edit_file, and (to switch at
 * integration) worktree merge-back and review/rewind restores: `writeFileAtomic(workspace, abs,
 * bytes, { createParents: true, mode })` for a file, `removeConfined(workspace, abs)` for a
 * deletion, `openConfinedForRead` for the read that decides what to write.
 */

const C = fs.constants;
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;
// O_NONBLOCK: opening a FIFO for reading must not wait for a writer; it is refused after fstat.
const READ_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK;
const TEMP_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW;
const fsyncFd = promisify(fs.fsync);

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
class Folder {
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

function errnoError(code: string, message: string): NodeJS.ErrnoException {
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
function symlinkOr(err: unknown, folder: Folder, at: string, relative: string): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ELOOP") return new SymlinkRefused(relative);
  if (code === "ENOTDIR" && isSymlink(at)) return new SymlinkRefused(relative);
  return realPaths(err, folder);
}

/** An fs error names the /proc path it was given: say the folder's real path instead. */
function realPaths(err: unknown, folder: Folder): unknown {
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

function isSymlink(at: string): boolean {
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
function walkToParent(workspace: Workspace, abs: string, create: boolean): { folder: Folder; name: string; relative: string } {
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

/**
 * Opens an existing `abs` (a path `workspace.resolve` returned) for reading, following no
 * symlink. Throws like fs.open (ENOENT, EACCES, …) or SymlinkRefused. A folder opens too, and a
 * FIFO opens without blocking: callers fstat the handle and refuse what is not a regular file.
 */
export async function openConfinedForRead(workspace: Workspace, abs: string): Promise<FileHandle> {
  const { folder, name, relative } = walkToParent(workspace, abs, false);
  try {
    const at = folder.entry(name);
    if (!walksByDescriptor() && isSymlink(at)) throw new SymlinkRefused(relative);
    try {
      return await fsp.open(at, READ_FLAGS);
    } catch (err) {
      throw symlinkOr(err, folder, at, relative);
    }
  } finally {
    folder.close();
  }
}

/** Like openConfinedForRead, but null when the file does not exist. */
export async function openConfinedIfExists(workspace: Workspace, abs: string): Promise<FileHandle | null> {
  try {
    return await openConfinedForRead(workspace, abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

export interface AtomicWriteOptions {
  /** Create missing parent folders (through the same walk). Default false: ENOENT. */
  createParents?: boolean;
  /** Permission bits of a new file, before the umask. Default 0o666. An existing file keeps its own. */
  mode?: number;
  /**
   * An existing file's exec bits set (true) or cleared (false), its other bits kept: a merge-back
   * of a branch that changed only the exec bit. Absent: the mode is kept whole.
   */
  exec?: boolean;
  /**
   * Called with the temporary file's absolute path just before it is created: a caller that logs
   * it (the file_write event) lets the next start remove it after a crash.
   */
  onTemp?: (temp: string) => void;
}

/**
 * Replaces (or creates) `abs` with `data`, crash-safely and without following any symlink. An
 * existing file keeps its mode and, where permitted, its owner; one the process may not write is
 * refused (EACCES) as an in-place write would be. Returns whether the file was created.
 */
export async function writeFileAtomic(workspace: Workspace, abs: string, data: Buffer | string, opts: AtomicWriteOptions = {}): Promise<{ created: boolean }> {
  const { folder, name, relative } = walkToParent(workspace, abs, opts.createParents ?? false);
  try {
    if (name === ".") throw errnoError("EISDIR", `${relative} is a directory`);
    const target = folder.entry(name);
    const existing = lstatOrNull(target);
    if (existing?.isSymbolicLink()) throw new SymlinkRefused(relative);
    if (existing?.isDirectory()) throw errnoError("EISDIR", `${relative} is a directory`);
    if (existing && !existing.isFile()) throw errnoError("EINVAL", `${relative} is not a regular file`);
    // A rename needs only the folder's permission: a read-only file must stay refused.
    if (existing) fs.accessSync(target, C.W_OK);
    const temp = tempName();
    opts.onTemp?.(path.join(folder.real, temp));
    const tempAt = folder.entry(temp);
    let renamed = false;
    try {
      const handle = await fsp.open(tempAt, TEMP_FLAGS, existing ? 0o600 : (opts.mode ?? 0o666));
      try {
        await handle.writeFile(data);
        if (existing) await keepOwnerAndMode(handle, existing, opts.exec);
        await handle.sync();
      } finally {
        await handle.close();
      }
      fs.renameSync(tempAt, target);
      renamed = true;
      await fsyncFd(folder.fd);
    } finally {
      if (!renamed) removeQuietly(tempAt);
    }
    return { created: existing === null };
  } catch (err) {
    throw realPaths(err, folder);
  } finally {
    folder.close();
  }
}

async function keepOwnerAndMode(handle: FileHandle, was: fs.Stats, exec?: boolean): Promise<void> {
  if (was.uid !== process.getuid?.() || was.gid !== process.getgid?.()) {
    try {
      await handle.chown(was.uid, was.gid);
    } catch {
      // Not permitted (another user's file in a shared folder): it becomes ours, as an editor's save does.
    }
  }
  // After chown, which clears set-id bits.
  const mode = was.mode & 0o7777;
  await handle.chmod(exec === undefined ? mode : exec ? mode | 0o111 : mode & ~0o111);
}

/** Removes the file `abs` (never what a symlink on the way points to); false when it was not there. */
export async function removeConfined(workspace: Workspace, abs: string): Promise<boolean> {
  const { folder, name, relative } = walkToParent(workspace, abs, false);
  try {
    const at = folder.entry(name);
    const stat = lstatOrNull(at);
    if (!stat) return false;
    if (stat.isDirectory()) throw errnoError("EISDIR", `${relative} is a directory`);
    fs.unlinkSync(at);
    await fsyncFd(folder.fd);
    return true;
  } catch (err) {
    throw realPaths(err, folder);
  } finally {
    folder.close();
  }
}

/**
 * Removes a temporary file a crashed write left at `abs`: only a regular file whose name is
 * exactly orca's temporary pattern. False when there was none (or it was not one of ours).
 */
export async function removeLeftoverTemp(workspace: Workspace, abs: string): Promise<boolean> {
  if (!isTempName(path.basename(abs))) return false;
  let walked: ReturnType<typeof walkToParent>;
  try {
    walked = walkToParent(workspace, abs, false);
  } catch {
    // Its folder is gone, or no longer reachable without a symlink: nothing of ours to remove.
    return false;
  }
  const { folder, name } = walked;
  try {
    const at = folder.entry(name);
    if (!lstatOrNull(at)?.isFile()) return false;
    fs.unlinkSync(at);
    return true;
  } finally {
    folder.close();
  }
}

function lstatOrNull(at: string): fs.Stats | null {
  try {
    return fs.lstatSync(at);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

function removeQuietly(at: string): void {
  try {
    fs.unlinkSync(at);
  } catch {
    // Never created, or already gone.
  }
}
