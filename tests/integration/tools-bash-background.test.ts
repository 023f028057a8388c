import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { builtinTools, ShellManager } from "../../src/tools/builtin/index.js";
import { bpeTokenCounter } from "../../src/model/token-counter.js";
import type { AnyTool, ToolContext, ToolResult } from "../../src/tools/tool.js";
import { Workspace } from "../../src/tools/workspace.js";
import { alive } from "../fixtures/processes.js";

let tmp: string;
let ws: Workspace;
let shells: ShellManager;
let tools: Map<string, AnyTool>;

function ctx(): ToolContext {
  return { signal: new AbortController().signal, workspace: ws, agentId: "a1", callId: "c1", emit: () => {} };
}

function run(name: string, args: unknown): Promise<ToolResult> {
  const tool = tools.get(name)!;
  return tool.execute(tool.params.parse(args), ctx());
}

async function startBackground(command: string): Promise<string> {
  const r = await run("bash", { command, run_in_background: true });
  expect(r.ok).toBe(true);
  const id = r.meta?.shellId as string;
  expect(r.content).toContain(`Started ${id} in the background`);
  return id;
}

/** Reads bash_output until `done` holds for the accumulated output; returns every read. */
async function readUntil(id: string, done: (all: string, last: ToolResult) => boolean): Promise<{ all: string; reads: ToolResult[] }> {
  const reads: ToolResult[] = [];
  let all = "";
  await vi.waitFor(
    async () => {
      const r = await run("bash_output", { shell_id: id });
      reads.push(r);
      all += r.content.split("\n").filter((l) => !/^status: |^exit code: |^\(no new output\)$/.test(l)).join("\n") + "\n";
      if (!done(all, r)) throw new Error(`not yet: ${r.content}`);
    },
    { timeout: 15_000, interval: 30 },
  );
  return { all, reads };
}

function firstPid(text: string): number {
  const m = /^(\d+)$/m.exec(text);
  expect(m).not.toBeNull();
  return Number(m![1]);
}

function setup(options?: ConstructorParameters<typeof ShellManager>[0]) {
  shells = new ShellManager(options);
  tools = new Map(
    builtinTools({ shells, bashTimeoutMs: 20_000, maxOutputTokens: 8_000, tokens: bpeTokenCounter(), readOnlyCommands: [] }).map((t) => [t.name, t]),
  );
}

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-bg-")));
  ws = new Workspace(tmp);
  setup();
});

afterEach(async () => {
  await shells.killAll();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("background shells", () => {
  it("report running without an exit code, then exited with one, showing only new output", async () => {
    const id = await startBackground("echo first; while [ ! -f go ]; do sleep 0.05; done; echo second; exit 4");
    expect(id).toBe("shell_1");

    const running = await readUntil(id, (all) => all.includes("first"));
    for (const r of running.reads) {
      expect(r.content.startsWith("status: running\n")).toBe(true);
      expect(r.content).not.toContain("exit code");
    }
    const again = await run("bash_output", { shell_id: id });
    expect(again.content).toBe("status: running\n(no new output)");

    fs.writeFileSync(path.join(tmp, "go"), "");
    const finished = await readUntil(id, (_all, last) => last.content.startsWith("status: exited"));
    const last = finished.reads[finished.reads.length - 1];
    expect(last.content.split("\n").slice(0, 2)).toEqual(["status: exited", "exit code: 4"]);
    expect(finished.all).toContain("second");
    expect(finished.all).not.toContain("first");
    expect(last.meta).toMatchObject({ status: "exited", exitCode: 4 });
  });

  it("bash_kill stops the whole group and the status becomes killed", async () => {
    const id = await startBackground("sleep 30 & echo $!; wait");
    const { all } = await readUntil(id, (text) => /^\d+$/m.test(text));
    const child = firstPid(all);
    expect(alive(child)).toBe(true);

    const killed = await run("bash_kill", { shell_id: id });
    expect(killed).toMatchObject({ ok: true, content: `Killed ${id}.\nstatus: killed` });
    expect(alive(child)).toBe(false);
    const after = await run("bash_output", { shell_id: id });
    expect(after.content.startsWith("status: killed")).toBe(true);

    const twice = await run("bash_kill", { shell_id: id });
    expect(twice.content).toBe(`${id} was not running (status: killed); nothing to stop`);
  });

  it("bash_kill falls back to SIGKILL for a shell that ignores SIGTERM", async () => {
    const id = await startBackground("trap '' TERM; sleep 30 & echo $!; wait");
    const { all } = await readUntil(id, (text) => /^\d+$/m.test(text));
    const child = firstPid(all);
    await run("bash_kill", { shell_id: id });
    expect(alive(child)).toBe(false);
  });

  it("killAll leaves no process behind", async () => {
    const ids = [await startBackground("sleep 30 & echo $!; wait"), await startBackground("sleep 30 & echo $!; sleep 30")];
    const children: number[] = [];
    for (const id of ids) children.push(firstPid((await readUntil(id, (text) => /^\d+$/m.test(text))).all));
    expect(children.every(alive)).toBe(true);

    await shells.killAll();
    expect(children.some(alive)).toBe(false);
    expect(shells.running()).toEqual([]);
    for (const id of ids) expect((await run("bash_output", { shell_id: id })).content).toMatch(/^status: killed/);
  });

  it("killAllSync sends SIGKILL to every live group", async () => {
    const id = await startBackground("trap '' TERM; sleep 30 & echo $!; wait");
    const child = firstPid((await readUntil(id, (text) => /^\d+$/m.test(text))).all);
    shells.killAllSync();
    await vi.waitFor(() => expect(alive(child)).toBe(false), { timeout: 10_000, interval: 20 });
  });

  it("keeps a bounded buffer and says how much was dropped", async () => {
    setup({ maxBufferChars: 1_000 });
    const id = await startBackground("seq 1 10000");
    await vi.waitFor(() => expect(shells.running()).toEqual([]), { timeout: 10_000, interval: 20 });
    const r = await run("bash_output", { shell_id: id });
    expect(r.content).toMatch(/^status: exited\nexit code: 0\n\[\d+ characters of earlier output were dropped: the buffer was full\]\n/);
    expect(r.content.endsWith("9999\n10000")).toBe(true);
  });

  it("names the known shells for an unknown id", async () => {
    const none = await run("bash_output", { shell_id: "shell_9" });
    expect(none).toMatchObject({ ok: false, error: "bash_output: no background shell shell_9; none have been started" });
    await startBackground("true");
    const some = await run("bash_kill", { shell_id: "shell_9" });
    expect(some.error).toBe("bash_kill: no background shell shell_9; known shells: shell_1");
  });

  it("classifies bash_output as read-only and bash_kill as a change to that shell", () => {
    const output = tools.get("bash_output")!;
    const kill = tools.get("bash_kill")!;
    expect(output.readOnly({ shell_id: "shell_1" })).toBe(true);
    expect(kill.readOnly({ shell_id: "shell_1" })).toBe(false);
    expect(output.access({ shell_id: "shell_1" }, ws)).toEqual({ reads: ["shell:shell_1"], writes: [] });
    expect(kill.access({ shell_id: "shell_1" }, ws)).toEqual({ reads: [], writes: ["shell:shell_1"] });
    expect(kill.permissionSubject({ shell_id: "shell_1" }, ws)).toEqual({ kind: "none" });
  });
});
