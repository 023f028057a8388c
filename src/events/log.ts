import fs from "node:fs";
import path from "node:path";
import { Redactor } from "./redact.js";
import { LogWriteError, SessionInUse } from "../util/errors.js";
import { PidLock } from "../util/pid-lock.js";
import { eventSchema, type OrcaEvent } from "./types.js";

/**
 * The session log: one JSON event a line, appended synchronously as it happens so that a crash
 * loses at most a torn last line (the page cache survives a killed process). Against power loss
 * the file is synced around tool calls, where the world changes: before a call starts, everything
 * logged so far — the previous calls' results included — is on disk. A result is synced by the
 * next call's start rather than at once, which halves the syncs; losing one to a power cut makes
 * resume report that call as "result unknown", which is the safe answer anyway. A file_write is
 * synced before the file is replaced: resume reads "no file_write" as "the call wrote nothing".
 * A call the scheduler queued as a pure read (no writes, not a command) changes nothing, so its
 * start is not synced: with many agents reading at once, a sync per read (3–4 ms each here, on
 * the event loop) held every agent up; the next call that changes something syncs it all.
 * A call that is never queued (delegate and the other unscheduled tools) is synced before it runs
 * too, but by `durable()`, which its executor awaits: the starts of one turn share one sync (64
 * delegate calls in one response made 64 syncs in a row before the last sub-agent could start).
 */
const SYNCED = new Set<OrcaEvent["type"]>(["tool_started", "file_write", "session_finished"]);

const callKey = (e: { agentId: string; callId: string }): string => `${e.agentId}\u0000${e.callId}`;

export class SessionLog {
  private fd: number | null;
  /** Set once a write failed: the log is no longer the whole record, and says so instead of going on. */
  private failure: LogWriteError | null = null;
  private readonly lock: PidLock;
  /** Calls queued and not yet started, each with whether it is a pure read (its start needs no sync). */
  private readonly queued = new Map<string, boolean>();
  /** The one sync that the unqueued starts written since the last sync wait for (durable). */
  private owed: Promise<void> | null = null;
  private onFailure: ((failure: LogWriteError) => void) | null = null;
  /** Whether a line was written since the last sync: close() then syncs it, else it has nothing to add. */
  private unsynced = false;

