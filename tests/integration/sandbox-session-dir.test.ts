import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { bpeTokenCounter } from "../../src/model/token-counter.js";
import { builtinTools, ShellManager } from "../../src/tools/builtin/index.js";
import { CommandLauncher } from "../../src/tools/builtin/launch.js";
import type { Sandbox } from "../../src/tools/sandbox/index.js";
import { Workspace } from "../../src/tools/workspace.js";
import { openSandbox } from "../fixtures/sandbox.js";

/**
 * The session dir (blanks, private /tmp, stand-in manifest) is made by the first command that needs
 * it: a run without commands makes none and removes none on its way out. With real bwrap, in a
 * temp dir of the test's own so that other sessions' dirs do not count.
 */

let base: string;
let tmp: string;
let savedTmpdir: string | undefined;
let sandbox: Sandbox | undefined;

const sessionDirs = () => fs.readdirSync(tmp).filter((e) => e.startsWith("orca-sandbox-"));

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-session-dir-test-")));
  tmp = path.join(base, "tmp");
  fs.mkdirSync(path.join(base, "ws"));
  fs.mkdirSync(tmp);
  savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
});

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  fs.rmSync(base, { recursive: true, force: true });
});

it("a session that runs no command makes no session dir, and closing it leaves nothing", async () => {
  sandbox = await openSandbox({ workspace: new Workspace(path.join(base, "ws")) });
  expect(sandbox.available).toBe(true);
  expect(sessionDirs()).toEqual([]);
  await sandbox.close();
  expect(sessionDirs()).toEqual([]);
});

it("the first command makes the session dir its private /tmp lives in; close removes it, files its commands left in /tmp too", async () => {
  sandbox = await openSandbox({ workspace: new Workspace(path.join(base, "ws")) });
  const ws = new Workspace(path.join(base, "ws"));
  const shells = new ShellManager({ launcher: new CommandLauncher(sandbox, process.env) });
  const bash = builtinTools({ shells, bashTimeoutMs: 20_000, maxOutputTokens: 8_000, readOnlyCommands: [], tokens: bpeTokenCounter() }).find((t) => t.name === "bash")!;
  const ctx = { signal: new AbortController().signal, workspace: ws, agentId: "a1", callId: "c1", emit: () => {} };
  const r = await bash.execute(bash.params.parse({ command: "echo kept > /tmp/left-behind && echo ran" }), ctx);
  expect(r.content).toContain("ran");
  expect(r.meta).toMatchObject({ sandboxed: true });
  const [dir] = sessionDirs();
  expect(dir).toBeDefined();
  expect(fs.readFileSync(path.join(tmp, dir!, "tmp", "left-behind"), "utf8")).toBe("kept\n");
  await shells.close();
  await sandbox.close();
  expect(sessionDirs()).toEqual([]);
});
