/**
 * What read versions add to a write_file: the check before it and the record after it, timed around
 * exactly those calls (the stat and the write itself are the tool's cost with or without them), on
 * real files of a temp workspace that read_file has seen. Timing only the added code keeps the
 * number readable on a loaded machine, where two whole-write runs differ by more than it.
 * Also the scans around an exclusive bash command (before it and after it), per file the session knows.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { readFileTool } from "../src/tools/builtin/read-file.js";
import type { ToolContext } from "../src/tools/tool.js";
import { FileVersions } from "../src/tools/versions.js";
import { Workspace } from "../src/tools/workspace.js";
import { bpeTokenCounter } from "../src/model/token-counter.js";

export interface VersionCost {
  /** µs per write of a file seen long after its last change: the stat vouches, no re-hash. */
  fastUs: number;
  /** µs per write of a file changed < 50 ms before it was seen: read and hashed again. */
  rehashUs: number;
  /** µs per known file of the scans before and after an exclusive call (nothing changed). */
  scanUsPerFile: number;
  fileBytes: number;
}

const FILES = 300;
const FILE_BYTES = 4 * 1024;

/**
 * A RAM-backed temp dir when there is one: rewriting a file on a disk file system (ext4 flushes a
 * truncated-and-rewritten file on close) costs the write itself milliseconds on a busy machine,
 * which is the tool's cost with or without version checks and would swamp theirs.
 */
