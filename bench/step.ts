/**
 * `npm run bench -- step`: what one step of an agent costs orca beside its floor (#32: a step ≤ the
 * floor + 1.5 ms). A step is a model response that asks for one read_file → the tool's result →
 * the next request; its time is the end of one response → the arrival of the next request, both
 * taken by the scripted server (zero latency) in this process. Each run is one `orca -p` of STEPS
 * read_file steps (40), then an answer, so the steps after the first are the steady state a long
 * turn lives in; the first step (first tool call of the process: code still cold) is reported apart.
 *
 * Beside orca, in turns run by run, bench/sdk-floor.ts doing the same job (a bare openai-SDK client,
 * bundled as orca is), and, with ORCA_BENCH_BASELINE=<another build>/bin/orca.js, a second build of
 * orca. RUNS runs each (ORCA_BENCH_RUNS, 10). orca − floor is taken pair by pair: the median step
 * of orca's run beside the median step of the floor's run of the same turn.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedServer, type ScriptedReply } from "../src/model/scripted.js";
import { tempWorkspace, TEST_KEY, type TempWorkspace } from "../tests/fixtures/harness.js";
import { bundleAsBin } from "./bundle-as-bin.js";
import { median, mmm, spread, vsFloor, type Spread, type VsFloor } from "./stats.js";

const RUNS = Number(process.env.ORCA_BENCH_RUNS ?? 10);
const STEPS = Number(process.env.ORCA_BENCH_STEPS ?? 40);
const EXCESS_TARGET_MS = 1.5;
const BIN = fileURLToPath(new URL("../bin/orca.js", import.meta.url));
const BASELINE = process.env.ORCA_BENCH_BASELINE || undefined;

/** One run's steps, in ms: [first, ...steady]. */
async function stepsOf(bin: string, ws: TempWorkspace): Promise<number[]> {
  const replies: ScriptedReply[] = [
    ...Array.from({ length: STEPS }, (_, i): ScriptedReply => ({ toolCalls: [{ name: "read_file", args: { path: `src/file${i}.ts` } }] })),
    { text: "read them all" },
  ];
  const server = await startScriptedServer(replies);
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: ws.home, ORCA_DATA_DIR: ws.dataDir, OPENAI_API_KEY: TEST_KEY };
  try {
    const args = [bin, "-p", "read the files", "--base-url", server.url, "--yes", "--max-steps", String(STEPS + 1)];
    const child = spawn(process.execPath, args, { cwd: ws.dir, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("exit", resolve);
    });
    if (code !== 0) throw new Error(`${bin} exited ${code}: ${stderr.trim()}`);
    const seen = server.requests;
    if (seen.length !== replies.length) throw new Error(`expected ${replies.length} requests, the server saw ${seen.length}`);
    return Array.from({ length: STEPS }, (_, i) => seen[i + 1]!.arrivedHr - seen[i]!.finishedHr!);
  } finally {
    await server.close();
  }
}

interface Column {
  name: string;
  bin: string;
  /** Per run: its steps. */
  runs: number[][];
}

export interface StepBench {
  steps: number;
  runs: number;
  node: string;
  /** Steps 2…STEPS of every run: each side's spread, and orca − floor (and ÷) from each run's median step. */
  steady: VsFloor & { target: string; met: boolean };
  /** The first step of each run (cold code), paired run by run. */
  first: VsFloor;
  baseline?: { steady: Spread; first: Spread; orca_minus_baseline: Spread };
}

export async function run({ json }: { json: boolean }): Promise<void> {
  const floorDir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-bench-step-"));
  const ws = tempWorkspace(Object.fromEntries(Array.from({ length: STEPS }, (_, i) => [`src/file${i}.ts`, "export const x = 1; // some code here\n".repeat(50)])));
  try {
    const columns: Column[] = [{ name: "orca", bin: BIN, runs: [] }];
    if (BASELINE) columns.push({ name: "baseline", bin: BASELINE, runs: [] });
    columns.push({ name: "SDK floor", bin: await bundleAsBin("floor", fileURLToPath(new URL("./sdk-floor.ts", import.meta.url)), floorDir), runs: [] });
    // One unmeasured run each warms the disk cache and the sandbox probe's cache.
    for (const c of columns) await stepsOf(c.bin, ws);
    for (let r = 0; r < RUNS; r++) for (const c of columns) c.runs.push(await stepsOf(c.bin, ws));
    const [orca, floor] = [columns[0]!, columns.at(-1)!];
    const steadyMedians = (c: Column): number[] => c.runs.map((r) => median(r.slice(1)));
    const paired = (a: Column, b: Column, pick: (c: Column) => number[], all: (c: Column) => number[]): VsFloor => ({
      ...vsFloor(pick(a), pick(b), 2),
      orca: spread(all(a), 2),
      floor: spread(all(b), 2),
    });
    const steadyAll = (c: Column): number[] => c.runs.flatMap((r) => r.slice(1));
    const firsts = (c: Column): number[] => c.runs.map((r) => r[0]!);
    const steady = paired(orca, floor, steadyMedians, steadyAll);
    const result: StepBench = {
      steps: STEPS,
      runs: RUNS,
      node: process.version,
      steady: { ...steady, target: `≤ floor + ${EXCESS_TARGET_MS} ms`, met: steady.excess.median <= EXCESS_TARGET_MS },
      first: paired(orca, floor, firsts, firsts),
    };
    if (BASELINE) {
      const base = columns[1]!;
      const om = steadyMedians(orca);
      const bm = steadyMedians(base);
      result.baseline = { steady: spread(steadyAll(base), 2), first: spread(firsts(base), 2), orca_minus_baseline: spread(om.map((o, i) => o - bm[i]!), 2) };
    }
    if (json) {
      console.log(JSON.stringify(result));
      return;
    }
    console.log(`${RUNS} runs of ${STEPS} read_file steps each, scripted server with zero latency, Node ${process.version}; ${columns.map((c) => c.name).join(", ")} in turns; min / median / max, ms.`);
    console.log("A step: a response that asks for read_file → the next request. orca − floor: each run's median step beside the floor's run of the same turn.\n");
    console.log(`| | orca |${BASELINE ? " baseline |" : ""} SDK floor | orca − floor | orca ÷ floor | target |`);
    console.log(`|---|---|${BASELINE ? "---|" : ""}---|---|---|---|`);
    const b = result.baseline;
    console.log(`| steps 2–${STEPS} | ${mmm(steady.orca)} |${b ? ` ${mmm(b.steady)} |` : ""} ${mmm(steady.floor)} | ${mmm(steady.excess)} | ${mmm(steady.ratio)} | ${result.steady.target}: ${result.steady.met ? "met" : "not met"} |`);
    console.log(`| step 1 | ${mmm(result.first.orca)} |${b ? ` ${mmm(b.first)} |` : ""} ${mmm(result.first.floor)} | ${mmm(result.first.excess)} | ${mmm(result.first.ratio)} | |`);
    if (b) console.log(`\norca − baseline (each run's median step, pair by pair): ${mmm(b.orca_minus_baseline)} ms; baseline: ${BASELINE}`);
  } finally {
    ws.cleanup();
    fs.rmSync(floorDir, { recursive: true, force: true });
  }
}
