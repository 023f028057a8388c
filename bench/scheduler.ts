/**
 * `npm run bench -- scheduler`: how long the same tool-call workloads take under four policies.
 *
 *   serial     one call at a time (Gemini CLI's edits, or no scheduler at all)
 *   global-rw  Codex CLI: read-only calls share one read lock, every other call takes it alone
 *   per-path   orca's Scheduler (the real class), each call first doing its read-version work on
 *              temp files (a read records its version; a write is checked, written and recorded)
 *   ideal      the critical path of the conflict graph with unbounded concurrency: each call ends
 *              at its latency plus the latest end of the earlier calls it conflicts with
 *
 * Latencies are simulated with setTimeout, so wall times include timer slack (about 1 ms a call).
 * The last workload pushes 10,000 zero-latency calls through the Scheduler to measure its own cost;
 * then what the read-version check adds to one write_file (bench/version-cost.ts), and what one
 * write_file and edit_file cost end to end, with the fsyncs of a crash-safe write (bench/write-cost.ts).
 */
import { performance } from "node:perf_hooks";
import type { Access } from "../src/events/types.js";
import { accessConflicts, normaliseAccess } from "../src/tools/conflicts.js";
import { Scheduler, type ScheduledCall } from "../src/tools/scheduler.js";
import { measureVersionCost, versionedTasks } from "./version-cost.js";
import { measureWriteCost } from "./write-cost.js";

interface BenchCall {
  agentId: string;
  access: Access;
  latencyMs: number;
}

interface Workload {
  key: "a" | "b" | "c";
  title: string;
  calls: BenchCall[];
}

type Policy = "serial" | "global_rw" | "per_path" | "ideal";

/** At least as many slots as any latency workload has calls, so only conflicts limit them. */
const MAX_CONCURRENCY = 16;
const LATENCY = 50;
const WS = "/bench/ws";

const read = (...paths: string[]): Access => ({ reads: paths, writes: [] });
const write = (...paths: string[]): Access => ({ reads: [], writes: paths });

