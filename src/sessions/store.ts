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
  /** The first line of the first prompt, with " …" when the prompt goes on (a piped file). */
  firstPrompt: string;
  /** Whether any model answer was logged: a run that failed before one is noise in a list. */
  answered: boolean;
  /** A session of `orca --demo` written by an older orca, whose workspace was a temporary copy. */
  demo: boolean;
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

/** The names in the sessions folder that end with `suffix` (none when the folder cannot be read). */
export function sessionFileNames(dataDir: string, suffix: string): string[] {
  try {
    return fs.readdirSync(sessionsDir(dataDir)).filter((n) => n.endsWith(suffix));
  } catch {
    return [];
  }
}

/** Every readable session, most recently active first. */
export function listSessions(dataDir: string): SessionInfo[] {
  const dir = sessionsDir(dataDir);
  const infos: SessionInfo[] = [];
  for (const name of sessionFileNames(dataDir, ".jsonl")) {
    const info = readSessionInfo(path.join(dir, name));
    if (info) infos.push(info);
  }
  return infos.sort((a, b) => b.lastActiveAt - a.lastActiveAt || b.startedAt - a.startedAt);
}

/**
 * The sessions a user chooses from (`orca sessions`, the resume picker): never the demo's, and
 * only those that got an answer unless `all`.
 */
export function listedSessions(sessions: readonly SessionInfo[], opts: { all?: boolean } = {}): SessionInfo[] {
  return sessions.filter((s) => !s.demo && (opts.all || s.answered));
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
  const all = listSessions(dataDir).filter((s) => !s.demo);
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
    const promptText = typeof prompt?.text === "string" ? prompt.text : size > HEAD_BYTES ? cutPromptText(headText) : "";
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
      firstPrompt: firstLine(promptText),
      status,
      resumes,
      answered: answered(head) || (tailStart > 0 && answered(tail)),
      demo: isDemoWorkspace(typeof started.workspace === "string" ? started.workspace : ""),
    };
  } finally {
    fs.closeSync(fd);
  }
}

/** Events that exist only once a model has answered. */
const ANSWERED = new Set(["assistant_message", "text_delta", "usage", "tool_started", "tool_finished"]);

function answered(events: Loose[]): boolean {
  return events.some((e) => (typeof e.type === "string" && ANSWERED.has(e.type)) || (e.type === "model_request" && typeof e.step === "number" && e.step > 1));
}

/**
 * `orca --demo` now logs into its temporary folder; older versions logged into the data dir with
 * the demo's temporary workspace `…/orca-demo-XXXXXX/tiny-calc`, deleted when the demo ended.
 */
function isDemoWorkspace(workspace: string): boolean {
  return /[\\/]orca-demo-[^\\/]+[\\/]tiny-calc$/.test(workspace);
}

/** The first non-blank line, marked when more follows. */
function firstLine(text: string): string {
  const lines = text.split(/\r?\n/);
  const index = lines.findIndex((l) => l.trim());
  if (index < 0) return "";
  const more = lines.slice(index + 1).some((l) => l.trim());
  return `${lines[index]!.trim()}${more ? " …" : ""}`;
}

/**
 * The prompt of a user_message line cut by the head window (a large piped prompt): its JSON
 * string decoded as far as it goes, enough for its first line.
 */
function cutPromptText(headText: string): string {
  const at = headText.indexOf('"type":"user_message"');
  if (at < 0) return "";
  const start = headText.indexOf('"text":"', at);
  if (start < 0 || headText.lastIndexOf("\n", start) > at) return "";
  let raw = headText.slice(start + 8, start + 8 + 4096);
  const close = /(?<!\\)(?:\\\\)*"/.exec(raw);
  if (close) raw = raw.slice(0, close.index + close[0].length - 1);
  // Drop an escape cut in half at the window's edge.
  const tail = /(\\+)(u[0-9a-fA-F]{0,3})?$/.exec(raw);
  if (tail && tail[1]!.length % 2 === 1) raw = raw.slice(0, tail.index + tail[1]!.length - 1);
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return "";
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
