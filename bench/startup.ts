/**
 * `npm run bench -- startup`: how long a user waits. `orca --version` wall time, and the time from
 * launching `orca --demo` in a real terminal (tmux) to the first frame of the dashboard — the first
 * capture-pane that shows the header. Median of 5 each, on the built dist (npm run bench builds).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const RUNS = 5;
const ROOT = fileURLToPath(new URL("..", import.meta.url));
// ORCA_BENCH_BIN: another build's bin, to compare.
const BIN = process.env.ORCA_BENCH_BIN || fileURLToPath(new URL("../bin/orca.js", import.meta.url));
const HEADER = "SCRIPTED DEMO";

export interface StartupResult {
  version_ms: number;
  first_frame_ms: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)]);
}

function versionOnce(): number {
  const started = performance.now();
  const out = spawnSync(process.execPath, [BIN, "--version"], { encoding: "utf8", env: { ...process.env, CI: undefined } });
  const took = performance.now() - started;
  if (out.status !== 0 || !out.stdout.startsWith("orca ")) throw new Error(`orca --version failed: ${out.stderr || out.stdout}`);
  return took;
}

function firstFrameOnce(run: number): number {
  const socket = `orca-bench-startup-${process.pid}-${run}`;
  const tmux = (...args: string[]): string => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  // The window exists before the clock starts, so only orca's own start is timed.
  tmux("-f", "/dev/null", "new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", "-c", ROOT, "sleep 60");
  try {
    const started = performance.now();
    tmux("respawn-pane", "-k", "-t", "bench", `env -u CI ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} --demo`);
    const deadline = started + 30_000;
    while (performance.now() < deadline) {
      if (tmux("capture-pane", "-p", "-t", "bench").includes(HEADER)) return performance.now() - started;
      execFileSync("sleep", ["0.01"]);
    }
    throw new Error("orca --demo drew no frame within 30 s");
  } finally {
    try {
      tmux("kill-server");
    } catch {
      // already gone
    }
  }
}

export function measure(): StartupResult {
  const version: number[] = [];
  const frames: number[] = [];
  for (let i = 0; i < RUNS; i++) version.push(versionOnce());
  for (let i = 0; i < RUNS; i++) frames.push(firstFrameOnce(i));
  return { version_ms: median(version), first_frame_ms: median(frames) };
}

export async function run({ json }: { json: boolean }): Promise<void> {
  const result = measure();
  if (json) {
    console.log(JSON.stringify(result));
    return;
  }
  console.log(`median of ${RUNS}, Node ${process.version}\n`);
  console.log("| metric | ms | target |");
  console.log("|---|---|---|");
  console.log(`| orca --version | ${result.version_ms} | ≤ 150 |`);
  console.log(`| orca --demo: launch → first frame (tmux 120×40) | ${result.first_frame_ms} | ≤ 600 |`);
}
