/**
 * `npm run bench -- preconnect`: what opening the provider's connection at start saves
 * (src/model/preconnect.ts). `orca -p hi` against the scripted server over HTTPS (a certificate made
 * now, trusted through NODE_EXTRA_CA_CERTS), with `model.preconnect` on and off, in turns:
 * spawn → the first request's headers reach the server, and spawn → exit.
 *
 * On loopback a handshake costs only CPU. A remote provider adds round trips: each row's RTT is
 * laid on by a relay in this process that holds every chunk for half of it in each direction, so
 * TLS's round trip and the request's cost what they would at that distance (the TCP handshake
 * itself is not delayed: read a real saving as this one plus one RTT). ORCA_BENCH_RTTS sets the
 * rows (default "0,40" ms), ORCA_BENCH_RUNS the runs (default 20). Min / median / max.
 */
import { spawn } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { startScriptedServer } from "../src/model/scripted.js";
import { tempWorkspace, TEST_KEY, type TempWorkspace } from "../tests/fixtures/harness.js";
import { testCertificate, type TestCertificate } from "../tests/fixtures/test-certificate.js";
import { spread, type Spread } from "./stats.js";

const RUNS = Number(process.env.ORCA_BENCH_RUNS ?? 20);
const RTTS = (process.env.ORCA_BENCH_RTTS ?? "0,40").split(",").map(Number);
const BIN = fileURLToPath(new URL("../bin/orca.js", import.meta.url));

/** A TCP relay to `port` that delays each chunk by `halfRtt` ms each way (order kept: equal delays fire in order). */
async function delayingRelay(port: number, halfRtt: number): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const later = (fn: () => void) => (halfRtt > 0 ? setTimeout(fn, halfRtt) : fn());
  const server = net.createServer((client) => {
    const upstream = net.connect(port, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => sockets.delete(s));
    }
    client.on("data", (d) => later(() => upstream.write(d)));
    upstream.on("data", (d) => later(() => client.write(d)));
    client.on("end", () => later(() => upstream.end()));
    upstream.on("end", () => later(() => client.end()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function once(ws: TempWorkspace, cert: TestCertificate, halfRtt: number): Promise<{ first: number; wall: number }> {
  const server = await startScriptedServer([{ text: "hello" }], { tls: cert });
  const relay = await delayingRelay(Number(new URL(server.url).port), halfRtt);
  const env = { PATH: process.env.PATH ?? "", HOME: ws.home, ORCA_DATA_DIR: ws.dataDir, OPENAI_API_KEY: TEST_KEY, NODE_EXTRA_CA_CERTS: cert.certFile };
  try {
    const spawnedAt = performance.now();
    const child = spawn(process.execPath, [BIN, "-p", "hi", "--base-url", `https://127.0.0.1:${relay.port}/v1`], { cwd: ws.dir, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on("error", reject);
      child.on("exit", resolve);
    });
    const exitedAt = performance.now();
    if (code !== 0 || server.requests.length !== 1) throw new Error(`orca exited ${code} after ${server.requests.length} requests: ${stderr.trim()}`);
    return { first: server.requests[0]!.arrivedHr - spawnedAt, wall: exitedAt - spawnedAt };
  } finally {
    await relay.close();
    await server.close();
  }
}

interface Row {
  rtt_ms: number;
  on: { first_request: Spread; wall: Spread };
  off: { first_request: Spread; wall: Spread };
  saving_first_request_median_ms: number;
}

export async function run({ json }: { json: boolean }): Promise<void> {
  const cert = testCertificate();
  const on = tempWorkspace();
  const off = tempWorkspace({ ".orca/config.yaml": "model:\n  preconnect: false\n" });
  const rows: Row[] = [];
  try {
    for (const rtt of RTTS) {
      const samples = { on: { first: [] as number[], wall: [] as number[] }, off: { first: [] as number[], wall: [] as number[] } };
      for (let i = 0; i < RUNS; i++) {
        for (const [name, ws] of [["on", on], ["off", off]] as const) {
          const r = await once(ws, cert, rtt / 2);
          samples[name].first.push(r.first);
          samples[name].wall.push(r.wall);
        }
      }
      const summary = (s: { first: number[]; wall: number[] }) => ({ first_request: spread(s.first), wall: spread(s.wall) });
      const row = { rtt_ms: rtt, on: summary(samples.on), off: summary(samples.off) };
      rows.push({ ...row, saving_first_request_median_ms: Math.round((row.off.first_request.median - row.on.first_request.median) * 10) / 10 });
    }
  } finally {
    on.cleanup();
    off.cleanup();
    cert.cleanup();
  }
  if (json) {
    console.log(JSON.stringify({ runs: RUNS, node: process.version, rows }));
    return;
  }
  console.log(`${RUNS} runs of \`orca -p hi\` per cell over HTTPS (test certificate), preconnect on and off in turns, Node ${process.version}.\n`);
  console.log("| RTT ms | spawn → 1st request, on: min / median / max | off | saving (median) | -p hi wall, on | off |");
  console.log("|---|---|---|---|---|---|");
  const cell = (s: Spread) => `${s.min} / ${s.median} / ${s.max}`;
  for (const r of rows) {
    console.log(`| ${r.rtt_ms} | ${cell(r.on.first_request)} | ${cell(r.off.first_request)} | ${r.saving_first_request_median_ms} | ${cell(r.on.wall)} | ${cell(r.off.wall)} |`);
  }
}
