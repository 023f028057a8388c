import fs from "node:fs";
import { ConfigError } from "../util/errors.js";
import { lockSessionLog, readLog, type ReadLogResult } from "../events/log.js";
import type { PidLock } from "../util/pid-lock.js";
import type { OrcaEvent } from "../events/types.js";
import { interruptedWriteResult } from "./interrupted-writes.js";
import { rebuildSession, type RebuiltSession } from "./rebuild.js";
import { findSession, latestSession, type SessionInfo } from "./store.js";

/** A session chosen for resuming, read back and rebuilt, ready for createSession(). */
export interface ResumePlan {
  sessionId: string;
  /** The log it continues: a resumed session appends to its own file. */
  file: string;
  workspace: string;
  rebuilt: RebuiltSession;
  skipped: ReadLogResult["skipped"];
  /** The events read back, so the dashboard can show the old conversation without reading twice. */
  events: OrcaEvent[];
  /** Whether the id was picked for the user (latest, --continue) rather than given. */
  picked: boolean;
  /**
   * The log's lock, taken before anything touches the log: the resumed session's log keeps it, and
   * whoever drops the plan unused releases it. Absent in plans built by hand (tests).
   */
  lock?: PidLock;
}

export interface ResumeRequest {
  dataDir: string;
  /** An id (or unique prefix), or true for the latest session anywhere. */
  resume?: string | true;
  /** The latest session of `workspace`. */
  continue?: boolean;
  workspace: string;
}

/** Picks the session to resume; a one-line ConfigError when there is none. */
export function pickSession(req: ResumeRequest): SessionInfo {
  if (typeof req.resume === "string") {
    const found = findSession(req.dataDir, req.resume);
    if ("error" in found) throw new ConfigError(found.error);
    return found;
  }
  const latest = req.continue ? latestSession(req.dataDir, req.workspace) : latestSession(req.dataDir);
  if (!latest) {
    throw new ConfigError(req.continue ? `no session to continue for workspace ${req.workspace} (orca sessions lists them)` : "no session to resume");
  }
  return latest;
}

/**
 * Picks the session, takes its log's lock (SessionInUse when a live orca holds it: a second
 * `--resume` of a running session must not interleave one log) and reads it back.
 */
export function planResume(req: ResumeRequest): ResumePlan {
  const info = pickSession(req);
  const lock = lockSessionLog(info.file);
  try {
    return { ...loadSession(info.file), picked: typeof req.resume !== "string", lock };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** Reads and rebuilds one log, first cutting a torn last line so new events start on a line of their own. */
export function loadSession(file: string): Omit<ResumePlan, "picked"> {
  const { events, skipped } = readLog(file);
  repairTornTail(file);
  let rebuilt: RebuiltSession;
  try {
    rebuilt = rebuildSession(events, { interruptedResult: interruptedWriteResult });
  } catch (error) {
    throw new ConfigError(`cannot resume ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!fs.existsSync(rebuilt.workspace)) {
    throw new ConfigError(`cannot resume session ${rebuilt.sessionId}: its workspace ${rebuilt.workspace} no longer exists`);
  }
  return { sessionId: rebuilt.sessionId, file, workspace: rebuilt.workspace, rebuilt, skipped, events };
}

/**
 * A crash can leave a partial last line. Appending after it would glue the next event onto it and
 * lose both, so the partial line (which can never be parsed) is cut. Returns whether it cut.
 */
export function repairTornTail(file: string): boolean {
  const fd = fs.openSync(file, "r+");
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return false;
    const chunk = 64 * 1024;
    let end = size;
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return false;
    while (end > 0) {
      const start = Math.max(0, end - chunk);
      const buffer = Buffer.alloc(end - start);
      fs.readSync(fd, buffer, 0, buffer.length, start);
      const newline = buffer.lastIndexOf(0x0a);
      if (newline >= 0) {
        fs.ftruncateSync(fd, start + newline + 1);
        return true;
      }
      end = start;
    }
    fs.ftruncateSync(fd, 0);
    return true;
  } finally {
    fs.closeSync(fd);
  }
}

/** One line per skipped log line, for warnings. */
export function describeSkipped(file: string, skipped: ReadLogResult["skipped"]): string[] {
  return skipped.map((s) => `session log ${file} line ${s.line} skipped (${s.reason})`);
}
