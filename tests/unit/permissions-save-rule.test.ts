import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { parse } from "yaml";
import { DEFAULT_READ_ONLY_COMMANDS } from "../../src/config/schema.js";
import type { EventInput } from "../../src/events/types.js";
import { bpeTokenCounter } from "../../src/model/token-counter.js";
import type { Approver, PermissionAnswer } from "../../src/tools/approver.js";
import { builtinTools, ShellManager } from "../../src/tools/builtin/index.js";
import { Permissions } from "../../src/tools/permissions/engine.js";
import { loadShellParser } from "../../src/tools/shell/index.js";
import { Workspace } from "../../src/tools/workspace.js";

/** "Always" for this project or the user: the suggested rule is saved to that config file and applies at once. */

let dir: string;
let home: string;
beforeAll(async () => {
  await loadShellParser();
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-save-rule-")));
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-save-home-")));
  vi.stubEnv("HOME", home);
});
afterAll(() => {
  vi.unstubAllEnvs();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

function setup(answers: PermissionAnswer[]) {
  let asked = 0;
  const events: EventInput[] = [];
  const approver: Approver = { request: async () => answers[asked++] ?? { decision: "deny" } };
  const bash = builtinTools({ shells: new ShellManager(), bashTimeoutMs: 1_000, maxOutputTokens: 1_000, readOnlyCommands: DEFAULT_READ_ONLY_COMMANDS, tokens: bpeTokenCounter() }).find((t) => t.name === "bash")!;
  const permissions = new Permissions({ mode: "default", allow: [], ask: [], deny: [], approver, emit: (e) => void events.push(e), workspace: new Workspace(dir), sandbox: { available: true } });
  const check = (command: string) => permissions.check({ callId: command, agentId: "tester-1", agentName: "tester", tool: bash, args: { command } }, new AbortController().signal);
  return { check, events, asked: () => asked };
}

it("p saves the suggested prefix rule in .orca/config.yaml, and it applies at once", async () => {
  const { check, asked } = setup([{ decision: "always", scope: "project" }]);
  expect((await check("npm test")).allowed).toBe(true);
  expect(parse(fs.readFileSync(path.join(dir, ".orca", "config.yaml"), "utf8"))).toEqual({ permissions: { allow: ["bash(npm test *)"] } });
  expect((await check("npm test src")).allowed).toBe(true);
  expect(asked()).toBe(1);
});

it("an edited rule wider than the suggestion is kept for this session only, never written", async () => {
  const { check, events } = setup([{ decision: "always", scope: "user", rule: "bash(*)" }]);
  expect((await check("make lint")).allowed).toBe(true);
  expect(fs.existsSync(path.join(home, ".config", "orca", "config.yaml"))).toBe(false);
  expect(events.some((e) => e.type === "error" && /session only: only the suggested rule/.test(e.message))).toBe(true);
});

it("does not create a project config that would hide the user's", async () => {
  fs.rmSync(path.join(dir, ".orca"), { recursive: true, force: true });
  fs.mkdirSync(path.join(home, ".config", "orca"), { recursive: true });
  fs.writeFileSync(path.join(home, ".config", "orca", "config.yaml"), "model:\n  name: x\n");
  const { check, events } = setup([{ decision: "always", scope: "project" }]);
  expect((await check("npm test")).allowed).toBe(true);
  expect(fs.existsSync(path.join(dir, ".orca", "config.yaml"))).toBe(false);
  expect(events.some((e) => e.type === "error" && /would hide/.test(e.message))).toBe(true);
});