  /**
   * Opens the log for appending, holding its lock (`<file>.lock`) until close: two processes never
   * append to one log. `lock` is one already taken (resume takes it before repairing the log's
   * tail); without it the log takes its own, and throws SessionInUse when a live process holds it.
   */
  constructor(
    readonly file: string,
    readonly redactor = new Redactor(),
    lock?: PidLock,
  ) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    this.lock = lock ?? lockSessionLog(file);
    try {
      this.fd = fs.openSync(file, "a", 0o600);
    } catch (error) {
      this.lock.release();
      throw error;
    }
  }

  /**
   * Appends one event. Throws a LogWriteError when it cannot (a full disk, a file size limit, a
   * closed descriptor); every later append then throws the same error at once.
   */
  append(event: OrcaEvent): void {
    if (this.failure) throw this.failure;
    if (this.fd === null) return;
    const line = Buffer.from(`${this.redactor.redactJson(JSON.stringify(event))}\n`);
    try {
      // A write may be partial (a file size limit reached mid-line): what is left is written again,
      // which either completes the line or fails with the reason.
      for (let done = 0; done < line.length; ) done += fs.writeSync(this.fd, line, done);
      this.unsynced = true;
      const sync = this.syncFor(event);
      if (sync === "now") this.dataSync(this.fd);
      else if (sync === "owed") this.owed ??= this.syncSoon();
    } catch (error) {
      throw this.fail(error);
    }
  }

  /**
   * Resolves once everything appended so far is on disk: what an unscheduled call's executor awaits
   * between its start and running it. Rejects with the LogWriteError when the sync failed.
   */
  durable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return this.owed ?? Promise.resolve();
  }

  /** One fdatasync on the next turn of the event loop: every start appended before then rides on it. */
  private syncSoon(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        this.owed = null;
        if (this.fd === null) return resolve(); // closed: close() synced it
        try {
          this.dataSync(this.fd);
          resolve();
        } catch (error) {
          const failure = this.fail(error);
          this.onFailure?.(failure);
          reject(failure);
        }
      });
    });
  }

  private dataSync(fd: number): void {
    fs.fdatasyncSync(fd);
    this.unsynced = false;
  }

  private fail(error: unknown): LogWriteError {
    const code = (error as NodeJS.ErrnoException).code;
    this.failure = new LogWriteError(`the session log ${this.file} could not be written (${code ?? (error instanceof Error ? error.message : String(error))})`, { cause: error });
    return this.failure;
  }

  /**
   * When the event must be on disk: now (a start that may change something, a file_write, the end),
   * owed (a start never queued: durable() syncs it before the call runs), or not before the next sync
   * (any other event, and the start of a call queued as a pure read).
   */
  private syncFor(event: OrcaEvent): "now" | "owed" | "later" {
    if (event.type === "tool_queued") {
      const { access } = event;
      this.queued.set(callKey(event), access !== "exclusive" && access.writes.length === 0 && !access.command);
      return "later";
    }
    if (event.type === "tool_started") {
      const key = callKey(event);
      const read = this.queued.get(key);
      this.queued.delete(key);
      return read === undefined ? "owed" : read ? "later" : "now";
    }
    if (event.type === "tool_finished") this.queued.delete(callKey(event));
    return SYNCED.has(event.type) ? "now" : "later";
  }

  /** Appends every event the bus carries; the first failed write goes to `onFailure`, then nothing more. */
  record(bus: { subscribe(listener: (event: OrcaEvent) => void): () => void }, onFailure: (failure: LogWriteError) => void): void {
    this.onFailure = onFailure;
    bus.subscribe((event) => {
      if (this.failure) return;
      try {
        this.append(event);
      } catch (error) {
        onFailure(error instanceof LogWriteError ? error : new LogWriteError(String(error)));
      }
    });
  }

  /** Why the log stopped being written, if it did. */
  get failed(): LogWriteError | null {
    return this.failure;
  }

  /**
   * Syncs what was written since the last sync, closes the file and releases the lock. A run's last
   * event (session_finished) is synced as it is written, so at the end of a run close has nothing
   * to sync: a second sync there was the last few ms of every run's exit (more on a busy disk).
   */
  close(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    try {
      if (this.unsynced) fs.fsyncSync(fd);
    } catch {
      // A log that could not be synced has already said so (append), or has nothing left to lose.
    }
    try {
      fs.closeSync(fd);
    } catch {
      // Already closed under us: nothing to release.
    }
    this.lock.release();
  }
}

/** The lock of a session log; throws SessionInUse naming the live process that holds it. */
export function lockSessionLog(file: string): PidLock {
  const lock = PidLock.acquire(`${file}.lock`);
  if ("heldBy" in lock) throw new SessionInUse(path.basename(file).replace(/\.jsonl$/, ""), lock.heldBy.pid);
  return lock;
}

export interface ReadLogResult {
  events: OrcaEvent[];
  /** Lines that could not be parsed: a torn last line after a crash, or damage. */
  skipped: { line: number; reason: string }[];
}

export function readLog(file: string): ReadLogResult {
  const text = fs.readFileSync(file, "utf8");
  const lines = text.split("\n");
  const events: OrcaEvent[] = [];
  const skipped: ReadLogResult["skipped"] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      skipped.push({ line: i + 1, reason: i >= lines.length - 2 ? "torn last line" : "not JSON" });
      return;
    }
    const parsed = eventSchema().safeParse(json);
    if (parsed.success) events.push(parsed.data);
    else skipped.push({ line: i + 1, reason: `not an orca event: ${parsed.error.issues[0]?.message ?? "invalid"}` });
  });
  return { events, skipped };
}
