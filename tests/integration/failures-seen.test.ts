import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { EventOf, OrcaEvent } from "../../src/events/types.js";
import type { ScriptedReply } from "../../src/model/scripted.js";
import { runOrca, sessionLogs, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * Every failure is an event and one `orca:` line on stderr, whatever the output format: what
 * programs read (stdout, the log) and what people and CI logs read (stderr) both say it.
 */

function config(ws: TempWorkspace, yaml: string): void {
  fs.mkdirSync(path.join(ws.dir, ".orca"), { recursive: true });
  fs.writeFileSync(path.join(ws.dir, ".orca", "config.yaml"), yaml);
}

const events = (stdout: string): OrcaEvent[] =>
  stdout
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as OrcaEvent);

const MISSING = "orca-no-such-mcp-command-xyz";

describe("a failing MCP server is seen", () => {
  it.each(["stream-json", "text", "json"] as const)("%s: an mcp_status failed event, one stderr warning, and the run completes", { timeout: 30_000 }, async (format) => {
    const server = await scriptedServer([{ text: "done without it" }]);
    const ws = workspace();
    config(ws, `mcp_servers:\n  x:\n    command: ${MISSING}\n`);
    const run = await runOrca(["-p", "hi", "--base-url", server.url, "--output-format", format], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe(`orca: warning: MCP server x failed: command not found: ${MISSING}\n`);
    const logged = readLog(sessionLogs(ws)[0]!).events;
    const failed = logged.filter((e): e is EventOf<"mcp_status"> => e.type === "mcp_status" && e.state === "failed");
    expect(failed).toEqual([expect.objectContaining({ server: "x", reason: `command not found: ${MISSING}` })]);
    // After session_started, never before it: every consumer sees the session start first.
    expect(logged.findIndex((e) => e.type === "mcp_status")).toBeGreaterThan(logged.findIndex((e) => e.type === "session_started"));
    if (format === "stream-json") {
      const streamed = events(run.stdout);
      expect(streamed.filter((e) => e.type === "mcp_status" && e.state === "failed")).toHaveLength(1);
      expect(streamed.at(-1)).toMatchObject({ type: "session_finished", status: "done" });
    }
  });
});

describe("a failed run says why on stderr in every format", () => {
  const always500 = (): ScriptedReply => ({ kind: "error", status: 500, message: "upstream exploded" });

  it.each(["stream-json", "text", "json"] as const)("%s: constant 500s exit 1 with one stderr line naming the status", { timeout: 30_000 }, async (format) => {
    const server = await scriptedServer(always500);
    const ws = workspace();
    config(ws, "model:\n  max_retries: 1\n");
    const run = await runOrca(["-p", "hi", "--base-url", server.url, "--output-format", format], { ws });
    expect(run.code).toBe(1);
    const lines = run.stderr.split("\n").filter(Boolean);
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^orca: .*500/);
    expect(server.requests).toHaveLength(2);
    if (format === "stream-json") {
      const streamed = events(run.stdout);
      expect(streamed.find((e) => e.type === "error")).toMatchObject({ where: "model", message: lines[0]!.slice("orca: ".length) });
      expect(streamed.at(-1)).toMatchObject({ type: "session_finished", status: "failed" });
    }
  });
});

describe("a session log that cannot be written stops the run", () => {
  it("a file size limit reached mid-run: exit 1, one clear stderr line, and no request after it", { timeout: 30_000 }, async () => {
    // 200 KB of answer streamed as text deltas: the log passes the 64 KB limit mid-answer. A file
    // size limit fails a write with EFBIG exactly as a full disk fails it with ENOSPC.
    const long = "All work and no play makes orca a dull whale. ".repeat(4_500);
    const server = await scriptedServer([{ text: long, chunkChars: 2_000, toolCalls: [{ name: "list_dir", args: { path: "." } }] }, { text: "never sent" }]);
    const ws = workspace();
    const run = await runOrca(["-p", "hi", "--base-url", server.url, "--output-format", "stream-json"], {
      ws,
      prefix: ["bash", "-c", 'ulimit -f 64 && exec "$@"', "bash"],
    });
    expect(run.code).toBe(1);
    const lines = run.stderr.split("\n").filter(Boolean);
    expect(lines).toEqual([expect.stringMatching(/^orca: the session log \S+\.jsonl could not be written \(EFBIG\); the run was stopped$/)]);
    expect(server.requests).toHaveLength(1);
    // Programs reading stdout learn it too, and how the run ended.
    const streamed = events(run.stdout);
    expect(streamed.find((e) => e.type === "error")).toMatchObject({ where: "log" });
    expect(streamed.at(-1)).toMatchObject({ type: "session_finished", status: "failed" });
    expect(streamed.some((e) => e.type === "tool_started")).toBe(false);
  });
});
