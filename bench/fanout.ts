/**
 * `npm run bench -- fanout`: orca with many sub-agents at once (#32). The built bin runs
 * `orca -p` against the scripted server, whose coordinator delegates N explorers in one turn
 * (N = 1, 16, 64); each explorer takes three responses (read_file, grep, its answer), every
 * response 200 ms after its request, and the coordinator answers once they are done. So the model's
 * part of a run is the same ~1 s whatever N: what grows with N is orca's. For each N: the wall
 * time (spawn → exit), orca's CPU (user + system, its child processes included) and its peak RSS,
 * both from the kernel's accounting of the finished process (/usr/bin/time). The runs take turns
 * (1, 16, 64, then again) ORCA_BENCH_ROUNDS times (3), so 64's wall ÷ 1's is taken pair by pair.
 *
 * The config lets all 64 run at once: `agents.max_parallel: 64` and the fan-out guard off
 * (`confirm_fanout: false`; a headless run would otherwise refuse sub-agents past it), permissions
 * in bypass. Then the dashboard with 32 sub-agent panes, each streaming 50 markdown deltas a
 * second (bench/render-driver.ts at 160×48): its frames per second and CPU.
 *
 * ORCA_BENCH_BASELINE=<another build>/bin/orca.js runs that build too, each of its runs right after
 * this build's run of the same N, with its own figures and 64 ÷ 1 ratio; ORCA_BENCH_DASHBOARD=0
 * leaves the dashboard out.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedServer, type RecordedRequest, type ScriptedReply } from "../src/model/scripted.js";
import { agentOf, tempWorkspace, TEST_KEY, type TempWorkspace } from "../tests/fixtures/harness.js";
import { bundleRenderDriver, measureRender } from "./render.js";
import { mmm, spread, type Spread } from "./stats.js";

const COUNTS = [1, 16, 64] as const;
const RESPONSE_MS = 200;
const ROUNDS = Number(process.env.ORCA_BENCH_ROUNDS ?? 3);
const DASHBOARD_PANES = 32;
const BIN = fileURLToPath(new URL("../bin/orca.js", import.meta.url));
const BASELINE = process.env.ORCA_BENCH_BASELINE || undefined;
const DASHBOARD = process.env.ORCA_BENCH_DASHBOARD !== "0";
const CONFIG = `agents:\n  max_parallel: 64\n  confirm_fanout: false\npermissions:\n  mode: bypass\n`;
/** #32's targets. */
const WALL_RATIO_TARGET = 1.3;
const RSS_TARGET_MB = 150;
const FPS_TARGET = 15;

interface FanoutRun {
  wall_ms: number;
  cpu_ms: number;
  peak_rss_mb: number;
}

/** The coordinator delegates `count` explorers at once; each reads, greps and answers. */
function script(count: number): (r: RecordedRequest) => ScriptedReply {
  const next = new Map<string, number>();
  const explorer = (n: number): ScriptedReply[] => [
    { delayMs: RESPONSE_MS, toolCalls: [{ name: "read_file", args: { path: `f${n}.txt` } }] },
    { delayMs: RESPONSE_MS, toolCalls: [{ name: "grep", args: { pattern: "line", path: `f${n}.txt` } }] },
    { delayMs: RESPONSE_MS, text: `explorer ${n}: two lines` },
  ];
  const coordinator: ScriptedReply[] = [
    { delayMs: RESPONSE_MS, toolCalls: Array.from({ length: count }, (_, i) => ({ name: "delegate", args: { agent: "explorer", task: `look at f${i + 1}.txt` } })) },
    { delayMs: RESPONSE_MS, text: "all done" },
  ];
  return (request) => {
    const id = agentOf(request);
    const i = next.get(id) ?? 0;
    next.set(id, i + 1);
    const n = Number(/^explorer-(\d+)$/.exec(id)?.[1]);
    const replies = id === "coordinator" ? coordinator : Number.isInteger(n) ? explorer(n) : [];
    return replies[i] ?? { kind: "error", status: 500, message: `no reply for ${id} #${i}` };
  };
}

/** One `orca -p` run under /usr/bin/time: its wall, CPU and peak RSS. */
async function runOnce(count: number, ws: TempWorkspace, configFile: string, bin = BIN): Promise<FanoutRun> {
  const server = await startScriptedServer(script(count));
  const usage = path.join(ws.home, `usage-${count}.txt`);
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: ws.home, ORCA_DATA_DIR: ws.dataDir, OPENAI_API_KEY: TEST_KEY };
  try {
    let stderr = "";
    const started = performance.now();
    const args = ["-f", "%U %S %M", "-o", usage, process.execPath, bin, "-p", "explore", "--base-url", server.url, "--yes", "--config", configFile];
    const child = spawn("/usr/bin/time", args, { cwd: ws.dir, env, stdio: ["ignore", "ignore", "pipe"] });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("exit", resolve);
    });
    const wall = performance.now() - started;
    if (code !== 0) throw new Error(`orca exited ${code}: ${stderr.trim().split("\n").slice(-3).join(" / ")}`);
    const expected = 2 + 3 * count;
    if (server.requests.length !== expected) throw new Error(`expected ${expected} requests, the server saw ${server.requests.length}`);
    const [user, system, maxKb] = fs.readFileSync(usage, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number);
    return { wall_ms: wall, cpu_ms: (user! + system!) * 1000, peak_rss_mb: maxKb! / 1024 };
  } finally {
    await server.close();
  }
}

