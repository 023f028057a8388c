/**
 * The render bench's driver (bench/render.ts bundles this file as the bin is bundled and runs it
 * inside tmux): a child process with NODE_ENV=production set before React loads, which renders
 * the dashboard (or the Ink floor) on the pty with `panes` sub-agent panes each streaming 50
 * markdown deltas a second, measures its own CPU with process.cpuUsage and /proc, counts the
 * writes (frames), bytes and full-screen clears (ESC[2J) it sends to the terminal, then pumps
 * deltas as fast as the dashboard takes them to read RSS after 1k and 10k deltas per pane. The
 * paced part is measured twice, cold (right after the mount) and warm (the seconds after).
 * `node driver.mjs --driver OUT MODE [PANES [paced]]`; it writes its RenderResult as JSON to OUT
 * (with `paced`, or ORCA_BENCH_PACED_ONLY set, only the paced part's figures).
 */
// Types only: erased at run time, so React still loads after NODE_ENV is set.
import type { SessionApi } from "../src/orchestrator/types.js";
import fs from "node:fs";
import v8 from "node:v8";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const RATE = 50;
/** The paced part's length; ORCA_BENCH_RENDER_SECONDS=15 shows the cost once V8 has compiled the hot paths. */
export const SECONDS = Number(process.env.ORCA_BENCH_RENDER_SECONDS) || 5;
/** The warm window after the cold one (ORCA_BENCH_RENDER_WARM=0 leaves it out); the same for every mode. */
export const WARM = process.env.ORCA_BENCH_RENDER_WARM !== "0";
const CLEAR = "\u001B[2J";
const SYNC_BEGIN = "\u001B[?2026h";
const SYNC_END = "\u001B[?2026l";

export interface RenderResult {
  cpu_pct: number;
  /** Of cpu_pct: the main thread (React, Ink, the diff) and V8's other threads (GC, the compiler); Linux only, else -1. */
  cpu_main_pct: number;
  cpu_other_threads_pct: number;
  /** CPU per frame a second: the frame budget turns cheaper frames into more of them, so this compares builds. */
  cpu_pct_per_fps: number;
  frames: number;
  frames_per_s: number;
  bytes: number;
  bytes_per_frame: number;
  full_clears: number;
  /**
   * The same figures for the next SECONDS, right after (-1 when left out): the cold window above
   * holds V8 compiling the hot paths, which a session pays once.
   */
  warm_cpu_pct: number;
  warm_cpu_main_pct: number;
  warm_cpu_other_threads_pct: number;
  warm_cpu_pct_per_fps: number;
  warm_frames_per_s: number;
  warm_bytes_per_frame: number;
  warm_full_clears: number;
  /** RSS and V8 heap in use, MB: the driver loaded (before the dashboard), mounted, at 1k and 10k deltas per pane. */
  rss_mb_start: number;
  rss_mb_mounted: number;
  rss_mb_1k: number;
  rss_mb_10k: number;
  heap_mb_start: number;
  heap_mb_mounted: number;
  heap_mb_1k: number;
  heap_mb_10k: number;
  /**
   * Where the RSS at 10k deltas sits, MB: V8's young generation (committed, not used: it grows
   * with the allocation rate), the rest of the V8 heap committed, and memory outside it (yoga's
   * WebAssembly memory, Buffers).
   */
  young_gen_committed_mb_10k: number;
  other_heap_committed_mb_10k: number;
  external_mb_10k: number;
  /** What loading the o200k tokenizer (which a real session does) adds to RSS and the heap. */
  tokenizer_rss_mb: number;
  tokenizer_heap_mb: number;
}

/**
 * full: Ink redraws every frame whole. diff: orca's output (changed rows, stretches, scrolls).
 * staggered: the same, with each pane's text a few deltas ahead of the last one, so panes side
 * by side start new lines in different frames (as agents do) and do not scroll together.
 */
export type Mode = "full" | "diff" | "staggered" | "ink-floor";
export const MODES: readonly Mode[] = ["full", "diff", "staggered", "ink-floor"];

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * CPU time of this process's main thread and of all its other threads, ms (Linux /proc; null
 * elsewhere). The stat fields are in clock ticks of 10 ms (USER_HZ 100 on Linux).
 */