function workloads(): Workload[] {
  const a: BenchCall[] = Array.from({ length: 16 }, (_, i) => ({ agentId: `agent${i % 4}`, access: read(`${WS}/src/f${i}.ts`), latencyMs: LATENCY }));

  // Three reads, then a write, four times over; the writes alternate between two files.
  const b: BenchCall[] = [];
  for (let round = 0; round < 4; round++) {
    for (let r = 0; r < 3; r++) b.push({ agentId: `agent${r}`, access: read(`${WS}/src/r${round * 3 + r}.ts`), latencyMs: LATENCY });
    b.push({ agentId: "agent3", access: write(`${WS}/src/w${round % 2}.ts`), latencyMs: LATENCY });
  }

  const c: BenchCall[] = [];
  for (let edit = 0; edit < 5; edit++) {
    for (let agent = 0; agent < 4; agent++) c.push({ agentId: `agent${agent}`, access: write(`${WS}/src/agent${agent}.ts`), latencyMs: LATENCY });
  }

  return [
    { key: "a", title: "(a) 16 reads, distinct files", calls: a },
    { key: "b", title: "(b) 12 reads + 4 writes on 2 files", calls: b },
    { key: "c", title: "(c) 4 agents x 5 edits, own file each", calls: c },
  ];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

async function runSerial(calls: BenchCall[]): Promise<void> {
  for (const call of calls) await sleep(call.latencyMs);
}

/** A fair (FIFO) reader/writer lock, like the tokio RwLock Codex CLI holds around tool calls. */
class FifoRwLock {
  private readers = 0;
  private writer = false;
  private readonly queue: Array<{ shared: boolean; grant: () => void }> = [];

  acquire(shared: boolean): Promise<void> {
    return new Promise((grant) => {
      this.queue.push({ shared, grant });
      this.drain();
    });
  }

  release(shared: boolean): void {
    if (shared) this.readers--;
    else this.writer = false;
    this.drain();
  }

  private drain(): void {
    while (this.queue.length) {
      const head = this.queue[0];
      const free = head.shared ? !this.writer : !this.writer && this.readers === 0;
      if (!free) return;
      this.queue.shift();
      if (head.shared) this.readers++;
      else this.writer = true;
      head.grant();
    }
  }
}

async function runGlobalRw(calls: BenchCall[]): Promise<void> {
  const lock = new FifoRwLock();
  await Promise.all(
    calls.map(async (call) => {
      const shared = call.access !== "exclusive" && call.access.writes.length === 0;
      await lock.acquire(shared);
      try {
        await sleep(call.latencyMs);
      } finally {
        lock.release(shared);
      }
    }),
  );
}

/** Wall ms of one per-path run; the temp files its calls read and write are made before the clock starts. */
async function runPerPath(calls: BenchCall[]): Promise<number> {
  const scheduler = new Scheduler({ maxConcurrency: MAX_CONCURRENCY });
  const signal = new AbortController().signal;
  const tasks = versionedTasks(WS, calls);
  try {
    return await timed(() =>
      Promise.all(
        calls.map((call, i) =>
          scheduler.run(
            toScheduled(call, i),
            async () => {
              await tasks.run(call);
              await sleep(call.latencyMs);
            },
            signal,
          ),
        ),
      ),
    );
  } finally {
    tasks.dispose();
  }
}

function idealMs(calls: BenchCall[]): number {
  const access = calls.map((c) => normaliseAccess(c.access));
  const finish: number[] = [];
  for (let j = 0; j < calls.length; j++) {
    let ready = 0;
    for (let i = 0; i < j; i++) if (accessConflicts(access[i], access[j])) ready = Math.max(ready, finish[i]);
    finish.push(ready + calls[j].latencyMs);
  }
  return Math.max(0, ...finish);
}

function toScheduled(call: BenchCall, i: number): ScheduledCall {
  return { callId: `call${i}`, agentId: call.agentId, name: "bench", args: {}, access: call.access };
}

// ---- (d) overhead ------------------------------------------------------------------------------

/** mulberry32: the same pseudo-random workload on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A mix shaped like real sessions: mostly file reads, a quarter writes, some directory-wide reads
 * (glob, grep, read-only bash) and a few exclusive calls, from 8 agents over 20 directories of 10
 * files each.
 */
function overheadCalls(n: number, seed: number): BenchCall[] {
  const rand = prng(seed);
  const pick = (k: number) => Math.floor(rand() * k);
  const calls: BenchCall[] = [];
  for (let i = 0; i < n; i++) {
    const dir = `${WS}/d${pick(20)}`;
    const fileInDir = `${dir}/f${pick(10)}.ts`;
    const roll = rand();
    const access: Access =
      roll < 0.005 ? "exclusive" : roll < 0.05 ? read(dir) : roll < 0.3 ? write(fileInDir) : read(fileInDir);
    calls.push({ agentId: `agent${i % 8}`, access, latencyMs: 0 });
  }
  return calls;
}

/** All calls submitted at once: the scheduler holds thousands of waiting calls. */
async function burstUsPerCall(calls: BenchCall[]): Promise<number> {
  let events = 0;
  const scheduler = new Scheduler({ maxConcurrency: 8, emit: () => void events++ });
  const signal = new AbortController().signal;
  const task = async () => undefined;
  const ms = await timed(() => Promise.all(calls.map((call, i) => scheduler.run(toScheduled(call, i), task, signal))));
  if (events !== calls.length * 2) throw new Error(`expected ${calls.length * 2} events, saw ${events}`);
  return (ms * 1000) / calls.length;
}

/** 8 agents, each submitting its next call when the previous one returns: a real session's shape. */
async function streamUsPerCall(calls: BenchCall[]): Promise<number> {
  const scheduler = new Scheduler({ maxConcurrency: 8, emit: () => undefined });
  const signal = new AbortController().signal;
  const task = async () => undefined;
  const lanes = Array.from({ length: 8 }, (_, lane) => calls.filter((_, i) => i % 8 === lane).map((call, k) => ({ call, i: k * 8 + lane })));
  const ms = await timed(() =>
    Promise.all(
      lanes.map(async (lane) => {
        for (const { call, i } of lane) await scheduler.run(toScheduled(call, i), task, signal);
      }),
    ),
  );
  return (ms * 1000) / calls.length;
}

// ---- report ------------------------------------------------------------------------------------

export async function run({ json }: { json: boolean }): Promise<void> {
  const results: Record<string, Record<Policy, number>> = {};
  for (const w of workloads()) {
    // Median of three runs each, so one stall on a shared machine does not decide a row.
    results[w.key] = {
      serial: await median(() => runSerial(w.calls)),
      global_rw: await median(() => runGlobalRw(w.calls)),
      per_path: (await sequence(3, () => runPerPath(w.calls))).sort((x, y) => x - y)[1],
      ideal: idealMs(w.calls),
    };
  }

  // Warm the JIT on a smaller run first, then take the best of three.
  await burstUsPerCall(overheadCalls(1_000, 1));
  const burst = Math.min(...(await sequence(3, (k) => burstUsPerCall(overheadCalls(10_000, 42 + k)))));
  const stream = Math.min(...(await sequence(3, (k) => streamUsPerCall(overheadCalls(10_000, 42 + k)))));
  const cost = await measureVersionCost();
  const writes = await measureWriteCost();

  if (json) {
    const round = (x: number) => Math.round(x * 10) / 10;
    const workloadsOut = Object.fromEntries(
      Object.entries(results).map(([k, r]) => [k, { serial: round(r.serial), global_rw: round(r.global_rw), per_path: round(r.per_path), ideal: round(r.ideal) }]),
    );
    console.log(
      JSON.stringify({
        workloads: workloadsOut,
        overhead_us_per_call: round(burst),
        version_check_us_per_write: { stat_fast_path: round(cost.fastUs), rehash: round(cost.rehashUs) },
        exclusive_scan_us_per_known_file: round(cost.scanUsPerFile),
        write_tools_us: writes,
      }),
    );
    return;
  }

  const titles = Object.fromEntries(workloads().map((w) => [w.key, w.title]));
  const rows: string[][] = [["workload", "serial", "global-rw", "per-path", "ideal", "per-path/ideal", "global-rw/per-path"]];
  for (const [key, r] of Object.entries(results)) {
    rows.push([
      titles[key],
      ms(r.serial),
      ms(r.global_rw),
      ms(r.per_path),
      ms(r.ideal),
      `${(r.per_path / r.ideal).toFixed(2)}x`,
      `${(r.global_rw / r.per_path).toFixed(2)}x`,
    ]);
  }
  console.log(`Simulated latency ${LATENCY} ms per call, max_concurrency ${MAX_CONCURRENCY}; wall ms, median of 3 runs.\n`);
  console.log(table(rows));
  console.log("");
  console.log(`(d) 10,000 zero-latency calls, mixed access, max_concurrency 8:`);
  console.log(`    all submitted at once    ${burst.toFixed(1)} us/call`);
  console.log(`    8 agents, one at a time  ${stream.toFixed(1)} us/call`);
  console.log("");
  console.log(`(e) read versions: check + record added to each write_file of a ${cost.fileBytes / 1024} KB file (median of 1,500 writes):`);
  console.log(`    stat vouches (seen > 50 ms after its last change)   ${cost.fastUs.toFixed(1)} us/write`);
  console.log(`    re-hash (changed < 50 ms before it was seen)        ${cost.rehashUs.toFixed(1)} us/write`);
  console.log(`    scans before + after a write-bash command          ${cost.scanUsPerFile.toFixed(1)} us per file the session knows`);
  console.log("");
  const spreadOf = (s: { min: number; median: number; max: number }) => `${s.min.toFixed(0)} / ${s.median.toFixed(0)} / ${s.max.toFixed(0)}`;
  console.log(`(f) one call's execute on a 4 KB file it has read, us min / median / max (n=${writes.disk.write.n}):`);
  console.log(`    write_file on disk   ${spreadOf(writes.disk.write)}      in memory (tmpfs)  ${spreadOf(writes.memory.write)}`);
  console.log(`    edit_file on disk    ${spreadOf(writes.disk.edit)}      in memory (tmpfs)  ${spreadOf(writes.memory.edit)}`);
  console.log(`    fsync on disk: a fresh 4 KB file ${spreadOf(writes.fsync.file)}, its folder ${spreadOf(writes.fsync.dir)}`);
  console.log("");
  const checks: Array<[string, boolean]> = [
    ["per-path within 1.15x of ideal on (a)-(c)", ["a", "b", "c"].every((k) => results[k].per_path <= 1.15 * results[k].ideal)],
    ["per-path at least 2x faster than global-rw on (b) and (c)", ["b", "c"].every((k) => results[k].global_rw >= 2 * results[k].per_path)],
    ["scheduler overhead at most 50 us/call on (d)", burst <= 50],
  ];
  for (const [what, ok] of checks) console.log(`${ok ? "met   " : "MISSED"}  ${what}`);
}

async function median(fn: () => Promise<unknown>): Promise<number> {
  const times = await sequence(3, () => timed(fn));
  return times.sort((x, y) => x - y)[1];
}

async function sequence<T>(n: number, fn: (k: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let k = 0; k < n; k++) out.push(await fn(k));
  return out;
}

function ms(x: number): string {
  return x.toFixed(0);
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows
    .map((r, i) => {
      const line = r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join("  ");
      return i === 0 ? `${line}\n${widths.map((w) => "-".repeat(w)).join("  ")}` : line;
    })
    .join("\n");
}
