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
 * of orca's run beside the median step of the floor's run of the same turn. On a loaded machine a
 * step's wall time is mostly the wait for a core, so each turn also gives the CPU a step costs:
 * (CPU of the STEPS-step run − CPU of a one-step run) ÷ (STEPS − 1), from /usr/bin/time, and the
 * CPU of each step itself, taken inside each process from the end of a response to the next
 * request's body sent (bench/step-cpu.mjs, loaded into orca and the floor alike): the figure a busy
 * hour stretches least.
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
const STEP_CPU = fileURLToPath(new URL("./step-cpu.mjs", import.meta.url));

/** One run of `steps` read_file steps: each step's time in ms ([first, ...steady]), the process's CPU ms, and each step's own CPU ms (step-cpu.mjs). */
async function runOf(bin: string, ws: TempWorkspace, steps: number): Promise<{ steps: number[]; cpuMs: number; stepCpu: number[] }> {
  const replies: ScriptedReply[] = [
    ...Array.from({ length: steps }, (_, i): ScriptedReply => ({ toolCalls: [{ name: "read_file", args: { path: `src/file${i}.ts` } }] })),
    { text: "read them all" },
  ];
  const server = await startScriptedServer(replies);
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: ws.home, ORCA_DATA_DIR: ws.dataDir, OPENAI_API_KEY: TEST_KEY };
  const usage = path.join(ws.home, "step-usage.txt");
  const stepCpu = path.join(ws.home, "step-cpu.jsonl");
  fs.rmSync(stepCpu, { force: true });
  env.ORCA_BENCH_STEP_CPU = stepCpu;
  try {
    const args = ["-f", "%U %S", "-o", usage, process.execPath, "--import", STEP_CPU, bin, "-p", "read the files", "--base-url", server.url, "--yes", "--max-steps", String(steps + 1)];
    const child = spawn("/usr/bin/time", args, { cwd: ws.dir, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("exit", resolve);
    });
    if (code !== 0) throw new Error(`${bin} exited ${code}: ${stderr.trim()}`);
    const seen = server.requests;
    if (seen.length !== replies.length) throw new Error(`expected ${replies.length} requests, the server saw ${seen.length}`);
    const [user, system] = fs.readFileSync(usage, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number);
    const ownCpu = (JSON.parse(fs.readFileSync(stepCpu, "utf8")) as number[]).map((us) => us / 1000);
    if (ownCpu.length !== steps) throw new Error(`${bin}: step-cpu.mjs saw ${ownCpu.length} steps, expected ${steps}`);
    return { steps: Array.from({ length: steps }, (_, i) => seen[i + 1]!.arrivedHr - seen[i]!.finishedHr!), cpuMs: (user! + system!) * 1000, stepCpu: ownCpu };
  } finally {
    await server.close();
  }
}

interface Column {
  name: string;
  bin: string;
  /** Per run: its steps. */
  runs: number[][];
  /** Per turn: (CPU of a STEPS-step run − CPU of a one-step run) ÷ (STEPS − 1), ms. */
  cpuPerStep: number[];
  /** Per run: the CPU of each of its steps 2…STEPS, ms (step-cpu.mjs). */
  stepCpu: number[][];
}

export interface StepBench {
  steps: number;
  runs: number;
  node: string;
  /** Steps 2…STEPS of every run: each side's spread, and orca − floor (and ÷) from each run's median step. */
  steady: VsFloor & { target: string; met: boolean };
  /** The first step of each run (cold code), paired run by run. */
  first: VsFloor;
  /**
   * The CPU a step costs the process, whatever its wait for a core: per turn, the CPU of a run of
   * STEPS steps less that of a run of one, over STEPS − 1 (the kernel's accounting, 10 ms grain).
   */
  cpu_per_step: VsFloor;
  /**
   * The CPU of the steady steps themselves, measured in each process from the end of a response
   * to the next request's body sent (bench/step-cpu.mjs, µs grain): each side's spread over every step, and
   * orca − floor, ÷ floor from each run's median step paired run by run.
   */
  cpu_in_step: VsFloor;
  baseline?: { steady: Spread; first: Spread; cpu_per_step: Spread; cpu_in_step: Spread; orca_minus_baseline: Spread; cpu_in_step_minus_baseline: Spread };
}

