/**
 * `npm run bench -- startup`: how long a user waits. `orca --version` wall time, and the time from
 * launching `orca --demo` in a real terminal (tmux) to the first frame of the dashboard — the
 * moment tmux reads the header from the pane (bench/tmux-first-text.ts), and beside it (in turns) the same for bench/ink-floor.ts
 * alone: Node, React, Ink and one frame. Min, median and max of 7 runs each (ORCA_BENCH_RUNS), on the
 * built dist (npm run bench builds).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundleAsBin } from "./bundle-as-bin.js";
import { mmm, spread, vsFloor, type Spread, type VsFloor } from "./stats.js";
import { timeToTexts } from "./tmux-first-text.js";

const RUNS = Number(process.env.ORCA_BENCH_RUNS ?? 7);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
// ORCA_BENCH_BIN: another build's bin, to compare.
const BIN = process.env.ORCA_BENCH_BIN || fileURLToPath(new URL("../bin/orca.js", import.meta.url));
// ORCA_BENCH_BASELINE: another build's bin (e.g. main's, built in a scratch copy), its first frame
// measured in turns with this one's and the floor's.
const BASELINE = process.env.ORCA_BENCH_BASELINE || undefined;
const HEADER = "SCRIPTED DEMO";
/** A header field only a session knows: drawn when the dashboard is up and reads keys. */
const SESSION_FIELD = "mode: default";
/**
 * Left out of orca's environment: Node 20 reads NODE_EXTRA_CA_CERTS' bundle before it runs any
 * script (~45 ms on a machine that sets it; Node 22 reads it on first use), so it would measure
 * the machine, not orca. bench/overhead.ts runs orca with a clean environment for the same reason.
 */
const UNSET = ["CI", "NODE_EXTRA_CA_CERTS", "NODE_OPTIONS"];

/** Medians, as before; the spread of each is beside it, and the first frame against the Ink floor's. */
export interface StartupResult {
  version_ms: number;
  first_frame_ms: number;
  spread: { version_ms: Spread; first_frame_ms: Spread };
  floor: Spread;
  /** Launch → first frame, orca's run beside the floor's of the same turn. */
  first_frame_vs_floor: VsFloor & { target: string; met: boolean };
  /** Launch → the session's fields in the header: the dashboard is up and reads keys. */
  session_up_ms: Spread;
  /** With ORCA_BENCH_BASELINE: that build's first frame against the same floor runs. */
  baseline?: { bin: string; first_frame_vs_floor: VsFloor; session_up_ms: Spread };
}

/** #32: orca's first frame within this many ms of a bare Ink app's, measured in the same run. */
const FIRST_FRAME_EXCESS_MS = 80;


function versionOnce(): number {
  const started = performance.now();
  const env = { ...process.env };
  for (const name of UNSET) delete env[name];
  const out = spawnSync(process.execPath, [BIN, "--version"], { encoding: "utf8", env });
  const took = performance.now() - started;
  if (out.status !== 0 || !out.stdout.startsWith("orca ")) throw new Error(`orca --version failed: ${out.stderr || out.stdout}`);
  return took;
}

const demoCommand = (bin: string): string => `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} --demo`;

/** Launch → when tmux reads each of `texts` from the pane, in a fresh tmux; `command` is what the pane runs. */
function timesOnce(run: string, command: string, texts: readonly string[]): Promise<number[]> {
  return timeToTexts({
    socket: `orca-bench-startup-${process.pid}-${run}`,
    cwd: ROOT,
    command: `env ${UNSET.map((name) => `-u ${name}`).join(" ")} ${command}`,
    texts,
  });
}

/** orca's first frame (the header), and its session's first (the header's mode, known once the session is). */
async function demoOnce(run: string, bin: string): Promise<{ frame: number; session: number }> {
  const [frame, session] = await timesOnce(run, demoCommand(bin), [HEADER, SESSION_FIELD]);
  return { frame: frame!, session: session! };
}

