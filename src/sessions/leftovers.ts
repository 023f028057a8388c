import path from "node:path";
import { processEnded } from "../events/constructors.js";
import { readLog, SessionLog } from "../events/log.js";
import type { EventOf, OrcaEvent } from "../events/types.js";
import { SessionInUse } from "../util/errors.js";
import { repairTornTail } from "./resume-plan.js";
import { groupAlive, signalGroup, waitGroupGone } from "../util/process-group.js";
import { isZombie, pidExists, processStartTime, sameProcess } from "../util/proc.js";

/**
 * Child processes a crashed run left behind. The log records each process group orca starts and
 * its end (process_started / process_ended); a group started and never ended belonged to a run that
 * died without cleaning up (kill -9, an OOM kill, a power cut). Ending them is safe only when they
 * are still the same processes: a pid is reused once its process is gone, so each group is checked
 * against the start time its leader had.
 */

export type Leftover = Pick<EventOf<"process_started">, "pgid" | "startTime" | "kind" | "command" | "agentId" | "group">;

/** The groups the log says were started and never ended, oldest first. */
export function unendedProcesses(events: readonly OrcaEvent[]): Leftover[] {
  const open = new Map<number, Leftover>();
  for (const e of events) {
    if (e.type === "process_started") open.set(e.pgid, { pgid: e.pgid, startTime: e.startTime, kind: e.kind, command: e.command, agentId: e.agentId, ...(e.group === false ? { group: false } : {}) });
    else if (e.type === "process_ended") open.delete(e.pgid);
  }
  return [...open.values()];
}

/**
 * Whether the recorded group still runs and is provably the one orca started. Its leader, if
 * alive, must be the very process recorded (else the pid was reused: Linux reuses a pid only once
 * no group has that id, so ours is gone). With the leader gone, members of the group may live on
 * as orphans: they are ours, since the group's id cannot have been handed out again while they
 * exist. Without a recorded start time, or with the leader's unreadable, nothing proves a live
 * pid is ours: `unproven`, and it is never signalled.
 */
export function proofOf(p: Leftover): "ours" | "gone" | "unproven" {
  if (p.group === false) {
    if (!pidExists(p.pgid) || isZombie(p.pgid)) return "gone";
    if (p.startTime === null) return "unproven";
    const now = processStartTime(p.pgid);
    if (now === null) return "unproven";
    return now === p.startTime ? "ours" : "gone";
  }
  if (pidExists(p.pgid)) {
    if (p.startTime === null) return "unproven";
    const now = processStartTime(p.pgid);
    if (now === null) return "unproven";
    if (now !== p.startTime) return "gone";
  } else if (p.startTime === null) {
    return groupAlive(p.pgid) ? "unproven" : "gone";
  }
  return groupAlive(p.pgid) ? "ours" : "gone";
}

/** Whether anything of the recorded group still runs, provably orca's (proofOf). */
export function stillRunning(p: Leftover): boolean {
  return proofOf(p) === "ours";
}

export interface ReapOutcome {
  process: Leftover;
  /** ended: it was running and orca ended it; gone: nothing of it ran any more; unproven: left alone (proofOf). */
  result: "ended" | "gone" | "unproven";
}

/** Ends every leftover still running and provably orca's: SIGTERM, then SIGKILL after `graceMs`. */
export async function reapProcesses(leftovers: readonly Leftover[], graceMs = 2_000): Promise<ReapOutcome[]> {
  return Promise.all(
    leftovers.map(async (p): Promise<ReapOutcome> => {
      const proof = proofOf(p);
      if (proof !== "ours") return { process: p, result: proof };
      await end(p, graceMs);
      return { process: p, result: "ended" };
    }),
  );
}

/** The line that says a leftover was left alone: something runs under its id, but nothing proves it is orca's. */
export function describeUnproven(p: Pick<Leftover, "pgid" | "group" | "kind" | "command">, sessionId?: string): string {
  const what = p.group === false ? `process ${p.pgid}` : `process group ${p.pgid}`;
  return `left ${what} alone${sessionId ? ` (session ${sessionId})` : ""}: its record has no start time that proves it is the one orca started (${p.kind}: ${p.command})`;
}

/** The line that says a leftover was ended. */
export function describeReaped(p: Pick<Leftover, "pgid" | "group" | "kind" | "command">, sessionId?: string): string {
  const what = p.group === false ? `process ${p.pgid}` : `process group ${p.pgid}`;
  return `ended ${what} left running by a crashed run${sessionId ? ` of session ${sessionId}` : ""} (${p.kind}: ${p.command})`;
}

async function end(p: Leftover, graceMs: number): Promise<void> {
  if (p.group === false) {
    signalPid(p.pgid, "SIGTERM");
    if (await waitFor(() => !sameProcess(p.pgid, p.startTime) || isZombie(p.pgid), graceMs)) return;
    signalPid(p.pgid, "SIGKILL");
    return;
  }
  signalGroup(p.pgid, "SIGTERM");
  if (await waitGroupGone(p.pgid, graceMs)) return;
  signalGroup(p.pgid, "SIGKILL");
  await waitGroupGone(p.pgid, graceMs);
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone meanwhile
  }
}

async function waitFor(check: () => boolean, limitMs: number): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface SessionReap {
  sessionId: string;
  /** Leftovers that were still running and were ended now. */
  ended: Leftover[];
  /** Leftovers something runs under that nothing proves are orca's: left alone (their records closed). */
  unproven: Leftover[];
  /** Set when a live orca holds the session: its processes are its own, nothing was touched. */
  inUseBy?: number;
}

/**
 * `orca sessions --reap`: for every session no live orca holds, ends the groups its crashed runs
 * left running and records their end in its log (under the log's lock, so a resume cannot start
 * meanwhile). Sessions that are running are left alone.
 */
export async function reapSessions(files: readonly string[], graceMs = 2_000): Promise<SessionReap[]> {
  const out: SessionReap[] = [];
  for (const file of files) {
    const sessionId = path.basename(file).replace(/\.jsonl$/, "");
    let log: SessionLog;
    try {
      log = new SessionLog(file);
    } catch (error) {
      if (error instanceof SessionInUse) out.push({ sessionId, ended: [], unproven: [], inUseBy: error.pid });
      continue;
    }
    try {
      repairTornTail(file);
      const leftovers = unendedProcesses(readLog(file).events);
      if (!leftovers.length) continue;
      const outcomes = await reapProcesses(leftovers, graceMs);
      for (const { process: p, result } of outcomes) {
        log.append({ ...processEnded(p, result === "ended"), ts: Date.now(), sessionId });
      }
      const of = (result: ReapOutcome["result"]) => outcomes.filter((o) => o.result === result).map((o) => o.process);
      out.push({ sessionId, ended: of("ended"), unproven: of("unproven") });
    } finally {
      log.close();
    }
  }
  return out;
}
