import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, it, vi } from "vitest";
import type { ScriptedServer } from "../../src/model/scripted.js";
import { BIN, sessionLogs, TEST_KEY, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * orca leaves as soon as its run is recorded (bin/orca.js): whatever it printed must still reach
 * a reader whole — one that reads late, a file, a `head` that stops early — with the run's exit
 * code. Through the real bin and the scripted server.
 */

/** ~2 MB in numbered lines: many times any pipe's buffer, so the reader's pace decides. */
const ANSWER = Array.from({ length: 40_000 }, (_, i) => `line ${i} of a long answer, with words enough to fill it`).join("\n");

let server: ScriptedServer;
let ws: TempWorkspace;

async function setup(): Promise<{ env: Record<string, string>; args: string[] }> {
  // Big chunks: the run is about the output, not about streaming 2 MB twelve characters at a time.
  server = await scriptedServer([{ text: ANSWER, chunkChars: 16_000 }]);
  ws = workspace();
  return {
    env: { PATH: process.env.PATH ?? "", HOME: ws.home, ORCA_DATA_DIR: ws.dataDir, OPENAI_API_KEY: TEST_KEY },
    args: [BIN, "-p", "say it", "--base-url", server.url, "--yes"],
  };
}

/** Runs a bash script with the bin's command line as "$@" (the scripted server lives in this process: no spawnSync). */
function bash(script: string, env: Record<string, string>, args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script, "bash", process.execPath, ...args], { cwd: ws.dir, env, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout }));
  });
}

/** The syscall a process is in (/proc/PID/syscall): its number and arguments, or null while it runs or once it is gone. */
function inSyscall(pid: number): { nr: number; args: bigint[] } | null {
  try {
    const [nr, ...args] = fs.readFileSync(`/proc/${pid}/syscall`, "utf8").trim().split(" ");
    return nr === "running" || !args.length ? null : { nr: Number(nr), args: args.map((a) => BigInt(a)) };
  } catch {
    return null;
  }
}

/** epoll_wait / epoll_pwait (x86-64) and epoll_pwait (arm64): an event loop with nothing to run. */
const EPOLL_WAITS: Record<string, number[]> = { x64: [232, 281], arm64: [22] };

/**
 * Orca has done all but hand its reader the answer: its log is closed and its event loop sleeps
 * with no deadline of 200 ms or less — the bin used to give a reader 200 ms and then exit with
 * the rest of the answer unwritten (a stdout that is a non-blocking pipe, as Node's child
 * processes have, holds it in the process).
 */
function waitingOnlyForItsReader(pid: number): boolean {
  const logs = sessionLogs(ws);
  if (logs.length !== 1 || fs.existsSync(`${logs[0]}.lock`) || !fs.readFileSync(logs[0]!, "utf8").includes('"session_finished"')) return false;
  const call = inSyscall(pid);
  if (!call || !(EPOLL_WAITS[process.arch] ?? EPOLL_WAITS.x64!).includes(call.nr)) return false;
  const timeout = BigInt.asIntN(32, call.args[3]!);
  return timeout < 0n || timeout > 200n;
}

it("a reader that reads only once orca is waiting for it gets the whole answer, and orca exits 0", { timeout: 60_000 }, async () => {
  const { env, args } = await setup();
  const child = spawn(process.execPath, args, { cwd: ws.dir, env, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.pause();
  let exited = false;
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => ((exited = true), resolve(code))));
  await vi.waitFor(() => expect(exited || waitingOnlyForItsReader(child.pid!)).toBe(true), { timeout: 30_000, interval: 20 });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  const ended = new Promise((resolve) => child.stdout.on("end", resolve));
  child.stdout.resume();
  expect(await exit).toBe(0);
  await ended;
  expect(out.length).toBe(ANSWER.length + 1);
  expect(out).toBe(`${ANSWER}\n`);
});

it("an answer redirected to a file is whole there", { timeout: 60_000 }, async () => {
  const { env, args } = await setup();
  const file = path.join(ws.dir, "answer.txt");
  expect((await bash(`"$@" > ${JSON.stringify(file)}`, env, args)).code).toBe(0);
  expect(fs.readFileSync(file, "utf8")).toBe(`${ANSWER}\n`);
});

it("`| head -n 3` gets the first three lines and orca ends with 0, not an EPIPE trace", { timeout: 60_000 }, async () => {
  const { env, args } = await setup();
  const { stdout: out } = await bash('set -o pipefail; "$@" 2>stderr.txt | head -n 3; echo "status $?"', env, args);
  expect(out).toBe(`${ANSWER.split("\n").slice(0, 3).join("\n")}\nstatus 0\n`);
  expect(fs.readFileSync(path.join(ws.dir, "stderr.txt"), "utf8")).not.toMatch(/EPIPE|Error/);
});
