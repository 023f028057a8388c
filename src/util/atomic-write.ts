import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * Crash-safe replacement of a file: the new content goes to a temporary file beside it, which is
 * synced and renamed over the target, and the folder is synced. A reader (or a crash, or a power
 * cut) sees the old content or the new, never a torn file.
 *
 * Temporary files are named `.orca-tmp-<pid>-<16 hex>` (tempName), so they can be recognised:
 * the agents' listings hide them, and those a crash leaves are removed at the next start.
 */

export const TEMP_PREFIX = ".orca-tmp-";
const TEMP_NAME = /^\.orca-tmp-(\d+)-[0-9a-f]{16}$/;

/** A fresh temporary file name for this process. */
export function tempName(): string {
  return `${TEMP_PREFIX}${process.pid}-${crypto.randomBytes(8).toString("hex")}`;
}

/** Whether `name` (a base name) is exactly one of orca's temporary file names. */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

/** The pid a temporary file name carries, or null for any other name. */
export function tempNamePid(name: string): number | null {
  const match = TEMP_NAME.exec(name);
  return match ? Number(match[1]) : null;
}

/**
 * Replaces orca's own file `file` (a trust list, a config it writes) crash-safely. Not for a
 * workspace's files: those go through tools/confined-fs.ts, which also refuses symlinks.
 */
export function writeFileAtomicSync(file: string, data: string | Buffer, opts: { mode?: number } = {}): void {
  const dir = path.dirname(file);
  const temp = path.join(dir, tempName());
  const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, opts.mode ?? 0o666);
  try {
    try {
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  syncFolder(dir);
}

/** Makes a rename or a new entry in `dir` durable; a folder that cannot be opened for it is left as is. */
export function syncFolder(dir: string): void {
  let fd: number;
  try {
    fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  } catch {
    return;
  }
  try {
    fs.fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a folder (EINVAL): the rename stands, only its durability is theirs.
  } finally {
    fs.closeSync(fd);
  }
}
