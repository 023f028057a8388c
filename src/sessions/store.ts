import fs from "node:fs";
import path from "node:path";

/**
 * The session index is the sessions folder itself: `<data_dir>/sessions/<id>.jsonl`. Listing reads
 * only the head of each log (session_started, first prompt) and its tail (the last status), so it
 * stays cheap however long the sessions are.
 */

export interface SessionInfo {
  id: string;
  file: string;
  workspace: string;
  model: string;
  /** ms since the epoch, from the first session_started. */
  startedAt: number;
  /** ms since the epoch: the last event's time, else the file's mtime. */
  lastActiveAt: number;
  firstPrompt: string;
  /** The last session_finished status, or "interrupted" when the log ends without one. */
  status: string;
  /** How many times it was resumed. */
  resumes: number;
}

const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 64 * 1024;

export function sessionsDir(dataDir: string): string {
  return path.join(dataDir, "sessions");
}

export function sessionFile(dataDir: string, id: string): string {
  return path.join(sessionsDir(dataDir), `${id}.jsonl`);
}

/** Every readable session, most recently active first. */
export function listSessions(dataDir: string): SessionInfo[] {
  const dir = sessionsDir(dataDir);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith(".jsonl"));
  } catch {
    return [];
  }
  const infos: SessionInfo[] = [];
  for (const name of names) {
    const info = readSessionInfo(path.join(dir, name));
    if (info) infos.push(info);
  }
  return infos.sort((a, b) => b.lastActiveAt - a.lastActiveAt || b.startedAt - a.startedAt);
}

/** The session with this id, or the only one whose id starts with it. */
export function findSession(dataDir: string, idOrPrefix: string): SessionInfo | { error: string } {
  const exact = readSessionInfo(sessionFile(dataDir, idOrPrefix));
  if (exact) return exact;
  const matches = listSessions(dataDir).filter((s) => s.id.startsWith(idOrPrefix));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) return { error: `session id "${idOrPrefix}" is ambiguous: ${matches.map((m) => m.id).join(", ")}` };
  return { error: `no session "${idOrPrefix}" in ${sessionsDir(dataDir)} (orca sessions lists them)` };
}

/** The most recently active session, of one workspace when given. */
export function latestSession(dataDir: string, workspace?: string): SessionInfo | null {
  const all = listSessions(dataDir);
  const wanted = workspace === undefined ? undefined : canonical(workspace);
  return all.find((s) => wanted === undefined || canonical(s.workspace) === wanted) ?? null;
}

function canonical(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

type Loose = { type?: unknown; ts?: unknown; sessionId?: unknown; [key: string]: unknown };

export function readSessionInfo(file: string): SessionInfo | null {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch {
    return null;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const mtime = fs.fstatSync(fd).mtimeMs;
    const headText = readRange(fd, 0, Math.min(size, HEAD_BYTES));
    const head = parseLines(headText, size > HEAD_BYTES);
    const started = head.find((e) => e.type === "session_started");
    if (!started || typeof started.sessionId !== "string") return null;
    const prompt = head.find((e) => e.type === "user_message");
    const tailStart = Math.max(0, size - TAIL_BYTES);
    // The tail's first line is usually cut by the window: drop it unless the window is the whole file.
    const tail = tailStart === 0 ? head : parseLines(readRange(fd, tailStart, size - tailStart), false, tailStart > 0);
    let status = "interrupted";
    for (let i = tail.length - 1; i >= 0; i--) {
      const e = tail[i]!;
      if (e.type === "session_finished") {
        status = typeof e.status === "string" ? e.status : status;
        break;
      }
      if (e.type === "session_started") break;
    }
    const last = tail.at(-1);
    const resumes = countResumes(head, tail, tailStart === 0);
    return {
      id: started.sessionId,
      file,
      workspace: typeof started.workspace === "string" ? started.workspace : "",
      model: typeof started.model === "string" ? started.model : "",
      startedAt: typeof started.ts === "number" ? started.ts : mtime,
      lastActiveAt: typeof last?.ts === "number" ? last.ts : mtime,
      firstPrompt: typeof prompt?.text === "string" ? prompt.text : "",
      status,
      resumes,
    };
  } finally {
    fs.closeSync(fd);
  }
}

/** Resumes seen in the head and tail windows (exact for small logs, a lower bound for huge ones). */
function countResumes(head: Loose[], tail: Loose[], same: boolean): number {
  const count = (events: Loose[]) => events.filter((e) => e.type === "session_started" && typeof e.resumedFrom === "string").length;
  return same ? count(head) : count(head) + count(tail);
}

function readRange(fd: number, start: number, length: number): string {
  const buffer = Buffer.alloc(length);
  const read = fs.readSync(fd, buffer, 0, length, start);
  return buffer.subarray(0, read).toString("utf8");
}

/** Parses whole lines; a cut first or last line (window edges, a torn write) is skipped. */
function parseLines(text: string, lastMayBeCut: boolean, firstMayBeCut = false): Loose[] {
  const lines = text.split("\n");
  if (firstMayBeCut) lines.shift();
  if (lastMayBeCut) lines.pop();
  const out: Loose[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (value && typeof value === "object" && !Array.isArray(value)) out.push(value as Loose);
    } catch {
      // A torn or damaged line: listing is best-effort, resume reports it.
    }
  }
  return out;
}