export async function measure(): Promise<StartupResult> {
  const version: number[] = [];
  const frames: number[] = [];
  const sessions: number[] = [];
  const floor: number[] = [];
  const baseline: number[] = [];
  const baselineSessions: number[] = [];
  const cache = fileURLToPath(new URL("../node_modules/.cache", import.meta.url));
  fs.mkdirSync(cache, { recursive: true });
  const dir = fs.mkdtempSync(path.join(cache, "orca-bench-startup-"));
  try {
    // Into node_modules/.cache, so it resolves yoga's files as the bin does.
    const floorFile = await bundleAsBin("floor", fileURLToPath(new URL("./ink-floor.ts", import.meta.url)), dir);
    for (let i = 0; i < RUNS; i++) version.push(versionOnce());
    // In turns, so all see the same load.
    for (let i = 0; i < RUNS; i++) {
      const orca = await demoOnce(`orca-${i}`, BIN);
      frames.push(orca.frame);
      sessions.push(orca.session);
      if (BASELINE) {
        const base = await demoOnce(`baseline-${i}`, BASELINE);
        baseline.push(base.frame);
        baselineSessions.push(base.session);
      }
      floor.push((await timesOnce(`floor-${i}`, `${JSON.stringify(process.execPath)} ${JSON.stringify(floorFile)} --start`, [HEADER]))[0]!);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const v = spread(version, 0);
  const f = spread(frames, 0);
  const pairs = vsFloor(frames, floor, 0);
  return {
    version_ms: v.median,
    first_frame_ms: f.median,
    spread: { version_ms: v, first_frame_ms: f },
    floor: spread(floor, 0),
    first_frame_vs_floor: { ...pairs, target: `≤ floor + ${FIRST_FRAME_EXCESS_MS} ms`, met: pairs.excess.median <= FIRST_FRAME_EXCESS_MS },
    session_up_ms: spread(sessions, 0),
    ...(BASELINE ? { baseline: { bin: BASELINE, first_frame_vs_floor: vsFloor(baseline, floor, 0), session_up_ms: spread(baselineSessions, 0) } } : {}),
  };
}

export async function run({ json }: { json: boolean }): Promise<void> {
  const result = await measure();
  if (json) {
    console.log(JSON.stringify(result));
    return;
  }
  console.log(`${RUNS} runs each, Node ${process.version}, without ${UNSET.join(", ")} in orca's environment\n`);
  console.log("| metric | min ms | median ms | max ms | target |");
  console.log("|---|---|---|---|---|");
  const row = (name: string, s: Spread, target: string) => console.log(`| ${name} | ${s.min} | ${s.median} | ${s.max} | ${target} |`);
  row("orca --version", result.spread.version_ms, "≤ 150");
  const vs = result.first_frame_vs_floor;
  row("orca --demo: launch → first frame (tmux 120×40)", result.spread.first_frame_ms, "");
  row("orca --demo: launch → the session's fields in the header", result.session_up_ms, "");
  if (result.baseline) row("baseline (ORCA_BENCH_BASELINE): launch → first frame", result.baseline.first_frame_vs_floor.orca, "");
  if (result.baseline) row("baseline: launch → the session's fields in the header", result.baseline.session_up_ms, "");
  row("Ink floor (bench/ink-floor.ts alone): launch → first frame", result.floor, "");
  row("orca − floor, pair by pair", vs.excess, `${vs.target} (median ${vs.met ? "meets it" : "misses it"})`);
  if (result.baseline) row("baseline − floor, pair by pair", result.baseline.first_frame_vs_floor.excess, "");
  console.log(`\norca ÷ floor, pair by pair: ${mmm(vs.ratio)}`);
  if (result.baseline) console.log(`baseline ÷ floor, pair by pair: ${mmm(result.baseline.first_frame_vs_floor.ratio)} (${result.baseline.bin})`);
}
