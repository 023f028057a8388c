// Which checks wait for the shell grammar. Its own file: the grammar is loaded once per module
// graph, and every other permissions test loads it first.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { EventInput } from "../../src/events/types.js";
import { isReadOnlyCommand } from "../../src/tools/command-pattern.js";
import { HeadlessApprover } from "../../src/tools/headless-approver.js";
import { Permissions } from "../../src/tools/permissions/engine.js";
import { shellParserLoaded } from "../../src/tools/shell/index.js";
import { readFileTool } from "../../src/tools/builtin/read-file.js";
import { ok, type AnyTool } from "../../src/tools/tool.js";
import { Workspace } from "../../src/tools/workspace.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "orca-grammar-wait-"));
fs.writeFileSync(path.join(root, "a.ts"), "x\n");
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const bash: AnyTool = {
  name: "bash",
  description: "bash",
  params: z.object({ command: z.string() }),
  readOnly: (args) => isReadOnlyCommand((args as { command: string }).command, ["ls", "ls *"]),
  access: () => "exclusive",
  permissionSubject: (args) => ({ kind: "command", value: (args as { command: string }).command }),
  execute: async () => ok(""),
};

describe("the shell grammar", () => {
  const events: EventInput[] = [];
  const workspace = new Workspace(root);
  const permissions = new Permissions({
    mode: "default",
    allow: [],
    ask: [],
    deny: ["bash(rm *)", "read_file(secret/**)"],
    approver: new HeadlessApprover(true),
    emit: (e) => events.push(e),
    workspace,
    sandbox: { available: true },
  });
  const check = (tool: AnyTool, args: unknown) =>
    permissions.check({ callId: "c1", agentId: "a1", agentName: "main", tool, args }, new AbortController().signal);
  // The permission check reads only the tool's subject; the counter is never asked.
  const tokens = { count: (t: string) => t.length, head: (t: string) => t, tail: (t: string) => t };
  const readFile = readFileTool({ maxOutputTokens: 1000, tokens }) as AnyTool;

  it("is not waited for by a path: a run's first read_file is judged without it", async () => {
    expect(shellParserLoaded()).toBe(false);
    await permissions.readyFor("a1", readFile, { path: "a.ts" });
    expect((await check(readFile, { path: "a.ts" })).allowed).toBe(true);
    expect((await check(readFile, { path: "secret/key" })).allowed).toBe(false);
    expect(shellParserLoaded()).toBe(false);
  });

  it("is waited for by a command before it is judged: the first read-only command runs unasked", async () => {
    const fresh = new Permissions({ mode: "default", allow: [], ask: [], deny: [], approver: new HeadlessApprover(false), emit: () => {}, workspace, sandbox: { available: true } });
    const decision = await fresh.check({ callId: "c0", agentId: "a1", agentName: "main", tool: bash, args: { command: "ls -a" } }, new AbortController().signal);
    expect(decision).toMatchObject({ allowed: true, by: "mode" });
  });

  it("is waited for by a command, so a deny rule on it still holds on the very first call", async () => {
    const denied = await check(bash, { command: "cd /tmp && rm -rf x" });
    expect(shellParserLoaded()).toBe(true);
    expect(denied.allowed).toBe(false);
    expect(events.some((e) => e.type === "error")).toBe(false);
  });
});
