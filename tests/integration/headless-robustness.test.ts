import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { ScriptedReply } from "../../src/model/scripted.js";
import { BIN, lastToolResult, runOrca, TEST_KEY, type TempWorkspace, stderrBesidesReport } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * Through the real bin: output and prompts that used to stall orca for minutes (token counting was
 * quadratic in the length of one pre-token), and answers that carry nothing.
 */

async function setup(replies: ScriptedReply[]) {
  const server = await scriptedServer(replies);
  const ws = workspace();
  return { server, ws };
}

function maxRetries(ws: TempWorkspace, n: number): void {
  fs.mkdirSync(path.join(ws.dir, ".orca"), { recursive: true });
  fs.writeFileSync(path.join(ws.dir, ".orca", "config.yaml"), `model:\n  max_retries: ${n}\n`);
}

/** A megabyte of acgt on one line: one pre-token of a million characters. */
function dnaLine(length: number): string {
  let state = 3;
  const out: string[] = [];
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out.push("acgt"[(state >>> 16) % 4]!);
  }
  return out.join("");
}

const CHAOS = "{malformed json: <<<chaos>>>";

describe("orca -p on the inputs that used to stall it", () => {
  it("a 1 MB single-line bash output with -m gpt-4o: the run finishes and the result is cut", { timeout: 90_000 }, async () => {
    // awk prints a seeded line of a million acgt characters with no newline.
    const command = `awk 'BEGIN { srand(7); for (i = 0; i < 1000000; i++) printf "%s", substr("acgt", int(rand() * 4) + 1, 1) }'`;
    const { server, ws } = await setup([{ toolCalls: [{ name: "bash", args: { command } }] }, { text: "The sequence is long." }]);
    const run = await runOrca(["-p", "print the sequence", "--base-url", server.url, "-m", "gpt-4o", "--yes"], { ws, timeoutMs: 80_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("The sequence is long.");
    expect(server.requests).toHaveLength(2);
    const result = lastToolResult(server.requests[1]!);
    expect(result).toMatch(/\[… 1 line \(\d+ characters\) omitted …\]/);
    expect(result).toContain("[exit code: 0]");
    // Cut to the default 8 000 tokens: tens of kilobytes, not a megabyte.
    expect(result.length).toBeLessThan(100_000);
    expect(result.length).toBeGreaterThan(10_000);
  });

  it("SIGTERM while a 1 MB one-line prompt is being counted ends the process", { timeout: 90_000 }, async () => {
    const { server, ws } = await setup([{ kind: "hang" }]);
    // gpt-4.1: the o200k tokenizer, and a window the 130k-token line fits (gpt-4o's 128k would refuse it unsent).
    const child = spawn(process.execPath, [BIN, "-p", "--base-url", server.url, "-m", "gpt-4.1", "--output-format", "stream-json"], {
      cwd: ws.dir,
      env: { PATH: process.env.PATH ?? "", HOME: ws.home, ORCA_DATA_DIR: ws.dataDir, OPENAI_API_KEY: TEST_KEY },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", () => {});
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("close", (code, signal) => resolve({ code, signal })),
    );
    child.stdin.end(dnaLine(1_000_000));
    // The session has started: the prompt is being taken in and counted.
    await vi.waitFor(() => expect(stdout).toContain('"type":"session_started"'), { timeout: 60_000, interval: 50 });
    child.kill("SIGTERM");
    // Generous: a process that cannot handle the signal would run on for minutes.
    const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
    const { code, signal } = await exited;
    clearTimeout(guard);
    expect(signal).toBeNull();
    expect(code).toBe(130);
  });
});

describe("orca -p when the model answers 200 with something that is not an event stream", () => {
  it("retries it like a 5xx, then succeeds", { timeout: 30_000 }, async () => {
    const { server, ws } = await setup([
      { kind: "raw", body: CHAOS },
      { kind: "raw", body: CHAOS },
      { text: "made it" },
    ]);
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("made it");
    expect(stderrBesidesReport(run.stderr)).toBe("");
    expect(server.requests).toHaveLength(3);
  });

  it("persisting: exit 1 and one stderr line naming what came back", { timeout: 30_000 }, async () => {
    const { server, ws } = await setup([
      { kind: "raw", body: CHAOS },
      { kind: "raw", body: CHAOS },
      { text: "never asked" },
    ]);
    maxRetries(ws, 1);
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`orca: model request failed: not an event stream from ${server.url} (after 2 attempts): ${JSON.stringify(CHAOS)}\n`);
    expect(server.requests).toHaveLength(2);
  });
});
