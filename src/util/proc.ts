import fs from "node:fs";

/**
 * Who a pid is: a pid is reused once its process is gone, so a pid alone may name a stranger. The
 * start time (clock ticks after boot, /proc/<pid>/stat field 22) with the boot's id names exactly
 * one process on a machine, ever.
 */

let bootId: string | undefined;

function currentBootId(): string {
  if (bootId === undefined) {
    try {
      bootId = fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      bootId = "";
    }
  }
  return bootId;
}

/** `<boot id>:<start ticks>` of a live process; null when it is gone or the system has no /proc. */
export function processStartTime(pid: number): string | null {
  const ticks = statFields(pid)?.[19];
  return ticks ? `${currentBootId()}:${ticks}` : null;
}

/** Whether a process with this pid exists (a zombie counts: it is not reaped yet). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether `pid` is still the process that had `startTime`. Without a recorded start time (a system
 * without /proc) a live pid is taken for it.
 */
export function sameProcess(pid: number, startTime: string | null): boolean {
  if (!pidExists(pid)) return false;
  if (startTime === null) return true;
  const now = processStartTime(pid);
  return now === null || now === startTime;
}

/** Dead but not yet reaped by its parent: nothing of it runs. */
export function isZombie(pid: number): boolean {
  const state = processState(pid);
  return state === "Z" || state === "X";
}

/** The state letter in /proc/<pid>/stat (R, S, Z…); null when the process is gone or there is no /proc. */
export function processState(pid: number): string | null {
  const fields = statFields(pid);
  return fields ? (fields[0] ?? "") : null;
}

/** /proc/<pid>/stat from field 3 (state) on; null when the process is gone or there is no /proc. */
function statFields(pid: number): string[] | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name is in parentheses and may hold spaces; the fields after it start with state (3).
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** Sends `signal` to `pid`, quietly: a process already gone is what the caller wanted anyway. */
export function killQuietly(pid: number, signal: NodeJS.Signals = "SIGKILL"): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
