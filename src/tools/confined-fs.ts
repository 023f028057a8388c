import fs from "node:fs";
import fsp, { type FileHandle } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { isTempName, tempName } from "../util/atomic-write.js";
import { C, errnoError, isSymlink, realPaths, symlinkOr, SymlinkRefused, walksByDescriptor, walkToParent } from "./confined-walk.js";
import type { Workspace } from "./workspace.js";

export { SymlinkRefused, walksByDescriptor } from "./confined-walk.js";

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
 * This is the one way orca changes a user's file: write_file, edit_file, worktree merge-back (and,
 * to switch at integration, review/rewind restores): `writeFileAtomic(workspace, abs, bytes,
 * { createParents: true, mode })` for a file, `writeSymlinkAtomic` for a symlink,
 * `removeConfined(workspace, abs)` for a deletion, `openConfinedForRead` / `readEntryConfined` for
 * the read that decides what to write.
 */

// O_NONBLOCK: opening a FIFO for reading must not wait for a writer; it is refused after fstat.
const READ_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK;
const TEMP_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW;
const fsyncFd = promisify(fs.fsync);
const openFd = promisify(fs.open) as (at: string, flags: number) => Promise<number>;

/**
 * Opens an existing `abs` (a path `workspace.resolve` returned) for reading, following no
 * symlink. Throws like fs.open (ENOENT, EACCES, …) or SymlinkRefused. A folder opens too, and a
 * FIFO opens without blocking: callers fstat the handle and refuse what is not a regular file.
 */
export async function openConfinedForRead(workspace: Workspace, abs: string): Promise<FileHandle> {
  return openConfined(workspace, abs, (at) => fsp.open(at, READ_FLAGS));
}

/**
 * openConfinedForRead as a bare descriptor, which the caller closes: for a caller that stats and
 * reads a small file synchronously, one hand-off to the thread pool (the open) instead of five.
 */
export function openConfinedFdForRead(workspace: Workspace, abs: string): Promise<number> {
  return openConfined(workspace, abs, (at) => openFd(at, READ_FLAGS));
}

async function openConfined<T>(workspace: Workspace, abs: string, open: (at: string) => Promise<T>): Promise<T> {
  const { folder, name, relative } = walkToParent(workspace, abs, false);
  try {
    const at = folder.entry(name);
    if (!walksByDescriptor() && isSymlink(at)) throw new SymlinkRefused(relative);
    try {
      return await open(at);
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
 * Replaces (or creates) `abs` with a symlink to `target`: a link made beside it (in the folder the
 * walk opened, so no symlink on the way is followed) and renamed over it in that same folder, which
 * is then fsynced. `target` is written as given: the caller decides whether it may point there.
 */
export async function writeSymlinkAtomic(workspace: Workspace, abs: string, target: string, opts: Pick<AtomicWriteOptions, "createParents" | "onTemp"> = {}): Promise<void> {
  const { folder, name, relative } = walkToParent(workspace, abs, opts.createParents ?? false);
  try {
    if (name === ".") throw errnoError("EISDIR", `${relative} is a directory`);
    if (lstatOrNull(folder.entry(name))?.isDirectory()) throw errnoError("EISDIR", `${relative} is a directory`);
    const temp = tempName();
    opts.onTemp?.(path.join(folder.real, temp));
    const tempAt = folder.entry(temp);
    fs.symlinkSync(target, tempAt);
    try {
      fs.renameSync(tempAt, folder.entry(name));
    } catch (err) {
      removeQuietly(tempAt);
      throw err;
    }
    await fsyncFd(folder.fd);
  } catch (err) {
    throw realPaths(err, folder);
  } finally {
    folder.close();
  }
}

/** What is at a path now, read without following any symlink: its kind and bytes (a link's are its target). */
export interface Entry {
  kind: "missing" | "file" | "exec" | "link" | "other";
  bytes: Buffer;
}

/**
 * Reads `abs` through the walk: a regular file from the descriptor it was opened and fstat-ed on, a
 * symlink at the last component by readlink in its open folder. Missing (the file or a folder on the
 * way) is "missing"; a symlink on the way throws SymlinkRefused.
 */
export async function readEntryConfined(workspace: Workspace, abs: string): Promise<Entry> {
  const none: Entry = { kind: "missing", bytes: Buffer.alloc(0) };
  let walked: ReturnType<typeof walkToParent>;
  try {
    walked = walkToParent(workspace, abs, false);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return none;
    throw err;
  }
  const { folder, name, relative } = walked;
  try {
    const at = folder.entry(name);
    const stat = lstatOrNull(at);
    if (!stat) return none;
    if (stat.isSymbolicLink()) return { kind: "link", bytes: fs.readlinkSync(at, { encoding: "buffer" }) };
    if (!stat.isFile()) return { kind: "other", bytes: Buffer.alloc(0) };
    let handle: FileHandle;
    try {
      handle = await fsp.open(at, READ_FLAGS);
    } catch (err) {
      // Removed, or swapped for a symlink, since the lstat: it is what it is now.
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return none;
      if (code === "ELOOP") return { kind: "link", bytes: fs.readlinkSync(at, { encoding: "buffer" }) };
      throw symlinkOr(err, folder, at, relative);
    }
    try {
      const opened = await handle.stat();
      if (!opened.isFile()) return { kind: "other", bytes: Buffer.alloc(0) };
      return { kind: opened.mode & 0o100 ? "exec" : "file", bytes: await handle.readFile() };
    } finally {
      await handle.close();
    }
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
    // A merge-back's temporary is a symlink; unlinking one removes the link, never what it names.
    const stat = lstatOrNull(at);
    if (!stat?.isFile() && !stat?.isSymbolicLink()) return false;
    fs.unlinkSync(at);
    return true;
  } catch {
    // Not permitted (EACCES, EPERM, a read-only mount): left where it is, and the next start still starts.
    return false;
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
