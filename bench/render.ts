/**
 * `npm run bench -- render`: the real dashboard (runDashboard: the store, the App, Ink, the
 * alternate screen) in a real terminal — tmux at a fixed size — with 8 sub-agent panes, each
 * streaming 50 text deltas a second for 5 s, in markdown (paragraphs, emphasis, code blocks).
 *
 * `run()` (called by bench/run.ts) bundles bench/render-driver.ts as the bin is bundled, starts
 * tmux and, inside it, that bundle (see there for what it measures). Each round runs, in turns:
 * orca's default output, writing only what changed (stretches of rows, and terminal scrolls for
 * bands that moved up), with every pane streaming the same text in step; the Ink floor
 * (bench/ink-floor.ts) at the same load; the default output with the panes out of step, so
 * side-by-side panes do not scroll together; and Ink redrawing the whole screen each frame (the
 * old output stage). ORCA_BENCH_ROUNDS rounds (3); the floor's figures and orca ÷ floor are from
 * the pairs of one round, so the machine's drift over the run weighs on both. Each run measures a
 * cold window (right after the mount) and a warm one (the next as many seconds), orca and the floor
 * alike; the issue's target is read on the cold one.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundleAsBin } from "./bundle-as-bin.js";
import { MODES, RATE, SECONDS, WARM, type Mode, type RenderResult } from "./render-driver.js";
import { mmm, spread, vsFloor, type Spread, type VsFloor } from "./stats.js";

const PANES = 8;
const COLUMNS = 160;
const ROWS = 48;
const ROUNDS = Number(process.env.ORCA_BENCH_ROUNDS ?? 3);
/** In each round, the floor right after orca's default so each pair sees the same minute. */
const ORDER: readonly Mode[] = ["diff", "ink-floor", "staggered", "full"];
/** ORCA_BENCH_RENDER_MODES=diff (comma-separated): only those modes, e.g. to profile one. */
const SELECTED = process.env.ORCA_BENCH_RENDER_MODES?.split(",").filter((m): m is Mode => MODES.includes(m as Mode));

const TARGETS: Partial<Record<keyof RenderResult, string>> = {
  frames_per_s: "≥ 20",
  bytes_per_frame: "≤ 2048",
  full_clears: "0",
  warm_frames_per_s: "≥ 20",
  warm_bytes_per_frame: "≤ 2048",
  warm_full_clears: "0",
  rss_mb_10k: "≤ 120",
};
/** orca ÷ floor: the issue's target for CPU at this load (#32). */
const CPU_RATIO_TARGET = 1.5;

/**
 * The driver bundled as the bin is (one ESM file with the patched node_modules inside), so the
 * process measured runs the code users run and holds no TypeScript loader: tsx's loader thread
 * and its transforms were ~80 MB of the RSS measured before. Inside the package (node_modules/.cache),
 * so the bundle resolves what it leaves out (and the wasm files) from node_modules. The caller
 * removes `dir`.
 */
export async function bundleRenderDriver(): Promise<{ file: string; dir: string }> {
  const cache = fileURLToPath(new URL("../node_modules/.cache", import.meta.url));
  fs.mkdirSync(cache, { recursive: true });
  const dir = fs.mkdtempSync(path.join(cache, "orca-bench-render-"));
  return { file: await bundleAsBin("driver", fileURLToPath(new URL("./render-driver.ts", import.meta.url)), dir), dir };
}