export interface FanoutBench {
  rounds: number;
  agents: Record<string, Record<keyof FanoutRun, Spread>>;
  /** 64 agents' wall ÷ 1 agent's, pair by pair in each round. */
  wall_ratio_64_to_1: Spread;
  dashboard_32_panes: { frames_per_s: Spread; cpu_pct: Spread; bytes_per_frame: Spread };
  /** With ORCA_BENCH_BASELINE: the same for that build, run in turns with this one. */
  baseline?: { bin: string; agents: FanoutBench["agents"]; wall_ratio_64_to_1: Spread };
  targets: { wall_ratio: boolean; peak_rss_64: boolean; frames_per_s_32: boolean };
}

export async function run({ json }: { json: boolean }): Promise<void> {
  const ws = tempWorkspace(Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`f${i + 1}.txt`, "line one\nline two\n"])));
  const configFile = path.join(ws.home, "fanout-config.yaml");
  fs.writeFileSync(configFile, CONFIG);
  const runs: Record<number, FanoutRun[]> = Object.fromEntries(COUNTS.map((n) => [n, []]));
  const baseRuns: Record<number, FanoutRun[]> = Object.fromEntries(COUNTS.map((n) => [n, []]));
  const dashboard: Array<{ frames_per_s: number; cpu_pct: number; bytes_per_frame: number }> = [];
  try {
    // A first run warms the disk cache and the bwrap probe's files; it is not counted.
    await runOnce(1, ws, configFile);
    if (BASELINE) await runOnce(1, ws, configFile, BASELINE);
    for (let round = 0; round < ROUNDS; round++) {
      for (const n of COUNTS) {
        runs[n]!.push(await runOnce(n, ws, configFile));
        if (BASELINE) baseRuns[n]!.push(await runOnce(n, ws, configFile, BASELINE));
      }
    }
    const driver = DASHBOARD ? await bundleRenderDriver() : undefined;
    try {
      for (let round = 0; driver && round < ROUNDS; round++) dashboard.push(measureRender("diff", driver.file, DASHBOARD_PANES, true));
    } finally {
      if (driver) fs.rmSync(driver.dir, { recursive: true, force: true });
    }
  } finally {
    ws.cleanup();
  }
  const summary = (from: Record<number, FanoutRun[]>) => {
    const of = (n: number, k: keyof FanoutRun): Spread => spread(from[n]!.map((r) => r[k]), k === "peak_rss_mb" ? 1 : 0);
    const agents = Object.fromEntries(COUNTS.map((n) => [String(n), { wall_ms: of(n, "wall_ms"), cpu_ms: of(n, "cpu_ms"), peak_rss_mb: of(n, "peak_rss_mb") }]));
    return { agents, ratio: spread(from[64]!.map((r, i) => r.wall_ms / from[1]![i]!.wall_ms), 2) };
  };
  const { agents, ratio } = summary(runs);
  const d = (k: "frames_per_s" | "cpu_pct" | "bytes_per_frame"): Spread => spread(dashboard.map((r) => r[k]), 1);
  const result: FanoutBench = {
    rounds: ROUNDS,
    agents,
    wall_ratio_64_to_1: ratio,
    dashboard_32_panes: { frames_per_s: d("frames_per_s"), cpu_pct: d("cpu_pct"), bytes_per_frame: d("bytes_per_frame") },
    ...(BASELINE ? { baseline: { bin: BASELINE, agents: summary(baseRuns).agents, wall_ratio_64_to_1: summary(baseRuns).ratio } } : {}),
    targets: { wall_ratio: ratio.median <= WALL_RATIO_TARGET, peak_rss_64: agents["64"]!.peak_rss_mb.median <= RSS_TARGET_MB, frames_per_s_32: d("frames_per_s").median >= FPS_TARGET },
  };
  if (json) {
    console.log(JSON.stringify(result));
    return;
  }
  console.log(`\`orca -p\` whose coordinator delegates N explorers at once, 3 responses each, ${RESPONSE_MS} ms per response; ${ROUNDS} rounds, N in turns; min / median / max, Node ${process.version}\n`);
  console.log("| sub-agents | wall ms | orca CPU ms | peak RSS MB |");
  console.log("|---|---|---|---|");
  for (const n of COUNTS) console.log(`| ${n} | ${mmm(agents[n]!.wall_ms)} | ${mmm(agents[n]!.cpu_ms)} | ${mmm(agents[n]!.peak_rss_mb)} |`);
  const base = result.baseline;
  if (base) {
    console.log(`\nbaseline (${base.bin}), in turns with the above:\n\n| sub-agents | wall ms | orca CPU ms | peak RSS MB |\n|---|---|---|---|`);
    for (const n of COUNTS) console.log(`| ${n} | ${mmm(base.agents[n]!.wall_ms)} | ${mmm(base.agents[n]!.cpu_ms)} | ${mmm(base.agents[n]!.peak_rss_mb)} |`);
    console.log(`baseline: 64 agents' wall ÷ 1 agent's: ${mmm(base.wall_ratio_64_to_1)}`);
  }
  const yes = (ok: boolean): string => (ok ? "met" : "not met");
  console.log(`\n64 agents' wall ÷ 1 agent's, pair by pair: ${mmm(ratio)} (target ≤ ${WALL_RATIO_TARGET}: ${yes(result.targets.wall_ratio)})`);
  console.log(`peak RSS at 64: target ≤ ${RSS_TARGET_MB} MB: ${yes(result.targets.peak_rss_64)}`);
  const dash = result.dashboard_32_panes;
  if (DASHBOARD) console.log(`\ndashboard, ${DASHBOARD_PANES} sub-agent panes × 50 markdown deltas/s, tmux 160×48: ${mmm(dash.frames_per_s)} frames/s (target ≥ ${FPS_TARGET}: ${yes(result.targets.frames_per_s_32)}), CPU ${mmm(dash.cpu_pct)} %, ${mmm(dash.bytes_per_frame)} bytes a frame`);
}
