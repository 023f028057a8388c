import crypto from "node:crypto";
import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { contentHash } from "../../util/content-hash.js";
import { openConfinedIfExists } from "../confined-fs.js";
import type { ToolContext } from "../tool.js";

/** What a file tool finds at its path before writing: read through the confined walk. */
export interface CurrentFile {
  stat: Stats;
  /** Content hash of a regular file; null for anything else (a folder, a FIFO). */
  hash: string | null;
  /** The bytes of a regular file of at most `keepUpTo` bytes; else null. */
  data: Buffer | null;
}

const HASH_CHUNK = 1024 * 1024;

/**
 * The file at `abs` now (null when there is none), opened without following a symlink: the
 * stat, hash and bytes all come from that one open file, never from a path that could be swapped.
 */
export async function currentFile(ctx: Pick<ToolContext, "workspace" | "signal">, abs: string, keepUpTo: number): Promise<CurrentFile | null> {
  const handle = await openConfinedIfExists(ctx.workspace, abs);
  if (!handle) return null;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { stat, hash: null, data: null };
    if (stat.size <= keepUpTo) {
      const data = await handle.readFile({ signal: ctx.signal });
      return { stat, hash: contentHash(data), data };
    }
    return { stat, hash: await hashHandle(handle), data: null };
  } finally {
    await handle.close();
  }
}

async function hashHandle(handle: FileHandle): Promise<string> {
  const hash = crypto.createHash("sha256");
  const buffer = Buffer.allocUnsafe(HASH_CHUNK);
  for (let position = 0; ; ) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hash.digest("hex").slice(0, 32);
}

/**
 * The `onTemp` of a file tool's writeFileAtomic: logs file_write (path, hashes before and after,
 * the temporary file) before the temporary file exists, so that after a crash the resume can tell
 * whether the write landed and the next start can remove what it left.
 */
export function announceWrite(ctx: Pick<ToolContext, "workspace" | "emit" | "agentId" | "callId">, tool: string, abs: string, before: string | null, after: string): (temp: string) => void {
  return (temp) =>
    ctx.emit({
      type: "file_write",
      agentId: ctx.agentId,
      callId: ctx.callId,
      tool,
      path: ctx.workspace.relative(abs),
      before,
      after,
      temp: ctx.workspace.relative(temp),
    });
}