/** One run of the driver in a fresh tmux of COLUMNS×ROWS. */
export function measureRender(mode: Mode, driverFile: string, panes = PANES, pacedOnly = false): RenderResult {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-bench-render-"));
  const out = path.join(dir, "result.json");
  // Waited for as well: a driver run with --cpu-prof writes its profile as it exits.
  const exited = path.join(dir, "exited");
  const socket = `orca-bench-render-${process.pid}-${mode}`;
  const tmux = (...args: string[]): string => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  const command = `env -u CI NODE_ENV=production node ${process.env.ORCA_BENCH_NODE_ARGS ?? ""} --expose-gc ${JSON.stringify(driverFile)} --driver ${JSON.stringify(out)} ${mode} ${panes}${pacedOnly ? " paced" : ""} 2>${JSON.stringify(path.join(dir, "stderr"))}; touch ${JSON.stringify(exited)}; sleep 30`;
  try {
    tmux("-f", "/dev/null", "new-session", "-d", "-s", "bench", "-x", String(COLUMNS), "-y", String(ROWS), "-c", root, command);
    const deadline = Date.now() + 120_000;
    while (!fs.existsSync(out) || !fs.existsSync(exited)) {
      if (Date.now() > deadline) throw new Error("the render driver did not finish within 120 s");
      // Escapes only (Ink showing the cursor again as the driver exits) are not a failure.
      const err = fs.existsSync(path.join(dir, "stderr")) ? fs.readFileSync(path.join(dir, "stderr"), "utf8").replace(/\u001B\[[0-9;?]*[A-Za-z]/g, "") : "";
      if (err.trim()) throw new Error(`the render driver failed: ${err.trim().split("\n")[0]}`);
      execFileSync("sleep", ["0.2"]);
    }
    return JSON.parse(fs.readFileSync(out, "utf8")) as RenderResult;
  } finally {
    try {
      tmux("kill-server");
    } catch {
      // already gone
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

type Spreads = Record<keyof RenderResult, Spread>;

export interface RenderBench {
  rounds: number;
  /** Each mode's min / median / max over the rounds. */
  modes: Partial<Record<Mode, Spreads>>;
  /** orca's default output against the Ink floor, round by round (absent when either was left out). */
  vs_floor?: { cpu_pct: VsFloor; cpu_pct_per_fps: VsFloor; frames_per_s: VsFloor; warm_cpu_pct?: VsFloor; warm_frames_per_s?: VsFloor };
}

export async function run({ json }: { json: boolean }): Promise<void> {
  const modes = ORDER.filter((m) => !SELECTED || SELECTED.includes(m));
  const samples: Partial<Record<Mode, RenderResult[]>> = {};
  const driver = await bundleRenderDriver();
  try {
    for (let round = 0; round < ROUNDS; round++) for (const mode of modes) (samples[mode] ??= []).push(measureRender(mode, driver.file));
  } finally {
    fs.rmSync(driver.dir, { recursive: true, force: true });
  }
  const result: RenderBench = { rounds: ROUNDS, modes: {} };
  for (const mode of modes) {
    const runs = samples[mode]!;
    result.modes[mode] = Object.fromEntries(Object.keys(runs[0]!).map((k) => [k, spread(runs.map((r) => r[k as keyof RenderResult]), 2)])) as Spreads;
  }
  const orca = samples.diff;
  const floor = samples["ink-floor"];
  if (orca && floor) {
    const pair = (k: keyof RenderResult): VsFloor => vsFloor(orca.map((r) => r[k]), floor.map((r) => r[k]), 2);
    result.vs_floor = { cpu_pct: pair("cpu_pct"), cpu_pct_per_fps: pair("cpu_pct_per_fps"), frames_per_s: pair("frames_per_s") };
    if (orca[0]!.warm_cpu_pct >= 0) Object.assign(result.vs_floor, { warm_cpu_pct: pair("warm_cpu_pct"), warm_frames_per_s: pair("warm_frames_per_s") });
  }
  if (json) {
    console.log(JSON.stringify(result));
    return;
  }
  const NAMES: Record<Mode, string> = { diff: "changed only (default)", "ink-floor": "Ink floor", staggered: "changed only, panes out of step", full: "full redraw" };
  console.log(`tmux ${COLUMNS}×${ROWS}, ${PANES} sub-agent panes × ${RATE} markdown deltas/s for ${SECONDS} s right after the mount (cold)${WARM ? ` and the ${SECONDS} s after (warm_*)` : ""} (production React), ${ROUNDS} rounds, the modes in turns; min / median / max\n`);
  console.log("Ink floor: bench/ink-floor.ts, a bare Ink app with the same panes as plain text, redrawn 20 times a second — what any Ink dashboard pays for this load.\n");
  console.log(`| metric | ${modes.map((m) => NAMES[m]).join(" | ")} | target |`);
  console.log(`|---|${modes.map(() => "---|").join("")}---|`);
  for (const key of Object.keys(result.modes[modes[0]!]!) as (keyof RenderResult)[]) console.log(`| ${key} | ${modes.map((m) => mmm(result.modes[m]![key])).join(" | ")} | ${TARGETS[key] ?? ""} |`);
  if (result.vs_floor) {
    const v = result.vs_floor;
    console.log("\norca (changed only, in step) against the Ink floor, pair by pair in each round:\n");
    console.log("| | orca | floor | orca ÷ floor | orca − floor | target |");
    console.log("|---|---|---|---|---|---|");
    console.log(`| CPU % | ${mmm(v.cpu_pct.orca)} | ${mmm(v.cpu_pct.floor)} | ${mmm(v.cpu_pct.ratio)} | ${mmm(v.cpu_pct.excess)} | ≤ ${CPU_RATIO_TARGET}× at ≥ 20 frames/s |`);
    console.log(`| CPU % per frame a second | ${mmm(v.cpu_pct_per_fps.orca)} | ${mmm(v.cpu_pct_per_fps.floor)} | ${mmm(v.cpu_pct_per_fps.ratio)} | ${mmm(v.cpu_pct_per_fps.excess)} | |`);
    console.log(`| frames/s | ${mmm(v.frames_per_s.orca)} | ${mmm(v.frames_per_s.floor)} | ${mmm(v.frames_per_s.ratio)} | ${mmm(v.frames_per_s.excess)} | ≥ 20 |`);
    if (v.warm_cpu_pct && v.warm_frames_per_s) {
      console.log(`| warm: CPU % | ${mmm(v.warm_cpu_pct.orca)} | ${mmm(v.warm_cpu_pct.floor)} | ${mmm(v.warm_cpu_pct.ratio)} | ${mmm(v.warm_cpu_pct.excess)} | |`);
      console.log(`| warm: frames/s | ${mmm(v.warm_frames_per_s.orca)} | ${mmm(v.warm_frames_per_s.floor)} | ${mmm(v.warm_frames_per_s.ratio)} | ${mmm(v.warm_frames_per_s.excess)} | ≥ 20 |`);
    }
  }
}
