/**
 * orca's own folders inside a workspace that holds them (a home directory): a file tool's write
 * and an MCP tool that names one ask whatever an allow rule says, like a protected path; a
 * workspace inside one of them (an isolated agent's worktree in the data dir) works as before.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { HeadlessApprover } from "../../src/tools/headless-approver.js";
import { Permissions } from "../../src/tools/permissions/engine.js";
import { ok, type AnyTool } from "../../src/tools/tool.js";
import { Workspace } from "../../src/tools/workspace.js";

const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-own-")));
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));
const guarded = [
  { path: path.join(home, ".cache/orca/sandbox"), what: "orca's sandbox probe cache" },
  { path: path.join(home, ".local/share/orca"), what: "orca's data dir" },
];

const writeFile: AnyTool = {
  name: "write_file",
  description: "w",
  params: z.object({ path: z.string() }).passthrough(),
  readOnly: () => false,
  access: () => ({ reads: [], writes: [] }),
  permissionSubject: (args, ws) => ({ kind: "path", value: ws.relative(ws.resolve((args as { path: string }).path)) }),
  execute: async () => ok(""),
};
const mcpSave: AnyTool = {
  name: "mcp__fs__save",
  description: "s",
  params: z.object({}).passthrough(),
  readOnly: () => true,
  readOnlyClaimed: true,
  access: () => ({ reads: [], writes: [] }),
  permissionSubject: () => ({ kind: "none" }),
  execute: async () => ok(""),
};

function checker(ws: Workspace) {
  const permissions = new Permissions({ mode: "accept-edits", allow: ["write_file", "mcp__fs__*"], ask: [], deny: [], approver: new HeadlessApprover(false), emit: () => undefined, workspace: ws });
  let n = 0;
  return (tool: AnyTool, args: unknown) => permissions.check({ callId: `c${++n}`, agentId: "a1", agentName: "editor", tool, args }, new AbortController().signal);
}

describe("orca's own folders in a home-directory workspace", () => {
  it("a write there asks (headless: refused), through write_file and an MCP tool that names it", async () => {
    const check = checker(new Workspace(home, [], guarded));
    await expect(check(writeFile, { path: ".cache/orca/sandbox/probe.json" })).resolves.toMatchObject({ allowed: false });
    await expect(check(writeFile, { path: ".local/share/orca/trust.json" })).resolves.toMatchObject({ allowed: false });
    await expect(check(mcpSave, { path: ".cache/orca/sandbox/probe.json" })).resolves.toMatchObject({ allowed: false });
    await expect(check(writeFile, { path: ".cache/other/x" })).resolves.toMatchObject({ allowed: true });
  });

  it("a workspace inside one (a worktree in the data dir) writes its own files as before", async () => {
    const worktree = path.join(home, ".local/share/orca/worktrees/wt1");
    fs.mkdirSync(worktree, { recursive: true });
    const check = checker(new Workspace(worktree, [], guarded));
    await expect(check(writeFile, { path: "src/a.ts" })).resolves.toMatchObject({ allowed: true });
  });
});
