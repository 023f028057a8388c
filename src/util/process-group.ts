import type { ChildProcess } from "node:child_process";
import fs from "node:fs";

/**
 * Process-group signalling for children spawned with `detached: true` (each the leader of its own
 * group), so everything a child starts can be stopped with one signal. At the ground floor so
 * lifecycle hooks and the tools' process groups (tools/builtin/process-group.ts) share it.
 */

/**
 * A process to start as a group leader: `file args…` in `cwd`. A sandbox may rewrite it (bwrap
 * around the command), which is why the fds bwrap needs travel with it.
 */
export interface SpawnSpec {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to the child's fd 3 (bubblewrap reads its seccomp filter there). */
  fd3?: Buffer;
  /** A pipe on the child's fd 4 (bubblewrap reports its sandbox's pid there: --info-fd). */
  infoFd?: boolean;
  /** The sandbox's hold on what the command relies on (its stand-ins): told of the process's life by the spawner. */
  lease?: SandboxLease;
}

/**
 * What a sandbox needs to know of a process started in it to know when nothing of it is left: its
 * host pid, its sandbox's init (bwrap --info-fd), and that it has exited or never started. Whoever
 * spawns a spec with a lease reports these, through `followSandbox`, or calls `exited` when it
 * does not spawn after all.
 */
export interface SandboxLease {
  spawned(pid: number): void;
  sandboxInit(pid: number): void;
  exited(): void;
}

/**
 * Reads bwrap's --info-fd report on fd 4 and keeps the spec's lease informed. `initPid` is the
 * host pid of the sandbox's init once reported (null before, and outside a sandbox).
 */
export function followSandbox(child: ChildProcess, spec: Pick<SpawnSpec, "infoFd" | "lease">): { initPid: number | null } {
  const out: { initPid: number | null } = { initPid: null };
  const lease = spec.lease;
  if (child.pid === undefined) {
    // Never started (no bwrap, a bad cwd): nothing relies on the stand-ins.
    lease?.exited();
    return out;
  }
  lease?.spawned(child.pid);
  child.once("exit", () => lease?.exited());
  const info = spec.infoFd ? child.stdio[4] : null;
  if (!info || !("setEncoding" in info)) return out;
  let text = "";
  info.on("error", () => {});
  info.setEncoding("utf8").on("data", (chunk: string) => {
    text += chunk;
    const pid = Number(/"child-pid":\s*(\d+)/.exec(text)?.[1]);
    if (pid > 0 && out.initPid === null) {
      out.initPid = pid;
      lease?.sandboxInit(pid);
    }
  });
  return out;
}

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
