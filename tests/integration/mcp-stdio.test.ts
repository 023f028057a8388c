import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { McpServerConfig } from "../../src/config/schema.js";
import { McpManager } from "../../src/mcp/manager.js";
import { Workspace } from "../../src/tools/workspace.js";
import { bin, isAlive, runTool, stdio, toolContext } from "../fixtures/mcp-servers.js";

const SILENT = path.resolve("tests/fixtures/mcp-silent-server.mjs");

describe("McpManager over stdio with real servers", () => {
  let dir: string;
  let workspace: Workspace;
  let manager: McpManager;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-mcp-"));
    fs.writeFileSync(path.join(dir, "notes.txt"), "hello from the filesystem server\n");
    workspace = new Workspace(dir);
    manager = new McpManager({
      workspace,
      log: (line) => logs.push(line),
      clientName: "orca-test",
      clientVersion: "0.0.1",
      servers: {
        everything: stdio(bin("mcp-server-everything")),
        fs: stdio(bin("mcp-server-filesystem"), [dir]),
        memory: stdio(bin("mcp-server-memory"), [], { env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } }),
        missing: stdio("orca-no-such-command-xyz"),
        off: stdio(bin("mcp-server-everything"), [], { enabled: false }),
      },
    });
    await manager.start();
  }, 60_000);

  afterAll(async () => {
    await manager?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("reports each server's state, transport and tools", () => {
    const byName = Object.fromEntries(manager.status().map((s) => [s.name, s]));
    expect(byName.everything).toMatchObject({ transport: "stdio", state: "connected" });
    expect(byName.everything.tools).toContain("mcp__everything__echo");
    expect(byName.fs.state).toBe("connected");
    expect(byName.memory.state).toBe("connected");
    expect(byName.missing).toMatchObject({ state: "failed", reason: "command not found: orca-no-such-command-xyz", tools: [] });
    expect(byName.off).toMatchObject({ state: "disabled", tools: [] });
    expect(byName.everything.stderrTail).toContain("Starting default (STDIO) server");
    expect(logs.some((l) => l.startsWith("mcp missing: failed: command not found"))).toBe(true);
  });

  it("names tools mcp__<server>__<tool> and derives access from readOnlyHint", () => {
    const tools = manager.tools();
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.every((n) => /^mcp__(everything|fs|memory)__[A-Za-z0-9_-]+$/.test(n))).toBe(true);
    const echo = tools.find((t) => t.name === "mcp__everything__echo")!;
    expect(echo.readOnly({})).toBe(true);
    expect(echo.access({}, workspace)).toEqual({ reads: ["mcp:everything"], writes: [] });
    expect(echo.permissionSubject({}, workspace)).toEqual({ kind: "none" });
    expect(echo.jsonSchema).toMatchObject({ type: "object", required: ["message"] });
    expect(echo.jsonSchema).not.toHaveProperty("$schema");
    const create = tools.find((t) => t.name === "mcp__memory__create_entities")!;
    expect(create.readOnly({})).toBe(false);
    expect(create.access({}, workspace)).toEqual({ reads: [], writes: ["mcp:memory"] });
  });

  it("calls echo and get-sum on server-everything", async () => {
    const ctx = toolContext(workspace);
    const echo = await runTool(manager.tools(), "mcp__everything__echo", { message: "hi orca" }, ctx);
    expect(echo).toMatchObject({ ok: true, content: "Echo: hi orca" });
    const sum = await runTool(manager.tools(), "mcp__everything__get-sum", { a: 2, b: 40 }, ctx);
    expect(sum.ok).toBe(true);
    expect(sum.content).toContain("42");
  });

  it("refuses arguments that break the server's schema before calling", () => {
    const echo = manager.tools().find((t) => t.name === "mcp__everything__echo")!;
    const bad = echo.params.safeParse({ message: 7 });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({ path: ["message"], message: "must be string" });
    expect(echo.params.safeParse({}).success).toBe(false);
  });

  it("maps images to a placeholder and declares the workspace as the root", async () => {
    const ctx = toolContext(workspace);
    const image = await runTool(manager.tools(), "mcp__everything__get-tiny-image", {}, ctx);
    expect(image.content).toMatch(/\[image: image\/png, \d+(\.\d)? (B|KB)\]/);
    const roots = await runTool(manager.tools(), "mcp__everything__get-roots-list", {}, ctx);
    expect(roots.content).toContain(new URL(`file://${workspace.root}`).href);
  });

  it("reads a file through server-filesystem", async () => {
    const result = await runTool(manager.tools(), "mcp__fs__read_text_file", { path: path.join(workspace.root, "notes.txt") }, toolContext(workspace));
    expect(result).toMatchObject({ ok: true });
    expect(result.content).toContain("hello from the filesystem server");
  });

  it("turns a server's isError result into ok:false", async () => {
    const result = await runTool(manager.tools(), "mcp__fs__read_text_file", { path: "/etc/passwd" }, toolContext(workspace));
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^fs\/read_text_file returned an error: .*(denied|outside|not allowed)/i);
  });

  it("creates and reads back an entity with server-memory", async () => {
    const ctx = toolContext(workspace);
    const created = await runTool(
      manager.tools(),
      "mcp__memory__create_entities",
      { entities: [{ name: "orca", entityType: "project", observations: ["runs agents in parallel"] }] },
      ctx,
    );
    expect(created.ok).toBe(true);
    const read = await runTool(manager.tools(), "mcp__memory__open_nodes", { names: ["orca"] }, ctx);
    expect(read.ok).toBe(true);
    expect(read.content).toContain("runs agents in parallel");
    expect(fs.readFileSync(path.join(dir, "memory.jsonl"), "utf8")).toContain("orca");
  });
});