function threadCpu(): { main: number; other: number } | null {
  const dir = "/proc/self/task";
  if (!fs.existsSync(dir)) return null;
  let main = 0;
  let other = 0;
  for (const tid of fs.readdirSync(dir)) {
    let stat: string;
    try {
      stat = fs.readFileSync(`${dir}/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended between the listing and the read
    }
    // Fields after the command name (which may hold spaces), from its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ms = (Number(fields[11]) + Number(fields[12])) * 10;
    if (Number(tid) === process.pid) main += ms;
    else other += ms;
  }
  return { main, other };
}

/**
 * The n-th delta of a pane: markdown as agents write it — lines with **bold** and `code`, a blank
 * line every fourth line (a paragraph ends, is parsed and drawn as markdown), a fenced code block
 * now and then (highlighted) — so the render cost includes parsing and highlighting.
 */
function markdownDelta(n: number): string {
  if (n % 120 === 0) return "\n```ts\nconst total = items.reduce((sum, x) => sum + x.price, 0);\n```\n\n";
  if (n % 24 === 0) return `token ${n} ends a **paragraph**.\n\n`;
  if (n % 6 === 0) return `token ${n} ends a \`line\`\n`;
  return `token ${n} `;
}

// ——— the driver: runs inside tmux ———

async function driver(outFile: string, mode: Mode, panes: number, pacedOnly: boolean): Promise<void> {
  if (process.env.NODE_ENV !== "production") throw new Error("the render driver must start with NODE_ENV=production");
  // The V8 flags bin/orca.js sets before it loads anything, so the dashboard measured here is the one users run.
  const { V8_FLAGS } = await import("../bin/v8-flags.js");
  for (const flag of V8_FLAGS) v8.setFlagsFromString(flag);
  // Loaded only now, so React reads NODE_ENV at its first import.
  const { EventBus } = await import("../src/events/bus.js");
  const { runDashboard } = await import("../src/ui/render.js");
  const { DialogApprover } = await import("../src/ui/dialog-approver.js");
  type Session = SessionApi;
  const gc = (globalThis as { gc?: () => void }).gc;
  const memory = (): { rss: number; heap: number } => {
    gc?.();
    const m = process.memoryUsage();
    return { rss: m.rss / 1e6, heap: m.heapUsed / 1e6 };
  };
  const atStart = memory();

  let frames = 0;
  let bytes = 0;
  let clears = 0;
  const write = process.stdout.write.bind(process.stdout) as (chunk: string | Uint8Array, ...rest: unknown[]) => boolean;
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    // Ink brackets each frame with synchronized-output markers; they are not frames.
    if (text !== SYNC_BEGIN && text !== SYNC_END) frames++;
    bytes += Buffer.byteLength(text);
    clears += text.split(CLEAR).length - 1;
    return write(chunk, ...rest);
  }) as typeof process.stdout.write;

  const sent = new Array<number>(panes).fill(0);
  const next = (i: number): string => {
    const n = ++sent[i];
    return markdownDelta(mode === "staggered" ? n + i * 5 : n);
  };
  let delta: (i: number) => void;
  if (mode === "ink-floor") {
    const { startInkFloor } = await import("./ink-floor.js");
    const floor = startInkFloor("SCRIPTED DEMO (Ink floor)", panes);
    delta = (i) => floor.delta(i, next(i));
  } else {
    const bus = new EventBus("bench");
    const session: Session = {
      id: "bench-session",
      bus,
      workspaceRoot: "/bench/workspace",
      modelName: "bench-model",
      rootAgentId: "root",
      busy: true,
      run: () => new Promise(() => {}),
      cancel: () => {},
      message: () => ({ ok: true }),
      background: () => ({ ok: true }),
      agents: () => [],
      schedulerCounts: () => ({ running: 0, waiting: 0 }),
      onSchedulerChange: () => () => {},
      permissionMode: "default",
      setPermissionMode: () => {},
      setModel: () => {},
      compact: async () => false,
      mcpServers: () => [],
      close: async () => {},
    };
    void runDashboard({ session, approver: new DialogApprover(), stdout: process.stdout, stdin: process.stdin, fullRedraw: mode === "full" });
    bus.emit({ type: "user_message", agentId: "root", text: "Stream eight sub-agents at once." });
    for (let i = 0; i < panes; i++) {
      bus.emit({ type: "agent_started", agentId: `a${i}`, parentId: "root", name: `agent-${i}`, label: `pane ${i}`, task: "stream tokens", tools: [], depth: 1, model: "m", system: "" });
    }
    delta = (i) => bus.emit({ type: "text_delta", agentId: `a${i}`, text: next(i) });
  }
  await sleep(500);
  const mounted = memory();

  // Paced: 50 deltas a second per pane. Ticks are scheduled against the clock, so a slow
  // render delays deltas but never drops them. Two windows of SECONDS one after the other: the
  // first right after the mount (cold: V8 compiles the hot paths on its other threads meanwhile,
  // more of them for orca than for the floor), the second once that is mostly done (warm).
  const pacedWindow = async (): Promise<Paced> => {
    frames = 0;
    bytes = 0;
    clears = 0;
    const cpu = process.cpuUsage();
    const threadsAtStart = threadCpu();
    const start = performance.now();
    const total = RATE * SECONDS;
    for (let tick = 0; tick < total; tick++) {
      const due = start + (tick * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      for (let i = 0; i < panes; i++) delta(i);
    }
    await sleep(1000 / RATE);
    const used = process.cpuUsage(cpu);
    const threadsAtEnd = threadCpu();
    const wall = performance.now() - start;
    const share = (pick: (t: { main: number; other: number }) => number): number => (threadsAtStart && threadsAtEnd ? ((pick(threadsAtEnd) - pick(threadsAtStart)) / wall) * 100 : -1);
    return { cpu_pct: ((used.user + used.system) / 1000 / wall) * 100, cpu_main_pct: share((t) => t.main), cpu_other_threads_pct: share((t) => t.other), frames, bytes, full_clears: clears, seconds: wall / 1000 };
  };
  const paced = await pacedWindow();
  const warm = WARM ? await pacedWindow() : null;

  const figures = {
    cpu_pct: round(paced.cpu_pct),
    cpu_main_pct: round(paced.cpu_main_pct),
    cpu_other_threads_pct: round(paced.cpu_other_threads_pct),
    cpu_pct_per_fps: perFps(paced),
    frames: paced.frames,
    frames_per_s: round(paced.frames / paced.seconds),
    bytes: paced.bytes,
    bytes_per_frame: Math.round(paced.bytes / Math.max(1, paced.frames)),
    full_clears: paced.full_clears,
    warm_cpu_pct: warm ? round(warm.cpu_pct) : -1,
    warm_cpu_main_pct: warm ? round(warm.cpu_main_pct) : -1,
    warm_cpu_other_threads_pct: warm ? round(warm.cpu_other_threads_pct) : -1,
    warm_cpu_pct_per_fps: warm ? perFps(warm) : -1,
    warm_frames_per_s: warm ? round(warm.frames / warm.seconds) : -1,
    warm_bytes_per_frame: warm ? Math.round(warm.bytes / Math.max(1, warm.frames)) : -1,
    warm_full_clears: warm ? warm.full_clears : -1,
  };
  // The paced part alone: for the fanout bench, and for profiling (node --cpu-prof).
  if (pacedOnly) {
    fs.writeFileSync(outFile, JSON.stringify(figures));
    process.exit(0);
  }

  // Unpaced: as fast as the store and Ink take them, yielding so flushes and renders happen.
  const memoryAt = async (perPane: number): Promise<{ rss: number; heap: number }> => {
    while (sent[0] < perPane) {
      for (let k = 0; k < 100 && sent[0] < perPane; k++) for (let i = 0; i < panes; i++) delta(i);
      await sleep(5);
    }
    await sleep(100);
    return memory();
  };
  const at1k = await memoryAt(1_000);
  const at10k = await memoryAt(10_000);
  const spaces = v8.getHeapSpaceStatistics();
  const committed = (young: boolean): number => spaces.filter((sp) => sp.space_name.startsWith("new_") === young).reduce((sum, sp) => sum + sp.space_size, 0) / 1e6;
  const external = process.memoryUsage().external / 1e6;
  // A real session also holds the tokenizer's tables (orca loads them while it waits on the model).
  const { warmTokenizer } = await import("../src/model/tokens.js");
  warmTokenizer("gpt-4.1-mini");
  const withTokenizer = memory();

  const result: RenderResult = {
    ...figures,
    rss_mb_start: round(atStart.rss),
    rss_mb_mounted: round(mounted.rss),
    rss_mb_1k: round(at1k.rss),
    rss_mb_10k: round(at10k.rss),
    heap_mb_start: round(atStart.heap),
    heap_mb_mounted: round(mounted.heap),
    heap_mb_1k: round(at1k.heap),
    heap_mb_10k: round(at10k.heap),
    young_gen_committed_mb_10k: round(committed(true)),
    other_heap_committed_mb_10k: round(committed(false)),
    external_mb_10k: round(external),
    tokenizer_rss_mb: round(withTokenizer.rss - at10k.rss),
    tokenizer_heap_mb: round(withTokenizer.heap - at10k.heap),
  };
  fs.writeFileSync(outFile, JSON.stringify(result));
  // The screen's exit handler leaves the alternate screen.
  process.exit(0);
}

/** One paced window's raw figures. */
interface Paced {
  cpu_pct: number;
  cpu_main_pct: number;
  cpu_other_threads_pct: number;
  frames: number;
  bytes: number;
  full_clears: number;
  seconds: number;
}

/** CPU per frame a second: the frame budget turns cheaper frames into more of them, so this compares builds. */
function perFps(paced: { cpu_pct: number; frames: number; seconds: number }): number {
  return Math.round((paced.cpu_pct / Math.max(0.1, paced.frames / paced.seconds)) * 100) / 100;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === "--driver") {
  const mode = MODES.find((m) => m === process.argv[4]) ?? "diff";
  await driver(process.argv[3] ?? path.join(os.tmpdir(), "orca-render-bench.json"), mode, Number(process.argv[5]) || 8, process.argv[6] === "paced" || Boolean(process.env.ORCA_BENCH_PACED_ONLY));
}
