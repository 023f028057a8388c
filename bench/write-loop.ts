/**
 * `npm run bench -- write-loop`: what the check after a file tool's write (Sandbox.afterWrite: the
 * repository the written path belongs to, by its folders) adds to an agent's write loop. A step is
 * a model response asking for one write_file (a new 2 KB file three folders down, in a git
 * repository) → the next request, both timed by the scripted server in this process; each run is
 * one `orca -p` of STEPS such steps, the first (cold code) left out.
 *
 * In turns, run by run: this build, and with ORCA_BENCH_BASELINE=<another build>/bin/orca.js the
 * build before the check; the difference is taken pair by pair from each run's median step. Then
 * the check alone, in process: afterWrite on a written path, µs.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedServer, type ScriptedReply } from "../src/model/scripted.js";
import { Sandbox } from "../src/tools/sandbox/index.js";
import { Workspace } from "../src/tools/workspace.js";
import { tempWorkspace, TEST_KEY, type TempWorkspace } from "../tests/fixtures/harness.js";
import { median, mmm, spread, vsFloor } from "./stats.js";

const RUNS = Number(process.env.ORCA_BENCH_RUNS ?? 8);
const STEPS = Number(process.env.ORCA_BENCH_STEPS ?? 30);
const BIN = fileURLToPath(new URL("../bin/orca.js", import.meta.url));
const BASELINE = process.env.ORCA_BENCH_BASELINE || undefined;
const CONTENT = "export const x = 1; // some code here\n".repeat(50);
const fileOf = (run: number, i: number) => `src/pkg${i % 4}/mod/run${run}-file${i}.ts`;

/** One run's steps (ms), from the end of each write_file response to the request with its result. */
async function runOf(bin: string, ws: TempWorkspace, run: number): Promise<number[]> {
  const replies: ScriptedReply[] = [
    ...Array.from({ length: STEPS }, (_, i): ScriptedReply => ({ toolCalls: [{ name: "write_file", args: { path: fileOf(run, i), content: CONTENT } }] })),
    { text: "wrote them all" },
  ];
  const server = await startScriptedServer(replies);
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: ws.home, ORCA_DATA_DIR: ws.dataDir, OPENAI_API_KEY: TEST_KEY };
  try {
    const child = spawn(process.execPath, [bin, "-p", "write the files", "--base-url", server.url, "--yes", "--max-steps", String(STEPS + 1)], { cwd: ws.dir, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("exit", resolve);
    });
    const seen = server.requests;
    if (code !== 0 || seen.length !== replies.length) throw new Error(`${bin} exited ${code} after ${seen.length} requests: ${stderr.trim()}`);
    return Array.from({ length: STEPS }, (_, i) => seen[i + 1]!.arrivedHr - seen[i]!.finishedHr!).slice(1);
  } finally {
    await server.close();
  }
}

/** The check alone after one write_file three folders down (µs), in the same workspace. */
async function checkAlone(ws: TempWorkspace): Promise<number[]> {
  const sandbox = await Sandbox.open({ enabled: true, workspace: new Workspace(ws.dir) });
  try {
    await sandbox.beforeWrite(ws.dir);
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const file = path.join(ws.dir, "src", "alone", "deep", `f${i}.ts`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, CONTENT);
      const started = performance.now();
      await sandbox.afterWrite(ws.dir, [file]);
      times.push((performance.now() - started) * 1000);
    }
    return times;
  } finally {
    await sandbox.close();
  }
}

export async function run({ json }: { json: boolean }): Promise<void> {
  const ws = tempWorkspace({ ".orca/config.yaml": "permissions:\n  mode: accept-edits\n", "README.md": "x\n" });
  execFileSync("git", ["init", "-q"], { cwd: ws.dir });
  try {
    const columns = [{ name: "orca", bin: BIN, medians: [] as number[], all: [] as number[] }];
    if (BASELINE) columns.push({ name: "baseline", bin: BASELINE, medians: [], all: [] });
    let run = 0;
    // One unmeasured run each warms the disk cache and the sandbox probe's cache.
    for (const c of columns) await runOf(c.bin, ws, run++);
    for (let r = 0; r < RUNS; r++) {
      for (const c of columns) {
        const steps = await runOf(c.bin, ws, run++);
        c.medians.push(median(steps));
        c.all.push(...steps);
      }
    }
    const alone = spread(await checkAlone(ws), 1);
    const [orca, baseline] = columns;
    const result = {
      steps: STEPS,
      runs: RUNS,
      orca_step_ms: spread(orca!.all, 2),
      ...(baseline ? { baseline_step_ms: spread(baseline.all, 2), orca_vs_baseline: vsFloor(orca!.medians, baseline.medians, 2) } : {}),
      check_alone_us: alone,
    };
    if (json) return void console.log(JSON.stringify(result));
    console.log(`write_file steps (ms, min / median / max), ${RUNS} runs of ${STEPS} steps in turns, the first step of each left out`);
    console.log(`orca      ${mmm(result.orca_step_ms)}`);
    if (baseline && result.orca_vs_baseline) {
      console.log(`baseline  ${mmm(result.baseline_step_ms!)}`);
      console.log(`per run, orca − baseline (median steps): ${mmm(result.orca_vs_baseline.excess)}; orca ÷ baseline: ${mmm(result.orca_vs_baseline.ratio)}`);
    }
    console.log(`the check alone after one write (µs): ${mmm(alone)}`);
  } finally {
    ws.cleanup();
  }
}
