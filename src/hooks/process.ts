import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { followSandbox, groupAlive, signalGroup, waitGroupGone, type SpawnSpec } from "../util/process-group.js";
import type { HookProcessResult } from "./output.js";

/**
 * One hook process: the JSON on its stdin, its stdout and stderr captured, run as the leader of its
 * own process group. When its timeout expires or the caller's signal aborts, the whole group gets
 * SIGTERM, then SIGKILL after a short grace. A hook leaves nothing running: once its main process
 * has exited, whatever it left behind in its group is killed too.
 */

/**
 * Lets the command sandbox run hooks inside it: given what orca would start, returns what to start
 * instead (e.g. `bwrap … -- bash -c CMD`). None by default. It may be async (the sandbox resolves
 * its unreadable paths per command); a wrapper that throws or rejects fails that hook only.
 */
export type WrapCommand = (spec: SpawnSpec) => SpawnSpec | Promise<SpawnSpec>;

/**
 * The shell command line a spec runs: a shell-form hook's own command, an exec-form one with each
 * word quoted. For a sandbox whose wrapper takes a command line (`bash -c LINE` inside bwrap).
 */
export function shellCommandOf(spec: Pick<SpawnSpec, "file" | "args">): string {
  if (spec.file === "bash" && spec.args.length === 3 && spec.args[0] === "--norc" && spec.args[1] === "-c") return spec.args[2]!;
  return [spec.file, ...spec.args].map(shellQuote).join(" ");
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export interface RunProcessOptions {
  input: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Called with the group id once started and again (with `false`) once it is gone. */
  track?(pgid: number, live: boolean): void;
}

export const KILL_GRACE_MS = 1_000;
/** After the main process exits, how long its output pipes may take to drain. */
const DRAIN_MS = 100;
const STDOUT_LIMIT = 4 * 1024 * 1024;
const STDERR_LIMIT = 64 * 1024;

export function runHookProcess(spec: SpawnSpec, opts: RunProcessOptions): Promise<HookProcessResult> {
  return new Promise((resolve) => {
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    const stdout = new Capture(STDOUT_LIMIT);
    const stderr = new Capture(STDERR_LIMIT);
    if (opts.signal?.aborted) {
      spec.lease?.exited();
      resolve({ exitCode: null, stdout: "", stderr: "", timedOut, cancelled: true });
      return;
    }
    // fd 3 and 4 only when asked for: a seccomp filter, bwrap's pid report (for the sandbox's lease).
    const extra: Array<"pipe" | "ignore"> = spec.fd3 || spec.infoFd ? [spec.fd3 ? "pipe" : "ignore", ...(spec.infoFd ? ["pipe" as const] : [])] : [];
    // stdin, stdout and stderr are always pipes; the extra descriptors only widen the static type.
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(spec.file, spec.args, { cwd: spec.cwd, env: spec.env, detached: true, stdio: ["pipe", "pipe", "pipe", ...extra] }) as ChildProcessWithoutNullStreams;
    } catch (error) {
      spec.lease?.exited();
      throw error;
    }
    followSandbox(child, spec);
    const pgid = child.pid;
    if (pgid !== undefined) opts.track?.(pgid, true);
    let killTimer: NodeJS.Timeout | undefined;
    const terminate = (): void => {
      if (pgid === undefined || killTimer) return;
      signalGroup(pgid, "SIGTERM");
      killTimer = setTimeout(() => signalGroup(pgid, "SIGKILL"), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, opts.timeoutMs);
    const onAbort = (): void => {
      cancelled = true;
      terminate();
    };
    opts.signal?.addEventListener("abort", onAbort, { once: true });

    const finish = async (exitCode: number | null, spawnError?: string): Promise<void> => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      if (pgid !== undefined) {
        // Leftovers of a finished hook, or a group that ignored SIGTERM: SIGKILL cannot be refused.
        if (groupAlive(pgid)) {
          signalGroup(pgid, "SIGKILL");
          await waitGroupGone(pgid, KILL_GRACE_MS);
        }
        opts.track?.(pgid, false);
      }
      clearTimeout(killTimer);
      resolve({
        exitCode: timedOut || cancelled ? null : exitCode,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        cancelled: cancelled && !timedOut,
        ...(spawnError !== undefined ? { spawnError } : {}),
      });
    };

    child.stdout.on("data", (chunk: Buffer) => stdout.add(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.add(chunk));
    // A hook that never reads its stdin closes the pipe early: that is its right, not an error.
    child.stdin.on("error", () => {});
    child.stdin.end(opts.input);
    if (spec.fd3) {
      const fd3 = child.stdio[3] as NodeJS.WritableStream & { on(event: "error", listener: () => void): void };
      fd3.on("error", () => {});
      fd3.end(spec.fd3);
    }
    child.on("error", (error) => void finish(null, (error as NodeJS.ErrnoException).code ?? error.message));
    child.on("exit", (code, signal) => {
      // A background child may hold the pipes open forever: give them a moment, then stop waiting.
      const drained = new Promise<void>((done) => {
        if (child.stdout.readableEnded && child.stderr.readableEnded) return done();
        const cut = setTimeout(done, DRAIN_MS);
        child.on("close", () => {
          clearTimeout(cut);
          done();
        });
      });
      void drained.then(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        return finish(code ?? (signal ? null : 0));
      });
    });
  });
}

/** Bounded capture: a hook printing without end cannot take orca's memory with it. */
class Capture {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private cut = false;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    if (this.size >= this.limit) {
      this.cut = true;
      return;
    }
    const room = this.limit - this.size;
    this.chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    this.size += Math.min(chunk.length, room);
    if (chunk.length > room) this.cut = true;
  }

  text(): string {
    const text = Buffer.concat(this.chunks).toString("utf8");
    return this.cut ? `${text}\n… (output cut at ${this.limit} bytes)` : text;
  }
}
