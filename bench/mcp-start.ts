/**
 * `npm run bench -- mcp-start`: `orca -p hi` with one stdio MCP server configured (the filesystem
 * server from node_modules, a node program like most servers), against the scripted server with
 * zero latency. A server that contributes tools connects before the first request, so its own
 * start is on the path: orca spawns it before the MCP SDK loads and the two overlap (#32, item 2).
 * - spawn_to_first_request_ms: spawn → the first request reaches the scripted server.
 * - hi_wall_ms: spawn → exit.
 * - first_request_cpu_ms: orca's own CPU (user + sys, all threads) up to the first request's body
 *   sent (bench/first-request-cpu.mjs): what overlapping must not add to.
 * - server_started_ms / server_ready_ms: spawn → the server's first line of JS runs / it has loaded
 *   and reads stdin (bench/mcp-timed-server.mjs wraps the filesystem server with these marks).
 * ORCA_BENCH_BASELINE: another build's bin, measured in turns with this one (pair differences).
 * 10 runs each (ORCA_BENCH_RUNS).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedServer } from "../src/model/scripted.js";
import { tempWorkspace, TEST_KEY } from "../tests/fixtures/harness.js";
import { mmm, spread, type Spread } from "./stats.js";

const RUNS = Number(process.env.ORCA_BENCH_RUNS ?? 10);
const BIN = fileURLToPath(new URL("../bin/orca.js", import.meta.url));
const BASELINE = process.env.ORCA_BENCH_BASELINE || undefined;
const HOOK = fileURLToPath(new URL("./first-request-cpu.mjs", import.meta.url));
const SERVER = fileURLToPath(new URL("./mcp-timed-server.mjs", import.meta.url));

interface Sample {
  first: number;
  wall: number;
  cpu: number;
  started: number;
  ready: number;
}

async function once(bin: string, dir: string, home: string, dataDir: string, config: string, cpuFile: string, marksFile: string): Promise<Sample> {
  const server = await startScriptedServer([{ text: "hello" }]);
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: home, ORCA_DATA_DIR: dataDir, OPENAI_API_KEY: TEST_KEY, ORCA_BENCH_FIRST_CPU: cpuFile };
  fs.rmSync(cpuFile, { force: true });
  fs.rmSync(marksFile, { force: true });
  try {
    let stderr = "";
    const spawnedAt = performance.now();
    const spawnedEpoch = performance.timeOrigin + spawnedAt;
    const child = spawn(process.execPath, ["--import", HOOK, bin, "-p", "hi", "--base-url", server.url, "--yes", "--config", config], { cwd: dir, env, stdio: ["ignore", "ignore", "pipe"] });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const { exitedAt, code } = await new Promise<{ exitedAt: number; code: number | null }>((resolve, reject) => {
      child.on("error", reject);
      child.on("exit", (c) => resolve({ exitedAt: performance.now(), code: c }));
    });
    if (code !== 0) throw new Error(`orca exited ${code}: ${stderr.trim()}`);
    const request = server.requests[0];
    if (!request) throw new Error("no request reached the server");
    // The MCP server's tools must be in the request: otherwise it did not connect before it.
    if (!JSON.stringify(request.body).includes("mcp__fs__")) throw new Error(`the first request had no mcp__fs__ tool: ${stderr.trim()}`);
    const cpu = Number(fs.readFileSync(cpuFile, "utf8").trim()) / 1000;
    const marks = Object.fromEntries(fs.readFileSync(marksFile, "utf8").trim().split("\n").map((l) => l.split(" ")).map(([k, v]) => [k!, Number(v) - spawnedEpoch]));
    return { first: request.arrivedHr - spawnedAt, wall: exitedAt - spawnedAt, cpu, started: marks.started!, ready: marks.ready! };
  } finally {
    await server.close();
  }
}

export async function run({ json }: { json: boolean }): Promise<void> {
  const ws = tempWorkspace({ "notes.txt": "hi\n" });
  const config = path.join(ws.home, "mcp.yaml");
  const cpuFile = path.join(ws.home, "cpu.txt");
  const marksFile = path.join(ws.home, "server-marks.txt");
  const command = JSON.stringify(process.execPath);
  fs.writeFileSync(config, `mcp_servers:\n  fs:\n    command: ${command}\n    args: [${JSON.stringify(SERVER)}, ${JSON.stringify(ws.dir)}]\n    env: { ORCA_BENCH_SERVER_MARKS: ${JSON.stringify(marksFile)} }\n`);
  const bins = BASELINE ? [BIN, BASELINE] : [BIN];
  const samples: Sample[][] = bins.map(() => []);
  try {
    // One unmeasured run each: the compile cache and the OS's file cache warm for both alike.
    for (const bin of bins) await once(bin, ws.dir, ws.home, ws.dataDir, config, cpuFile, marksFile);
    for (let i = 0; i < RUNS; i++) {
      for (const [b, bin] of bins.entries()) samples[b]!.push(await once(bin, ws.dir, ws.home, ws.dataDir, config, cpuFile, marksFile));
    }
  } finally {
    ws.cleanup();
  }
  const metrics = ["first", "wall", "cpu", "started", "ready"] as const;
  const names = { first: "spawn_to_first_request_ms", wall: "hi_wall_ms", cpu: "first_request_cpu_ms", started: "server_started_ms", ready: "server_ready_ms" };
  const result: Record<string, { orca: Spread; baseline?: Spread; minus_baseline?: Spread }> = {};
  for (const m of metrics) {
    const mine = samples[0]!.map((s) => s[m]);
    const entry: { orca: Spread; baseline?: Spread; minus_baseline?: Spread } = { orca: spread(mine) };
    if (BASELINE) {
      const base = samples[1]!.map((s) => s[m]);
      entry.baseline = spread(base);
      entry.minus_baseline = spread(mine.map((v, i) => v - base[i]!));
    }
    result[names[m]] = entry;
  }
  if (json) {
    console.log(JSON.stringify({ runs: RUNS, node: process.version, ...result }));
    return;
  }
  console.log(`orca -p hi with one stdio MCP server (filesystem), ${RUNS} runs, Node ${process.version}; min / median / max`);
  for (const [name, r] of Object.entries(result)) {
    console.log(`${name.padEnd(28)} orca ${mmm(r.orca)}${r.baseline ? `   baseline ${mmm(r.baseline)}   orca − baseline (pairs) ${mmm(r.minus_baseline!)}` : ""}`);
  }
}
