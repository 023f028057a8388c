import fs from "node:fs";

/**
 * Process-group signalling for children spawned with `detached: true` (each the leader of its own
 * group), so everything a child starts can be stopped with one signal. At the ground floor so
 * lifecycle hooks and the tools' process groups (tools/builtin/process-group.ts) share it.
 */

/** Sends `signal` to the group; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether any live member of the group remains. Zombies do not count: where PID 1 does not reap
 * (containers), a dead orphan lingers as a zombie that signal 0 still reports as present.
 */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== "linux") return true;
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // Fields after the parenthesised command name: state ppid pgrp …
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}

/** Resolves once no live member of the group remains, or after `limitMs` (false then). */
export async function waitGroupGone(pgid: number, limitMs: number, pollMs = 10): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