describe("McpManager faults", () => {
  const workspace = new Workspace(os.tmpdir());
  const managers: McpManager[] = [];
  const make = (servers: Record<string, McpServerConfig>) => {
    const m = new McpManager({ servers, workspace });
    managers.push(m);
    return m;
  };
  afterAll(async () => {
    await Promise.all(managers.map((m) => m.close()));
  });

  it("fails a server that never answers initialize, kills its child, and still connects the others", async () => {
    const pidFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "orca-mcp-pid-")), "pid");
    const m = make({
      // Long enough for Node to start the fixture (and write its pid) on a loaded machine.
      silent: stdio(process.execPath, [SILENT, pidFile], { connect_timeout: 3000 }),
      everything: stdio(bin("mcp-server-everything")),
    });
    await m.start();
    const [silent, everything] = m.status();
    expect(silent).toMatchObject({ state: "failed", reason: "did not finish start-up within 3s (connect_timeout)" });
    expect(everything.state).toBe("connected");
    const pid = Number(fs.readFileSync(pidFile, "utf8"));
    expect(pid).toBeGreaterThan(0);
    // The fixture ignores SIGTERM and the end of stdin: only a kill ends it.
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 15_000, interval: 100 });
  }, 40_000);

  it("reports a server killed mid-session, then restarts it on the next call", async () => {
    const m = make({ everything: stdio(bin("mcp-server-everything")) });
    await m.start();
    const ctx = toolContext(workspace);
    expect((await runTool(m.tools(), "mcp__everything__echo", { message: "before" }, ctx)).ok).toBe(true);
    const pid = m.status()[0].pid!;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, "SIGKILL");
    await vi.waitFor(() => expect(m.status()[0].state).toBe("failed"), { timeout: 10_000 });
    expect(m.status()[0].reason).toMatch(/^stopped \(process exited\).*restarts on next use$/);
    // Its tools stay offered: the model keeps the same names across the restart.
    expect(m.tools().map((t) => t.name)).toContain("mcp__everything__echo");

    const first = await runTool(m.tools(), "mcp__everything__echo", { message: "during" }, ctx);
    expect(first.ok).toBe(false);
    expect(first.error).toMatch(/MCP server "everything" stopped .*restarting/);

    const second = await runTool(m.tools(), "mcp__everything__echo", { message: "after" }, ctx);
    expect(second).toMatchObject({ ok: true, content: "Echo: after" });
    expect(m.status()[0].state).toBe("connected");
    expect(m.status()[0].pid).not.toBe(pid);
  }, 40_000);

  it("times out a slow call with call_timeout and stays usable", async () => {
    const m = make({ everything: stdio(bin("mcp-server-everything"), [], { call_timeout: 1000 }) });
    await m.start();
    const ctx = toolContext(workspace);
    const slow = await runTool(m.tools(), "mcp__everything__trigger-long-running-operation", { duration: 30, steps: 3 }, ctx);
    expect(slow.ok).toBe(false);
    expect(slow.error).toMatch(/timed out after 1s \(call_timeout\)/);
    const echo = await runTool(m.tools(), "mcp__everything__echo", { message: "still here" }, ctx);
    expect(echo).toMatchObject({ ok: true, content: "Echo: still here" });
  }, 40_000);

  it("cancels a call when its signal aborts", async () => {
    const m = make({ everything: stdio(bin("mcp-server-everything")) });
    await m.start();
    const controller = new AbortController();
    const pending = runTool(m.tools(), "mcp__everything__trigger-long-running-operation", { duration: 30, steps: 3 }, toolContext(workspace, controller.signal));
    setTimeout(() => controller.abort(), 200);
    expect(await pending).toMatchObject({ ok: false, error: "cancelled by user" });
  }, 40_000);

  it("close() leaves no child running, and killAllSync kills what is left", async () => {
    const memoryFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "orca-mcp-mem-")), "memory.jsonl");
    const m = make({ a: stdio(bin("mcp-server-everything")), b: stdio(bin("mcp-server-memory"), [], { env: { MEMORY_FILE_PATH: memoryFile } }) });
    await m.start();
    const pids = m.status().map((s) => s.pid!);
    expect(pids.every((p) => p > 0 && isAlive(p))).toBe(true);
    await m.close();
    for (const pid of pids) expect(isAlive(pid)).toBe(false);

    const n = make({ c: stdio(bin("mcp-server-everything")) });
    await n.start();
    const pid = n.status()[0].pid!;
    n.killAllSync();
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 10_000 });
  }, 40_000);
});
