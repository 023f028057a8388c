import crypto from "node:crypto";
import fs from "node:fs";
import { processStartTime, sameProcess } from "./proc.js";

/** Who holds a lock: a pid, and the start time that tells it apart from a later process with that pid. */
export interface LockHolder {
  pid: number;
  startTime: string | null;
}

/** A takeover guard older than this was left by a process that died in the middle of one. */
const STALE_GUARD_MS = 10_000;
const ATTEMPTS = 20;

/**
 * An exclusive lock held by a live process: a file (created whole, atomically) that names the holder's
 * pid and start time. A lock whose holder is gone — dead, or its pid reused by another process — is
 * stale and taken over. Taking over runs under a guard directory, so two processes that find the
 * same stale lock cannot both take it.
 */
export class PidLock {
  private released = false;

  private constructor(readonly file: string) {}

  /** The lock, or who holds it. */
  static acquire(file: string): PidLock | { heldBy: LockHolder } {
    const mine: LockHolder = { pid: process.pid, startTime: processStartTime(process.pid) };
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (create(file, mine)) return new PidLock(file);
      const holder = readHolder(file);
      if (holder === "gone") continue;
      if (holder && sameProcess(holder.pid, holder.startTime)) return { heldBy: holder };
      takeOver(file, holder);
    }
    throw new Error(`could not take the lock ${file}: other processes keep taking it`);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      fs.unlinkSync(this.file);
    } catch {
      // Already removed (or taken over as stale): nothing to release.
    }
  }
}

/**
 * Creates the lock with its content in one step: written to a file of its own, then linked to the
 * lock's name, which fails if the lock exists. No one ever reads a lock that is created but empty.
 */
function create(file: string, mine: LockHolder): boolean {
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}`;
  fs.writeFileSync(tmp, JSON.stringify(mine), { mode: 0o600 });
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** The holder a lock file names; null when it names none (damaged); "gone" when the file is gone. */
function readHolder(file: string): LockHolder | null | "gone" {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return "gone";
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid === "number" && Number.isSafeInteger(parsed.pid) && parsed.pid > 0) {
      return { pid: parsed.pid, startTime: typeof parsed.startTime === "string" ? parsed.startTime : null };
    }
  } catch {
    // Damaged (the lock is created whole, so not by a crash of its holder): nobody holds it.
  }
  return null;
}

/** Removes a stale lock, unless someone replaced it meanwhile. */
function takeOver(file: string, stale: LockHolder | null): void {
  const guard = `${file}.takeover`;
  try {
    fs.mkdirSync(guard);
  } catch {
    // Another process is taking over: let it. A guard left by one that died is removed.
    try {
      if (Date.now() - fs.statSync(guard).mtimeMs > STALE_GUARD_MS) fs.rmdirSync(guard);
    } catch {
      // gone meanwhile
    }
    return;
  }
  try {
    const now = readHolder(file);
    const unchanged = now !== "gone" && (now === null ? stale === null : stale !== null && now.pid === stale.pid && now.startTime === stale.startTime);
    if (unchanged) fs.unlinkSync(file);
  } finally {
    fs.rmdirSync(guard);
  }
}
