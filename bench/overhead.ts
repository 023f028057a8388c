/**
 * `npm run bench -- overhead`: orca's own time around the model, on the built bin (bin/orca.js and
 * dist/bundle) against the scripted server with zero latency. Every timestamp is taken in this
 * process: the spawn, the child's exit, and the scripted server's own view of each request (when
 * its headers arrived, when the last byte of its response was handed to the socket), so the
 * numbers are orca's time, not the model's.
 * - spawn_to_first_request_ms: spawn → the first request reaches the server (`orca -p hi`).
 * - step_overhead_ms: the end of a model response that asked for one read_file → the start of the
 *   next request (the tool, the log, the next request's assembly): every step of every run.
 * - step_overhead_long_history_ms: the same for steps 100–150 of one 150-step run, when each request
 *   carries ~200–300 KB of history (what a long session sends; a fifth of the runs).
 * - last_response_to_exit_ms: the end of the last response → the process has exited.
 * - hi_wall_ms: the whole `orca -p hi`, spawn → exit.
 * 20 runs each (ORCA_BENCH_RUNS); the table and the JSON hold min / median / max, the floor's
 * beside orca's, and orca ÷ floor and orca − floor pair by pair against the targets of #32.
 * Beside orca, the same job run by bench/sdk-floor.ts: the floor any Node program that drives the
 * model through the openai SDK stands on, so a target under it cannot be met by orca alone.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from "../src/model/scripted.js";
import { tempWorkspace, TEST_KEY, type TempWorkspace } from "../tests/fixtures/harness.js";
import { bundleAsBin } from "./bundle-as-bin.js";
import { median, mmm, spread, vsFloor, type Spread, type VsFloor } from "./stats.js";

const RUNS = Number(process.env.ORCA_BENCH_RUNS ?? 20);
const STEPS = 5;
const LONG_STEPS = 150;
const LONG_FROM = 100;
const BIN = fileURLToPath(new URL("../bin/orca.js", import.meta.url));
// ORCA_BENCH_BASELINE: another build's bin (e.g. main's, built in a scratch copy), measured in
// turns with this one so that both see the same load.
const BASELINE = process.env.ORCA_BENCH_BASELINE || undefined;

export interface OverheadResult {
  spawn_to_first_request_ms: number;
  step_overhead_ms: number;
  step_overhead_long_history_ms: number;
  last_response_to_exit_ms: number;
  hi_wall_ms: number;
}

interface Timed {
  spawnedAt: number;
  exitedAt: number;
  server: ScriptedServer;
}

/** Runs the bin once; returns when the child has exited, with this process's clock readings. */
async function timedRun(bin: string, replies: ScriptedReply[], ws: TempWorkspace, prompt: string, extraArgs: string[] = []): Promise<Timed> {
  const server = await startScriptedServer(replies);
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: ws.home, ORCA_DATA_DIR: ws.dataDir, OPENAI_API_KEY: TEST_KEY };
  try {
    let stderr = "";
    const spawnedAt = performance.now();
    const child = spawn(process.execPath, [bin, "-p", prompt, "--base-url", server.url, "--yes", ...extraArgs], { cwd: ws.dir, env, stdio: ["ignore", "ignore", "pipe"] });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const { exitedAt, code } = await new Promise<{ exitedAt: number; code: number | null }>((resolve, reject) => {
      child.on("error", reject);
      child.on("exit", (code) => resolve({ exitedAt: performance.now(), code }));
    });
    if (code !== 0) throw new Error(`orca exited ${code}: ${stderr.trim()}`);
    if (server.requests.length !== replies.length) throw new Error(`expected ${replies.length} requests, the server saw ${server.requests.length}`);
    return { spawnedAt, exitedAt, server };
  } finally {
    await server.close();
  }
}

/** Per metric, one array of samples per run (a run of `orca -p hi` gives one, a read loop one per step). */
type Samples = Record<keyof OverheadResult, number[][]>;

