import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DEFAULT_READ_ONLY_COMMANDS } from "../../src/config/schema.js";
import { bpeTokenCounter } from "../../src/model/token-counter.js";
import type { Approver, PermissionAnswer } from "../../src/tools/approver.js";
import { builtinTools, ShellManager } from "../../src/tools/builtin/index.js";
import { Permissions } from "../../src/tools/permissions/engine.js";
import { loadShellParser } from "../../src/tools/shell/index.js";
import { Workspace } from "../../src/tools/workspace.js";

/** /permissions: every rule in force with where it came from; a session rule can be removed, and then asks again. */

let dir: string;
beforeAll(async () => {
  await loadShellParser();
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-in-force-")));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it("lists config, dialog, skill and mode rules; removing a dialog rule makes the call ask again", async () => {
  let asked = 0;
  const approver: Approver = {
    request: async (): Promise<PermissionAnswer> => (asked++ === 0 ? { decision: "always" } : { decision: "deny" }),
  };
  const workspace = new Workspace(dir);
  const bash = builtinTools({ shells: new ShellManager(), bashTimeoutMs: 1_000, maxOutputTokens: 1_000, readOnlyCommands: DEFAULT_READ_ONLY_COMMANDS, tokens: bpeTokenCounter() }).find((t) => t.name === "bash")!;
  const permissions = new Permissions({ mode: "default", allow: ["bash(make lint)"], ask: ["bash(git push *)"], deny: ["bash(rm *)"], approver, emit: () => undefined, workspace, sandbox: { available: true } });
  permissions.preApprove("tester-1", ["bash(npm run e2e *)"]);
  const check = (command: string) => permissions.check({ callId: command, agentId: "tester-1", agentName: "tester", tool: bash, args: { command } }, new AbortController().signal);
  expect((await check("npm test")).allowed).toBe(true);
  expect(permissions.rulesInForce()).toEqual([
    { kind: "deny", rule: "bash(rm *)", origin: "config" },
    { kind: "ask", rule: "bash(git push *)", origin: "config" },
    { kind: "allow", rule: "bash(npm test *)", origin: "dialog (tester-1)", removable: true },
    { kind: "allow", rule: "bash(make lint)", origin: "config" },
    { kind: "allow", rule: "bash(npm run e2e *)", origin: "skill (tester-1)" },
    { kind: "mode", rule: "mode:default", origin: "mode" },
  ]);
  expect((await check("npm test src")).allowed).toBe(true);
  expect(asked).toBe(1);
  expect(permissions.removeSessionRule("bash(make lint)")).toBe(false);
  expect(permissions.removeSessionRule("bash(npm test *)")).toBe(true);
  expect((await check("npm test src")).allowed).toBe(false);
  expect(asked).toBe(2);
});