export async function run({ json }: { json: boolean }): Promise<void> {
  const floorDir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-bench-step-"));
  const ws = tempWorkspace(Object.fromEntries(Array.from({ length: STEPS }, (_, i) => [`src/file${i}.ts`, "export const x = 1; // some code here\n".repeat(50)])));
  try {
    const columns: Column[] = [{ name: "orca", bin: BIN, runs: [], cpuPerStep: [], stepCpu: [] }];
    if (BASELINE) columns.push({ name: "baseline", bin: BASELINE, runs: [], cpuPerStep: [], stepCpu: [] });
    columns.push({ name: "SDK floor", bin: await bundleAsBin("floor", fileURLToPath(new URL("./sdk-floor.ts", import.meta.url)), floorDir), runs: [], cpuPerStep: [], stepCpu: [] });
    // One unmeasured run each warms the disk cache and the sandbox probe's cache.
    for (const c of columns) await runOf(c.bin, ws, 1);
    for (let r = 0; r < RUNS; r++) {
      for (const c of columns) {
        const long = await runOf(c.bin, ws, STEPS);
        const short = await runOf(c.bin, ws, 1);
        c.runs.push(long.steps);
        c.stepCpu.push(long.stepCpu.slice(1));
        c.cpuPerStep.push((long.cpuMs - short.cpuMs) / (STEPS - 1));
      }
    }
    const [orca, floor] = [columns[0]!, columns.at(-1)!];
    const steadyMedians = (c: Column): number[] => c.runs.map((r) => median(r.slice(1)));
    const paired = (a: Column, b: Column, pick: (c: Column) => number[], all: (c: Column) => number[]): VsFloor => ({
      ...vsFloor(pick(a), pick(b), 2),
      orca: spread(all(a), 2),
      floor: spread(all(b), 2),
    });
    const steadyAll = (c: Column): number[] => c.runs.flatMap((r) => r.slice(1));
    const firsts = (c: Column): number[] => c.runs.map((r) => r[0]!);
    const cpuMedians = (c: Column): number[] => c.stepCpu.map((r) => median(r));
    const steady = paired(orca, floor, steadyMedians, steadyAll);
    const result: StepBench = {
      steps: STEPS,
      runs: RUNS,
      node: process.version,
      steady: { ...steady, target: `≤ floor + ${EXCESS_TARGET_MS} ms`, met: steady.excess.median <= EXCESS_TARGET_MS },
      first: paired(orca, floor, firsts, firsts),
      cpu_per_step: vsFloor(orca.cpuPerStep, floor.cpuPerStep, 2),
      cpu_in_step: paired(orca, floor, cpuMedians, (c) => c.stepCpu.flat()),
    };
    if (BASELINE) {
      const base = columns[1]!;
      const om = steadyMedians(orca);
      const bm = steadyMedians(base);
      const oc = cpuMedians(orca);
      const bc = cpuMedians(base);
      result.baseline = {
        steady: spread(steadyAll(base), 2),
        first: spread(firsts(base), 2),
        cpu_per_step: spread(base.cpuPerStep, 2),
        cpu_in_step: spread(base.stepCpu.flat(), 2),
        orca_minus_baseline: spread(om.map((o, i) => o - bm[i]!), 2),
        cpu_in_step_minus_baseline: spread(oc.map((o, i) => o - bc[i]!), 2),
      };
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
    const c = result.cpu_per_step;
    console.log(`| CPU per step | ${mmm(c.orca)} |${b ? ` ${mmm(b.cpu_per_step)} |` : ""} ${mmm(c.floor)} | ${mmm(c.excess)} | ${mmm(c.ratio)} | |`);
    const own = result.cpu_in_step;
    console.log(`| CPU in a step, steps 2–${STEPS} | ${mmm(own.orca)} |${b ? ` ${mmm(b.cpu_in_step)} |` : ""} ${mmm(own.floor)} | ${mmm(own.excess)} | ${mmm(own.ratio)} | |`);
    if (b) console.log(`\norca − baseline (each run's median step, pair by pair): ${mmm(b.orca_minus_baseline)} ms; CPU in a step: ${mmm(b.cpu_in_step_minus_baseline)} ms; baseline: ${BASELINE}`);
  } finally {
    ws.cleanup();
    fs.rmSync(floorDir, { recursive: true, force: true });
  }
}
