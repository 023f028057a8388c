import fs from "node:fs";
import path from "node:path";
import { DEFAULT_INHERITED_ENV_VARS, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it, vi } from "vitest";
import type { ProcessRecorder, StartedProcess } from "../../src/events/processes.js";
import { McpManager } from "../../src/mcp/manager.js";
import { INHERITED_ENV_VARS, serverEnvironment, spawnStdioServers } from "../../src/mcp/stdio-child.js";
import { Workspace } from "../../src/tools/workspace.js";
import { lastToolResult, ROOT, runOrca, sessionLogs } from "../fixtures/harness.js";
import { isAlive, runTool, stdio, toolContext } from "../fixtures/mcp-servers.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * Stdio MCP servers are spawned before the MCP SDK loads (src/mcp/stdio-child.ts) and adopted by
 * the manager's first connect: the same binary, arguments, env and cwd as the SDK's spawn, the
 * same process the client then talks to, the same one line when it cannot start or dies first.
 */

const PID_SERVER = path.join(ROOT, "tests", "fixtures", "mcp-pid-server.mjs");
const HOLD = path.join(ROOT, "tests", "fixtures", "hold-runtime.mjs");

function recorder(): ProcessRecorder & { started_: StartedProcess[]; ended_: number[] } {
  const started_: StartedProcess[] = [];
  const ended_: number[] = [];
  return { started_, ended_, started: (p) => started_.push(p), ended: (pid) => ended_.push(pid) };
}

describe("stdio MCP servers spawned before the SDK loads", () => {
  it("inherit exactly what the SDK's spawn passed: its whitelist (no exported shell functions), then the server's env", () => {
    expect(INHERITED_ENV_VARS).toEqual(DEFAULT_INHERITED_ENV_VARS);
    const saved = { ...process.env };
    try {
      process.env.SHELL = "() { echo pwned; }";
      process.env.OPENAI_API_KEY = "sk-not-for-servers";
      process.env.USER = "someone";
      const env = serverEnvironment({ TOKEN: "t", PATH: "/only/this" });
      expect(env).toEqual({ ...getDefaultEnvironment(), TOKEN: "t", PATH: "/only/this" });
      expect(env).not.toHaveProperty("SHELL");
      expect(env).not.toHaveProperty("OPENAI_API_KEY");
    } finally {
      process.env = saved;
    }
  });

  it("the manager adopts the early process: its pid is the server's, the log records it, tools work, and close ends it", async () => {
    const ws = workspace();
    const marker = path.join(ws.home, "pid");
    const servers = { p: stdio(process.execPath, [PID_SERVER, marker]), off: stdio(process.execPath, [PID_SERVER, path.join(ws.home, "off")], { enabled: false }) };
    const early = spawnStdioServers(servers, ws.dir);
    expect(early.get("off")).toBeUndefined();
    const earlyPid = early.get("p")!.pid!;
    const processes = recorder();
    const manager = new McpManager({ servers, workspace: new Workspace(ws.dir), processes, early });
    try {
      await manager.start();
      const status = manager.status().find((s) => s.name === "p")!;
      expect(status).toMatchObject({ state: "connected", pid: earlyPid });
      expect(processes.started_).toEqual([expect.objectContaining({ pgid: earlyPid, kind: "mcp", group: false })]);
      expect(fs.readFileSync(marker, "utf8")).toBe(String(earlyPid));
      const result = await runTool(manager.tools(), "mcp__p__pid", {}, toolContext(new Workspace(ws.dir)));
      expect(result.content).toContain(`pid ${earlyPid}`);
      // The disabled server was never started.
      expect(fs.existsSync(path.join(ws.home, "off"))).toBe(false);
    } finally {
      await manager.close();
    }
    expect(isAlive(earlyPid)).toBe(false);
    expect(processes.ended_).toEqual([earlyPid]);
  });

  it("a server that died before the handshake (while the SDK loaded) is one clear line with its last stderr line; the run goes on", async () => {
    const ws = workspace();
    const servers = {
      dies: stdio(process.execPath, ["-e", 'console.error("boom: no database configured"); process.exit(3)']),
      missing: stdio("orca-no-such-command-xyz"),
    };
    const early = spawnStdioServers(servers, ws.dir);
    await vi.waitFor(() => expect(early.get("dies")!.process.exitCode).toBe(3), { timeout: 20_000 });
    const logs: string[] = [];
    const manager = new McpManager({ servers, workspace: new Workspace(ws.dir), early, log: (l) => logs.push(l) });
    try {
      await manager.start();
      const byName = Object.fromEntries(manager.status().map((s) => [s.name, s]));
      expect(byName.dies).toMatchObject({ state: "failed", reason: "process exited: boom: no database configured", tools: [] });
      expect(byName.missing).toMatchObject({ state: "failed", reason: "command not found: orca-no-such-command-xyz" });
      expect(logs).toContain("mcp dies stderr: boom: no database configured");
    } finally {
      await manager.close();
    }
  });

  it("a manager closed before its first connect ends the early processes", async () => {
    const ws = workspace();
    const marker = path.join(ws.home, "pid");
    const servers = { p: stdio(process.execPath, [PID_SERVER, marker]) };
    const early = spawnStdioServers(servers, ws.dir);
    const child = early.get("p")!;
    await child.spawned;
    const manager = new McpManager({ servers, workspace: new Workspace(ws.dir), early });
    await manager.close();
    await vi.waitFor(() => expect(child.process.signalCode ?? child.process.exitCode).not.toBeNull(), { timeout: 20_000 });
    expect(manager.status()[0]!.state).toBe("connecting");
  });

  it("through the bin: the server runs while the SDK's load is held, and it is the process the model's tool call reaches", async () => {
    const server = await scriptedServer([{ toolCalls: [{ name: "mcp__p__pid", args: {} }] }, { text: "done" }]);
    const ws = workspace();
    const marker = path.join(ws.home, "pid");
    fs.mkdirSync(ws.file(".orca"), { recursive: true });
    fs.writeFileSync(ws.file(".orca/config.yaml"), `mcp_servers:\n  p:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(PID_SERVER)}, ${JSON.stringify(marker)}]\n`);
    const gate = path.join(ws.home, "release");
    const env = { NODE_OPTIONS: `--import=${HOLD}`, ORCA_TEST_RELEASE: gate, ORCA_TEST_HOLD: "@modelcontextprotocol/sdk/" };
    const running = runOrca(["-p", "go", "--base-url", server.url, "--yes"], { ws, env, timeoutMs: 60_000 });
    try {
      await vi.waitFor(() => expect(fs.existsSync(`${gate}.held`), "orca reached the SDK's load").toBe(true), { timeout: 30_000, interval: 50 });
      // Still held: nothing of the SDK has loaded, and the server has started.
      await vi.waitFor(() => expect(fs.existsSync(marker), "the server started").toBe(true), { timeout: 30_000, interval: 50 });
      expect(server.requests).toHaveLength(0);
    } finally {
      fs.writeFileSync(gate, "");
    }
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    const pid = fs.readFileSync(marker, "utf8");
    expect(lastToolResult(server.requests[1]!)).toContain(`pid ${pid}`);
    const events = sessionLogs(ws).flatMap((f) => fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { type: string; pgid?: number; kind?: string }));
    expect(events).toContainEqual(expect.objectContaining({ type: "process_started", kind: "mcp", pgid: Number(pid) }));
    expect(events).toContainEqual(expect.objectContaining({ type: "process_ended", pgid: Number(pid) }));
  });
});
