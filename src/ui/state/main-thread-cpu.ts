import fs from "node:fs";

/**
 * CPU time of the calling thread (the dashboard's: the main thread), ms: what a frame (React, Ink, the diff) costs, without the CPU of
 * V8's other threads. process.cpuUsage is the whole process's: while V8 compiles the hot paths on
 * its compiler threads (the first seconds of streaming) and collects garbage on its helpers, that
 * was as much again as the frame, and spaced the frames out to ~8 a second where the main thread
 * had room for 20. getrusage(RUSAGE_SELF) also walks every thread of the process on Linux.
 *
 * Node ≥ 23.9 has process.threadCpuUsage (getrusage of this thread). On Node 20 and 22 on Linux,
 * /proc/thread-self/schedstat holds the same count (ns on the CPU); the file is kept open and read
 * from its start, one system call a read. Elsewhere, the process's time.
 */
type ThreadCpuUsage = () => { user: number; system: number };

export type CpuClock = { readonly kind: "thread" | "schedstat" | "process"; now(): number };

/** This thread's CPU clock: how it is read is chosen once. */
export function mainThreadCpu(): CpuClock {
  return (clock ??= pick());
}

let clock: CpuClock | undefined;

function pick(): CpuClock {
  const threadUsage = (process as { threadCpuUsage?: ThreadCpuUsage }).threadCpuUsage;
  if (typeof threadUsage === "function") {
    return {
      kind: "thread",
      now: () => {
        const u = threadUsage.call(process);
        return (u.user + u.system) / 1000;
      },
    };
  }
  const schedstat = openSchedstat();
  if (schedstat) return { kind: "schedstat", now: schedstat };
  return {
    kind: "process",
    now: () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    },
  };
}

/** A reader of this thread's time on the CPU from /proc, or null where there is none. */
function openSchedstat(): (() => number) | null {
  if (process.platform !== "linux") return null;
  let fd: number;
  try {
    // The thread that opens it is the one it counts: each thread (a worker has its own copy of
    // this module) opens its own.
    fd = fs.openSync("/proc/thread-self/schedstat", "r");
  } catch {
    return null;
  }
  const buffer = Buffer.alloc(96);
  const read = (): number => {
    const n = fs.readSync(fd, buffer, 0, buffer.length, 0);
    // "<ns on the CPU> <ns waiting for it> <time slices>"
    const end = buffer.indexOf(0x20);
    return Number(buffer.toString("latin1", 0, end < 0 || end > n ? n : end)) / 1e6;
  };
  try {
    if (!Number.isFinite(read())) throw new Error("unreadable");
  } catch {
    fs.closeSync(fd);
    return null;
  }
  return read;
}
