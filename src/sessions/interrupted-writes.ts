import fs from "node:fs";
import path from "node:path";
import { contentHash, hashFdSync } from "../util/content-hash.js";
import { INTERRUPTED_RESULT, type InterruptedCall } from "./rebuild.js";

/**
 * What resume tells the model for a write_file or edit_file a crash interrupted, read from the
 * file itself. The write is atomic (a temporary file renamed over the target), so the file holds
 * the content before the call or after it: the call's file_write names both hashes (write_file's
 * arguments also give the new content). A run that announces writes logs file_write before any
 * write, so a call of such a run without one never touched its file. A file that matches neither
 * (changed since by something else) stays "result unknown".
 */

const WRITE_TOOLS = new Set(["write_file", "edit_file"]);

export function appliedResult(rel: string): string {
  return `interrupted; applied — ${rel} holds the content this call wrote; read it before changing it further`;
}

export function notAppliedResult(rel: string): string {
  return `interrupted; not applied — this call did not change ${rel}; check it before re-running`;
}

/** The result to tell for an interrupted call of a session whose workspace is `workspace`. */
export function interruptedWriteResult({ call, write, writesAnnounced }: InterruptedCall, workspace: string): string {
  if (!WRITE_TOOLS.has(call.name)) return INTERRUPTED_RESULT;
  const args = (call.args ?? {}) as { path?: unknown; content?: unknown };
  const rel = write?.path ?? (typeof args.path === "string" ? args.path : null);
  if (rel === null) return INTERRUPTED_RESULT;
  const now = hashNow(path.resolve(workspace, rel));
  if (now === undefined) return INTERRUPTED_RESULT;
  const after = write?.after ?? (call.name === "write_file" && typeof args.content === "string" ? contentHash(args.content) : undefined);
  if (after !== undefined && now === after) return appliedResult(rel);
  if (write) return now === write.before ? notAppliedResult(rel) : INTERRUPTED_RESULT;
  return writesAnnounced ? notAppliedResult(rel) : INTERRUPTED_RESULT;
}

/** The file's content hash; null when it does not exist; undefined when it is not a regular file or cannot be read. */
function hashNow(abs: string): string | null | undefined {
  let fd: number;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
  try {
    return fs.fstatSync(fd).isFile() ? hashFdSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}