/** Measures each bin, taking turns run by run. */
export async function measure(bins: string[] = [BIN]): Promise<Samples[]> {
  const ws = tempWorkspace(Object.fromEntries(Array.from({ length: LONG_STEPS }, (_, i) => [`src/file${i}.ts`, "export const x = 1; // some code here\n".repeat(50)])));
  const reads = (n: number): ScriptedReply[] => [
    ...Array.from({ length: n }, (_, i): ScriptedReply => ({ toolCalls: [{ name: "read_file", args: { path: `src/file${i}.ts` } }] })),
    { text: "read them all" },
  ];
  try {
    const samples = bins.map(() => ({ first: [] as number[][], exit: [] as number[][], wall: [] as number[][], steps: [] as number[][], longSteps: [] as number[][] }));
    for (let run = 0; run < RUNS; run++) {
      for (const [b, bin] of bins.entries()) {
        const hi = await timedRun(bin, [{ text: "hello" }], ws, "hi");
        const only = hi.server.requests[0]!;
        samples[b]!.first.push([only.arrivedHr - hi.spawnedAt]);
        samples[b]!.exit.push([hi.exitedAt - only.finishedHr!]);
        samples[b]!.wall.push([hi.exitedAt - hi.spawnedAt]);
      }
    }
    for (let run = 0; run < RUNS; run++) {
      for (const [b, bin] of bins.entries()) {
        const { server } = await timedRun(bin, reads(STEPS), ws, "read the files");
        samples[b]!.steps.push(Array.from({ length: STEPS }, (_, i) => server.requests[i + 1]!.arrivedHr - server.requests[i]!.finishedHr!));
      }
    }
    for (let run = 0; run < Math.max(3, Math.round(RUNS / 5)); run++) {
      for (const [b, bin] of bins.entries()) {
        const { server } = await timedRun(bin, reads(LONG_STEPS), ws, "read the files", ["--max-steps", String(LONG_STEPS + 1)]);
        samples[b]!.longSteps.push(Array.from({ length: LONG_STEPS - LONG_FROM }, (_, i) => server.requests[LONG_FROM + i + 1]!.arrivedHr - server.requests[LONG_FROM + i]!.finishedHr!));
      }
    }
    return samples.map((s) => ({
      spawn_to_first_request_ms: s.first,
      step_overhead_ms: s.steps,
      step_overhead_long_history_ms: s.longSteps,
      last_response_to_exit_ms: s.exit,
      hi_wall_ms: s.wall,
    }));
  } finally {
    ws.cleanup();
  }
}

/**
 * The targets against the floor measured in the same run (#32): a ratio where the floor's cost
 * grows with the machine (a start), an allowance in ms where orca's own work is added to it.
 */
const TARGETS: Record<keyof OverheadResult, { ratio?: number; excessMs?: number }> = {
  spawn_to_first_request_ms: { ratio: 1.3 },
  step_overhead_ms: { excessMs: 1.5 },
  step_overhead_long_history_ms: {},
  last_response_to_exit_ms: { excessMs: 5 },
  hi_wall_ms: { ratio: 1.3 },
};

function targetText(key: keyof OverheadResult): string {
  const t = TARGETS[key];
  if (t.ratio !== undefined) return `≤ ${t.ratio}× floor`;
  if (t.excessMs !== undefined) return `≤ floor + ${t.excessMs} ms`;
  return "";
}

/** Whether the median pair meets the target; null where there is none. */
function met(key: keyof OverheadResult, v: VsFloor): boolean | null {
  const t = TARGETS[key];
  if (t.ratio !== undefined) return v.ratio.median <= t.ratio;
  if (t.excessMs !== undefined) return v.excess.median <= t.excessMs;
  return null;
}

/**
 * Each side's spread over all its samples; orca ÷ floor and orca − floor from the medians of runs
 * made in the same turn (a step's own samples are too noisy to pair one by one).
 */
function pairedByRun(orca: number[][], floor: number[][]): VsFloor {
  const byRun = vsFloor(orca.map((r) => median(r)), floor.map((r) => median(r)));
  return { ...byRun, orca: spread(orca.flat()), floor: spread(floor.flat()) };
}

