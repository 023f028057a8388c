/** One file's version on disk: its content hash, and when a stat may stand in for hashing it. */
import crypto from "node:crypto";
import { createReadStream, readFileSync, type Stats } from "node:fs";
import fs from "node:fs/promises";
import { contentHash } from "../util/content-hash.js";

/** Size, times and inode: equal ones let a check skip re-hashing the file. */
export interface StatKey {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

// Up to this size a file is read synchronously to hash it: an async read is five thread-pool round
// trips (open, stat, read, read, close), each of which can wait milliseconds on a busy machine while
// the write it guards holds its path; a sync read of a source file takes tens of microseconds.
const SYNC_UP_TO = 256 * 1024;
// Above this size, streamed rather than read whole.
const STREAM_ABOVE = 8 * 1024 * 1024;

export { contentHash };

/**
 * A stat vouches for content only if it was taken well after the file's last change: two writes
 * within one timestamp tick (a jiffy on Linux, 1-2 s on FAT/HFS+) can leave size and times equal.
 * Whole-second times mean a coarse file system; for those, trust only what is two seconds old.
 */
export function statKey(stat: Pick<Stats, "size" | "mtimeMs" | "ctimeMs" | "ino">, now: number): StatKey | null {
  const coarse = stat.mtimeMs % 1000 === 0 || stat.ctimeMs % 1000 === 0;
  const window = coarse ? 2_000 : 50;
  if (now - Math.max(stat.mtimeMs, stat.ctimeMs) < window) return null;
  return { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino };
}

export function sameStat(key: StatKey, stat: Stats): boolean {
  return key.size === stat.size && key.mtimeMs === stat.mtimeMs && key.ctimeMs === stat.ctimeMs && key.ino === stat.ino;
}

export async function hashFile(abs: string, size: number): Promise<string> {
  if (size <= SYNC_UP_TO) return contentHash(readFileSync(abs));
  if (size < STREAM_ABOVE) return contentHash(await fs.readFile(abs));
  const hash = crypto.createHash("sha256");
  for await (const chunk of createReadStream(abs)) hash.update(chunk as Buffer);
  return hash.digest("hex").slice(0, 32);
}

export async function statOrNull(abs: string): Promise<Stats | null> {
  try {
    return await fs.stat(abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw err;
  }
}
