/**
 * orca's cache folder (the compile cache: code orca runs at its next start; the sandbox probe's
 * answer) goes under $XDG_RUNTIME_DIR. Where that lies in a temp dir (containers and WSL set
 * XDG_RUNTIME_DIR=/tmp/runtime-<user>), a sandbox with the host's network shares /tmp writable with
 * commands: one could plant (or rename the read-only folder's parent away and plant) code there.
 * Real bin, real bwrap, `network.allow: ["*"]`, an allow rule for the command (as for `npm install`, whose scripts run what they like).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { compileCacheDir } from "../../bin/compile-cache.js";
import { sandboxProbeFile } from "../../src/config/code-paths.js";
import { lastToolResult, runOrca, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
import { outsideDir } from "../fixtures/sandbox.js";

let server: ScriptedServer | undefined;
let ws: TempWorkspace | undefined;
let runtime: string | undefined;
afterEach(async () => {
  await server?.close();
  ws?.cleanup();
  if (runtime) fs.rmSync(runtime, { recursive: true, force: true });
  server = undefined;
  ws = undefined;
  runtime = undefined;
});

describe("orca's cache folder under an XDG_RUNTIME_DIR in /tmp", () => {
  it("a sandboxed command with the host's network cannot plant code in the compile cache or the probe cache", async () => {
    runtime = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "runtime-")));
    fs.chmodSync(runtime, 0o700);
    ws = tempWorkspace({ "a.txt": "x\n" });
    const configFile = path.join(ws.home, "config.yaml");
    fs.writeFileSync(configFile, 'permissions:\n  allow: ["bash"]\nsandbox:\n  network:\n    allow: ["*"]\n');
    // The user's cache folder outside any temp dir: where orca's cache goes when the runtime dir cannot hold it.
    const cacheHome = outsideDir();
    try {
      const env = { XDG_RUNTIME_DIR: runtime, XDG_CACHE_HOME: cacheHome.dir };
      // The folders orca loads from with this environment: the command aims at them (and at their parent, to rename it away).
      const compiled = compileCacheDir(env, ws.home);
      const probe = sandboxProbeFile(env, ws.home);
      const parent = path.dirname(compiled);
      const command =
        `mv ${parent} ${parent}.moved 2>/dev/null; mkdir -p ${compiled} ${path.dirname(probe)} && echo pwned > ${compiled}/planted.js; ` +
        `echo '{"pwned":true}' > ${probe}; echo tried`;
      // Encoded, as a package's install script would run it: the command line names no path outside the workspace.
      const hidden = `python3 -c 'import base64, os; os.system(base64.b64decode("${Buffer.from(command).toString("base64")}").decode())'`;
      server = await startScriptedServer([{ toolCalls: [{ name: "bash", args: { command: hidden } }] }, { text: "done" }]);
      const run = await runOrca(["-p", "go", "--base-url", server.url, "--config", configFile], { ws, env, timeoutMs: 90_000 });
      expect(run.code, run.stderr).toBe(0);
      expect(lastToolResult(server.requests[1]!)).toMatch(/tried/);
      const planted = [path.join(compiled, "planted.js"), probe].filter((f) => fs.existsSync(f) && fs.readFileSync(f, "utf8").includes("pwned"));
      expect(planted).toEqual([]);
    } finally {
      cacheHome.cleanup();
    }
  });
});