export interface OverheadBench {
  /** orca's medians, as this bench has always printed them. */
  orca: OverheadResult;
  /** Each metric's spread for orca and the SDK floor, and the paired orca ÷ floor and orca − floor. */
  vs_floor: Record<keyof OverheadResult, VsFloor & { target: string; met: boolean | null }>;
  baseline?: Record<keyof OverheadResult, Spread>;
  /** The baseline's own ÷ and − floor, paired as orca's are: before and after against one floor. */
  baseline_vs_floor?: Record<keyof OverheadResult, VsFloor>;
  node: string;
}

export async function run({ json }: { json: boolean }): Promise<void> {
  const floorDir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-bench-floor-"));
  try {
    const columns: Array<{ name: string; bin: string }> = [{ name: "orca", bin: BIN }];
    if (BASELINE) columns.push({ name: "baseline", bin: BASELINE });
    columns.push({ name: "SDK floor", bin: await bundleAsBin("floor", fileURLToPath(new URL("./sdk-floor.ts", import.meta.url)), floorDir) });
    const samples = await measure(columns.map((c) => c.bin));
    const orca = samples[0]!;
    const floor = samples.at(-1)!;
    const keys = Object.keys(orca) as Array<keyof OverheadResult>;
    const result: OverheadBench = {
      orca: Object.fromEntries(keys.map((k) => [k, spread(orca[k].flat()).median])) as unknown as OverheadResult,
      vs_floor: Object.fromEntries(
        keys.map((k) => {
          const v = pairedByRun(orca[k], floor[k]);
          return [k, { ...v, target: targetText(k), met: met(k, v) }];
        }),
      ) as OverheadBench["vs_floor"],
      node: process.version,
    };
    if (BASELINE) {
      result.baseline = Object.fromEntries(keys.map((k) => [k, spread(samples[1]![k].flat())])) as Record<keyof OverheadResult, Spread>;
      result.baseline_vs_floor = Object.fromEntries(keys.map((k) => [k, pairedByRun(samples[1]![k], floor[k])])) as Record<keyof OverheadResult, VsFloor>;
    }
    if (json) {
      console.log(JSON.stringify(result));
      return;
    }
    console.log(`${RUNS} runs of \`orca -p hi\`, ${RUNS} of ${STEPS} read_file steps and ${Math.max(3, Math.round(RUNS / 5))} of ${LONG_STEPS}, scripted server with zero latency, Node ${process.version}, each column in turn; min / median / max, ms.`);
    console.log("SDK floor: bench/sdk-floor.ts, a bare openai-SDK client doing the same job (no config, log, permissions or sandbox) — what any Node program using the SDK pays.");
    console.log("orca ÷ floor and orca − floor are taken pair by pair: the median of orca's run beside the floor's run of the same turn.\n");
    console.log(`| metric | orca |${BASELINE ? " baseline |" : ""} SDK floor | orca ÷ floor | orca − floor | samples | target | met (median) |`);
    console.log(`|---|---|${BASELINE ? "---|" : ""}---|---|---|---|---|---|`);
    for (const key of keys) {
      const v = result.vs_floor[key];
      const base = result.baseline ? ` ${mmm(result.baseline[key])} |` : "";
      console.log(`| ${key} | ${mmm(v.orca)} |${base} ${mmm(v.floor)} | ${mmm(v.ratio)} | ${mmm(v.excess)} | ${v.orca.n} (${v.ratio.n} pairs) | ${v.target} | ${v.met === null ? "" : v.met ? "yes" : "no"} |`);
    }
    if (result.baseline_vs_floor) {
      console.log(`\nbaseline: ${BASELINE}\n\n| metric | baseline ÷ floor | baseline − floor |\n|---|---|---|`);
      for (const key of keys) console.log(`| ${key} | ${mmm(result.baseline_vs_floor[key].ratio)} | ${mmm(result.baseline_vs_floor[key].excess)} |`);
    }
  } finally {
    fs.rmSync(floorDir, { recursive: true, force: true });
  }
}
