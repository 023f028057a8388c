// Which permission checks wait for the shell grammar. The grammar loads once per module graph,
// so each case imports the engine into a fresh one (vi.resetModules): each sees a first call.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { EventInput } from "../../src/events/types.js";
import { ok, type AnyTool } from "../../src/tools/tool.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "orca-grammar-wait-"));
fs.writeFileSync(path.join(root, "a.ts"), "x\n");
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
beforeEach(() => vi.resetModules());

/** A fresh module graph: the engine, the grammar's state, and tools that read with that grammar. */
async function freshEngine(opts: { deny?: string[]; yes: boolean }) {
  const { Permissions } = await import("../../src/tools/permissions/engine.js");
  const { shellParserLoaded } = await import("../../src/tools/shell/index.js");
  const { isReadOnlyCommand } = await import("../../src/tools/command-pattern.js");
  const { HeadlessApprover } = await import("../../src/tools/headless-approver.js");
  const { readFileTool } = await import("../../src/tools/builtin/read-file.js");
  const { Workspace } = await import("../../src/tools/workspace.js");
  const bash: AnyTool = {
    name: "bash",
    description: "bash",
    params: z.object({ command: z.string() }),
    readOnly: (args) => isReadOnlyCommand((args as { command: string }).command, ["ls", "ls *"]),
    access: () => "exclusive",
    permissionSubject: (args) => ({ kind: "command", value: (args as { command: string }).command }),
    execute: async () => ok(""),
  };
  // The permission check reads only read_file's subject; its token counter is never asked.
  const tokens = { count: (t: string) => t.length, head: (t: string) => t, tail: (t: string) => t };
  const readFile = readFileTool({ maxOutputTokens: 1000, tokens }) as AnyTool;
  const events: EventInput[] = [];
  const permissions = new Permissions({
    mode: "default",
    allow: [],
    ask: [],
    deny: opts.deny ?? [],
    approver: new HeadlessApprover(opts.yes),
    emit: (e) => events.push(e),
    workspace: new Workspace(root),
    sandbox: { available: true },
  });
  const check = (tool: AnyTool, args: unknown) => permissions.check({ callId: "c1", agentId: "a1", agentName: "main", tool, args }, new AbortController().signal);
  return { permissions, check, bash, readFile, events, shellParserLoaded };
}

describe("the shell grammar", () => {
  it("is not waited for by a path: a run's first read_file is judged without it", async () => {
    const { permissions, check, readFile, shellParserLoaded } = await freshEngine({ deny: ["read_file(secret/**)"], yes: true });
    await permissions.readyFor("a1", readFile, { path: "a.ts" });
    expect((await check(readFile, { path: "a.ts" })).allowed).toBe(true);
    expect((await check(readFile, { path: "secret/key" })).allowed).toBe(false);
    expect(shellParserLoaded()).toBe(false);
  });

  it("is waited for by the first command before it is judged: a read-only one runs unasked", async () => {
    const { check, bash, shellParserLoaded } = await freshEngine({ yes: false });
    expect(shellParserLoaded()).toBe(false);
    expect(await check(bash, { command: "ls -a" })).toMatchObject({ allowed: true, by: "mode" });
    expect(shellParserLoaded()).toBe(true);
  });

  // The attack a lazy grammar could open: read before it loads, a command's words are unknown, a
  // deny rule only "might" apply, the call asks — and `--yes` would answer it.
  it("is waited for by the first command, so a deny rule holds even under --yes", async () => {
    const { check, bash, events, shellParserLoaded } = await freshEngine({ deny: ["bash(rm *)"], yes: true });
    expect(shellParserLoaded()).toBe(false);
    const denied = await check(bash, { command: "cd /tmp && rm -rf x" });
    expect(denied).toMatchObject({ allowed: false, by: "rule" });
    expect(events.some((e) => e.type === "error")).toBe(false);
  });

});