function memoryDir(): string {
  try {
    if (fs.statSync("/dev/shm").isDirectory()) {
      fs.accessSync("/dev/shm", fs.constants.W_OK);
      return "/dev/shm";
    }
  } catch {
    // No /dev/shm (macOS): the ordinary temp dir.
  }
  return os.tmpdir();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function measureVersionCost(): Promise<VersionCost> {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-bench-versions-")));
  try {
    const workspace = new Workspace(base);
    const read = readFileTool({ maxOutputTokens: 100_000, tokens: bpeTokenCounter() });
    const signal = new AbortController().signal;
    const body = "x".repeat(FILE_BYTES - 1) + "\n";
    const files = Array.from({ length: FILES }, (_, i) => path.join(base, `f${i}.txt`));
    const forCall = (versions: FileVersions, id: string, tool: string) => versions.forCall({ agentId: "bench", callId: id, tool, emit: () => undefined });

    const next = Buffer.from(body.replace("x", "y"));
    const readCtx = (versions: FileVersions, id: string): ToolContext => ({ signal, workspace, agentId: "bench", callId: id, emit: () => undefined, versions: forCall(versions, id, "read_file") });
    /** µs the check and the record add to one rewrite of `f` (the stat and the write are the tool's own). */
    const timedWrite = async (versions: FileVersions, f: string, id: string): Promise<number> => {
      const call = forCall(versions, id, "write_file");
      const stat = await fs.promises.stat(f);
      const t0 = performance.now();
      const check = await call.checkWrite(f, stat);
      const t1 = performance.now();
      if (!check.ok) throw new Error(`bench write refused: ${check.message}`);
      await fs.promises.writeFile(f, next);
      const t2 = performance.now();
      call.wrote(f, next, false);
      return (t1 - t0 + performance.now() - t2) * 1000;
    };
    /** Every file read long after it was written: the stat taken then vouches at the check. */
    const settled = async (): Promise<number[]> => {
      for (const f of files) fs.writeFileSync(f, body);
      await sleep(120);
      const versions = new FileVersions(workspace);
      for (const [i, f] of files.entries()) await read.execute({ path: f }, readCtx(versions, `r${i}`));
      const samples: number[] = [];
      for (const [i, f] of files.entries()) samples.push(await timedWrite(versions, f, `w${i}`));
      return samples;
    };
    /** Each file read right after it was written: too recent to trust, so the check hashes it. */
    const fresh = async (): Promise<number[]> => {
      const versions = new FileVersions(workspace);
      const samples: number[] = [];
      for (const [i, f] of files.entries()) {
        fs.writeFileSync(f, body);
        await read.execute({ path: f }, readCtx(versions, `r${i}`));
        samples.push(await timedWrite(versions, f, `w${i}`));
      }
      return samples;
    };
    await settled();
    await fresh();
    const fast: number[] = [];
    const rehash: number[] = [];
    for (let k = 0; k < 5; k++) {
      fast.push(...(await settled()));
      rehash.push(...(await fresh()));
    }

    // The scan: every known file stat'ed, none changed (the common case after a test run).
    for (const f of files) fs.writeFileSync(f, body);
    await sleep(120);
    const versions = new FileVersions(workspace);
    for (const [i, f] of files.entries()) {
      await read.execute({ path: f }, { signal, workspace, agentId: "bench", callId: `s${i}`, emit: () => undefined, versions: forCall(versions, `s${i}`, "read_file") });
    }
    const scans: number[] = [];
    for (let k = 0; k < 7; k++) {
      const start = performance.now();
      // A write-bash command is checked before it runs (what changed outside) and after (what it changed).
      const call = forCall(versions, `x${k}`, "bash");
      await call.beforeExclusive();
      const changed = await call.afterExclusive();
      scans.push(((performance.now() - start) * 1000) / files.length);
      if (changed.length) throw new Error("bench scan found changes that were not made");
    }
    return { fastUs: median(fast), rehashUs: median(rehash), scanUsPerFile: median(scans), fileBytes: FILE_BYTES };
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

/**
 * Scheduler tasks that do the read-version work of each bench call on a temp copy of its paths:
 * a read records the version it saw (the file's stat and bytes are taken before the clock starts,
 * as read_file has them anyway); a write checks the agent's version (re-reading the file when its
 * stat cannot vouch) and records it, and the file is written so the next check finds it on disk. One per run, so every run
 * starts from the same disk; `dispose` removes the files.
 */
export function versionedTasks(benchRoot: string, calls: { agentId: string; access: "exclusive" | { reads: string[]; writes: string[] } }[]) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(memoryDir(), "orca-bench-paths-")));
  const versions = new FileVersions(new Workspace(base));
  const real = (p: string) => path.join(base, path.relative(benchRoot, p));
  const seen = new Map<string, { stat: fs.Stats; data: Buffer }>();
  for (const call of calls) {
    if (call.access === "exclusive") continue;
    for (const p of call.access.reads) {
      const abs = real(p);
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, "export const x = 1;\n");
      seen.set(abs, { stat: fs.statSync(abs), data: fs.readFileSync(abs) });
    }
    for (const p of call.access.writes) fs.mkdirSync(path.dirname(real(p)), { recursive: true });
  }
  let n = 0;
  return {
    async run(call: (typeof calls)[number]): Promise<void> {
      if (call.access === "exclusive") return;
      const id = `b${n++}`;
      const forCall = (tool: string) => versions.forCall({ agentId: call.agentId, callId: id, tool, emit: () => undefined });
      for (const p of call.access.reads) {
        const { stat, data } = seen.get(real(p))!;
        forCall("read_file").read(real(p), stat, data);
      }
      for (const p of call.access.writes) {
        const abs = real(p);
        const v = forCall("write_file");
        // The stat and the write are write_file's own work, not the check's: done synchronously
        // here so the disk stays true for the next check without the thread pool's queueing.
        const stat = fs.existsSync(abs) ? fs.statSync(abs) : null;
        const check = await v.checkWrite(abs, stat);
        if (!check.ok) throw new Error(`bench write refused: ${check.message}`);
        const data = Buffer.from(`export const y = "${id}";\n`);
        fs.writeFileSync(abs, data);
        v.wrote(abs, data, stat === null);
      }
    },
    dispose: () => fs.rmSync(base, { recursive: true, force: true }),
  };
}
