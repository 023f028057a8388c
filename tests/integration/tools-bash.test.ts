import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { builtinTools, ShellManager } from "../../src/tools/builtin/index.js";
import { bpeTokenCounter } from "../../src/model/token-counter.js";
import type { AnyTool, ToolContext, ToolResult } from "../../src/tools/tool.js";
import { loadShellParser } from "../../src/tools/shell/index.js";
import { Workspace } from "../../src/tools/workspace.js";
import { alive } from "../fixtures/processes.js";

let tmp: string;
let ws: Workspace;
let shells: ShellManager;

function bashTool(maxOutputTokens = 8_000, readOnlyCommands: string[] = []): AnyTool {
  return builtinTools({ shells, bashTimeoutMs: 20_000, maxOutputTokens, tokens: bpeTokenCounter(), readOnlyCommands }).find((t) => t.name === "bash")!;
}

function ctx(signal = new AbortController().signal): ToolContext {
  return { signal, workspace: ws, agentId: "a1", callId: "c1", emit: () => {} };
}

function bash(args: Record<string, unknown>, opts: { signal?: AbortSignal; maxOutputTokens?: number } = {}): Promise<ToolResult> {
  const tool = bashTool(opts.maxOutputTokens);
  return tool.execute(tool.params.parse(args), ctx(opts.signal));
}

async function waitForPidFile(file: string): Promise<number> {
  await vi.waitFor(() => expect(fs.readFileSync(file, "utf8")).toMatch(/^\d+\n$/), { timeout: 10_000, interval: 20 });
  return Number(fs.readFileSync(file, "utf8"));
}

function pidsIn(content: string): number[] {
  return [...content.matchAll(/^(\d+)$/gm)].map((m) => Number(m[1]));
}

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-bash-")));
  ws = new Workspace(tmp);
  shells = new ShellManager();
});

afterEach(async () => {
  await shells.killAll();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("bash", () => {
  it("runs in the workspace and returns combined output with the exit code", async () => {
    const r = await bash({ command: "pwd; echo to-stderr >&2; exit 3" });
    expect(r.ok).toBe(true);
    // stdout and stderr are two pipes: which is read first is up to the event loop.
    const lines = r.content.split("\n");
    expect(lines.pop()).toBe("[exit code: 3]");
    expect(lines.sort()).toEqual([tmp, "to-stderr"].sort());
    expect(r.meta?.exitCode).toBe(3);
  });

  it("says when there is no output and gives the command no stdin", async () => {
    const r = await bash({ command: "cat" });
    expect(r).toMatchObject({ ok: true, content: "(no output)\n[exit code: 0]" });
  });

  it("kills the whole process group on timeout", async () => {
    const r = await bash({ command: "sleep 30 & echo $!; wait", timeout_ms: 300 });
    expect(r.ok).toBe(false);
    expect(r.error).toBe("bash: command timed out after 300 ms and was killed");
    expect(r.content).toMatch(/\[killed after timeout of 300 ms\]$/);
    const [child] = pidsIn(r.content);
    expect(child).toBeGreaterThan(0);
    expect(alive(child)).toBe(false);
    expect(alive(r.meta?.pid as number)).toBe(false);
  });

  it("falls back to SIGKILL when the group ignores SIGTERM", async () => {
    const r = await bash({ command: "trap '' TERM; sleep 30 & echo $!; wait", timeout_ms: 300 });
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(/killed after timeout/);
    // 128 + 9: the shell itself died of SIGKILL, so the fallback fired.
    expect(r.meta?.exitCode).toBe(137);
    const [child] = pidsIn(r.content);
    expect(alive(child)).toBe(false);
  });

  it("stops the group when the call is aborted", async () => {
    const controller = new AbortController();
    const pending = bash({ command: "sleep 30 & echo $! > child.pid; wait" }, { signal: controller.signal });
    const child = await waitForPidFile(path.join(tmp, "child.pid"));
    expect(alive(child)).toBe(true);
    controller.abort();
    const r = await pending;
    expect(r).toMatchObject({ ok: false, error: "bash: cancelled" });
    expect(r.content).toMatch(/\[cancelled\]$/);
    expect(alive(child)).toBe(false);
  });

  it("does not start when already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await bash({ command: "touch ran" }, { signal: controller.signal });
    expect(r.ok).toBe(false);
    expect(fs.existsSync(path.join(tmp, "ran"))).toBe(false);
  });

  it("stops processes the command left running when it ends", async () => {
    const r = await bash({ command: "sleep 30 >/dev/null 2>&1 & echo $!" });
    expect(r.ok).toBe(true);
    const [child] = pidsIn(r.content);
    expect(alive(child)).toBe(false);
  });

  it("killAll stops a foreground command in flight", async () => {
    const pending = bash({ command: "sleep 30 & echo $! > child.pid; wait" });
    const child = await waitForPidFile(path.join(tmp, "child.pid"));
    await shells.killAll();
    const r = await pending;
    expect(r.ok).toBe(true);
    expect(r.meta?.exitCode).toBe(143);
    expect(alive(child)).toBe(false);
  });

  it("cuts long output to its head and tail", async () => {
    const r = await bash({ command: "seq 1 100000" }, { maxOutputTokens: 200 });
    expect(r.ok).toBe(true);
    expect(r.content.startsWith("1\n2\n3\n")).toBe(true);
    expect(r.content).toMatch(/\[… \d+ lines \(\d+ characters\) omitted …\]/);
    expect(r.content.endsWith("99999\n100000\n[exit code: 0]")).toBe(true);
  });

  it("classifies read-only commands for the scheduler and permissions", async () => {
    // The hint reads commands with the shell grammar; before it is loaded, nothing counts as read-only.
    expect(bashTool(8_000, ["ls *"]).readOnly({ command: "ls -la" })).toBe(false);
    await loadShellParser();
    const tool = bashTool(8_000, ["git status*", "ls *"]);
    expect(tool.readOnly({ command: "git status --short" })).toBe(true);
    expect(tool.access({ command: "ls -la" }, ws)).toEqual({ reads: [ws.root], writes: [] });
    expect(tool.readOnly({ command: "ls; rm -rf x" })).toBe(false);
    expect(tool.access({ command: "npm test" }, ws)).toEqual({ reads: [], writes: [ws.root], command: true });
    expect(tool.permissionSubject({ command: "npm test" }, ws)).toEqual({ kind: "command", value: "npm test" });
  });
});
