/**
 * The sandbox's stand-ins and orca's own readers (issue 26): while one session's stand-in for a
 * missing .mcp.json (an empty directory) is in place, another orca starting in the same workspace
 * reads no server list from it and warns of nothing.
 */
import fs from "node:fs";
import { afterEach, expect, it, vi } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { runOrca, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

let servers: ScriptedServer[] = [];
let ws: TempWorkspace | undefined;
afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
  ws?.cleanup();
  ws = undefined;
});

it("a second orca beside a session whose .mcp.json stand-in is in place starts without an EISDIR warning", async () => {
  const first = await startScriptedServer([{ toolCalls: [{ name: "bash", args: { command: "echo hi > out.txt" } }] }, { kind: "hang" }]);
  const second = await startScriptedServer([{ text: "hello" }]);
  servers = [first, second];
  ws = tempWorkspace({ ".orca/config.yaml": 'permissions:\n  allow: ["bash"]\n' });
  let pid = 0;
  const running = runOrca(["-p", "go", "--base-url", first.url], { ws, onSpawn: (p) => (pid = p) });
  await vi.waitFor(() => expect(fs.statSync(ws!.file(".mcp.json"), { throwIfNoEntry: false })?.isDirectory()).toBe(true), { timeout: 30_000 });
  await vi.waitFor(() => expect(first.requests.length).toBe(2), { timeout: 30_000 });
  const run = await runOrca(["-p", "hi", "--base-url", second.url], { ws });
  process.kill(pid, "SIGTERM");
  await running;
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).not.toMatch(/EISDIR|\.mcp\.json/);
});
