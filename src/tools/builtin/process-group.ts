import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { groupAlive, signalGroup } from "../../util/process-group.js";

export { groupAlive, signalGroup };

/**
 * Shell commands run as leaders of their own process group, so everything they start can be
 * stopped with one signal to the group — the only reliable way to leave no orphans behind.
 */

export const KILL_GRACE_MS = 2_000;
const POLL_MS = 50;
const SETTLE_MS = 25;

/**
 * A process to start: `file args…` in `cwd`, with `fd3` written to its fd 3 (bwrap's seccomp
 * filter) and, with `infoFd`, a pipe on fd 4 to read from (bwrap's --info-fd).
 */
export interface LaunchSpec {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  fd3?: Buffer;
  infoFd?: boolean;
}

/** `bash -c command`, outside any sandbox. */
export function plainBash(command: string, cwd: string, env: NodeJS.ProcessEnv): LaunchSpec {
  return { file: "bash", args: ["-c", command], cwd, env };
}

export function spawnInGroup(spec: LaunchSpec): ChildProcess {
  const child = spawn(spec.file, spec.args, {
    cwd: spec.cwd,
    detached: true,
    // A command waiting for input would hang until its timeout: give it end-of-file instead.
    stdio: ["ignore", "pipe", "pipe", ...(spec.fd3 || spec.infoFd ? [spec.fd3 ? "pipe" : "ignore"] : []), ...(spec.infoFd ? ["pipe"] : [])] as Array<"ignore" | "pipe">,
    env: spec.env,
  });
  const fd3 = child.stdio[3];
  if (spec.fd3 && fd3 && "end" in fd3) {
    // The reader may be gone already (bwrap failed to start): that shows in its exit, not here.
    fd3.on("error", () => {});
    fd3.end(spec.fd3);
  }
  return child;
}

/**
 * Whether the pid namespace whose init is `initPid` is empty: the kernel kills and reaps every
 * other process of a pid namespace before its init may end, so an init that is a zombie or gone
 * means nothing of the sandbox runs any more. (A reused pid reads as running: the caller then
 * looks the slow way.)
 */
export function namespaceEmptied(initPid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${initPid}/stat`, "utf8");
    const state = stat[stat.lastIndexOf(")") + 2];
    return state === "Z" || state === "X";
  } catch {
    return true;
  }
}

/**
 * SIGTERM the group, then SIGKILL whatever is still alive after `graceMs`. Resolves once the
 * group is gone (or has been sent SIGKILL, which cannot be refused).
 */
export async function terminateGroup(pgid: number, graceMs = KILL_GRACE_MS): Promise<void> {
  if (!signalGroup(pgid, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  // Most groups are gone within a few milliseconds (a sandbox's init finishing after bwrap has
  // returned): look again soon, then less often.
  for (let wait = 2; Date.now() < deadline; wait = Math.min(wait * 2, POLL_MS)) {
    await sleep(wait);
    if (!groupAlive(pgid)) return;
  }
  signalGroup(pgid, "SIGKILL");
}

function sleep(ms: number, unref = false): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (unref) timer.unref();
  });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Resolves when the command is finished: its leader has exited, whatever it left running in its
 * group has been stopped, and its output has been read. A process that escaped the group but
 * still holds the output pipes cannot stall this for more than the grace period. `emptied` may
 * say cheaply that nothing of the command is left (true), saving a walk through /proc.
 */
export function whenFinished(child: ChildProcess, graceMs = KILL_GRACE_MS, emptied?: () => boolean): Promise<Exit> {
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  return new Promise((resolve) => {
    child.once("exit", (code: number | null, signal: NodeJS.Signals | null) => {
      const pid = child.pid;
      // A sandbox's init is still finishing when bwrap has returned; it holds the output pipes
      // until it is gone. Give it a moment rather than signal a group about to end by itself.
      void Promise.race([closed, sleep(SETTLE_MS, true)])
        // Processes left running in the group would be orphans: stop them now.
        .then(() => (pid !== undefined && !emptied?.() && groupAlive(pid) ? terminateGroup(pid, graceMs) : undefined))
        .then(() => Promise.race([closed, sleep(graceMs, true)]))
        .then(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          resolve({ code, signal });
        });
    });
  });
}

/** The exit code a shell would report: 128 + signal number for a signal death. */
export function shellExitCode(exit: Exit): number {
  if (exit.code !== null) return exit.code;
  return 128 + (exit.signal ? os.constants.signals[exit.signal] : 0);
}
