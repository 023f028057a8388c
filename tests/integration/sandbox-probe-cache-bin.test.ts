import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { lastToolResult, runOrca, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
import { outsideDir } from "../fixtures/sandbox.js";

/**
 * The bwrap probe's answer is kept between starts (src/tools/sandbox/probe-cache.ts), keyed on the
 * bwrap binary and the kernel. Through the real bin, with a `bwrap` first on PATH that records each
 * of its invocations and runs the real one: a second start runs no probe, yet the model's first
 * call — a bash command asked for before anything else — still runs in the sandbox; a changed bwrap
 * or a cache file others could write probes again.
 */

const REAL_BWRAP = execFileSync("sh", ["-c", "command -v bwrap"], { encoding: "utf8" }).trim();

let server: ScriptedServer | undefined;
let ws: TempWorkspace;
let outside: ReturnType<typeof outsideDir>;
let binDir: string;
let log: string;

beforeEach(() => {
  ws = tempWorkspace({ "a.txt": "a\n" });
  outside = outsideDir();
  binDir = path.join(ws.home, "bin");
  log = path.join(ws.home, "bwrap.log");
  fs.mkdirSync(binDir, { recursive: true });
  fs.writeFileSync(path.join(binDir, "bwrap"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${REAL_BWRAP}' "$@"\n`, { mode: 0o755 });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  outside.cleanup();
  ws.cleanup();
});

const cacheFile = () => path.join(ws.home, ".cache", "orca", "sandbox", "probe.json");

/** One run whose model's first response is a bash call that writes outside the workspace. */
async function attack(): Promise<{ probed: boolean; commandInBwrap: boolean; result: string; marker: boolean }> {
  const marker = path.join(outside.dir, "marker");
  const before = fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").length - 1 : 0;
  server = await startScriptedServer([{ toolCalls: [{ name: "bash", args: { command: `echo pwned > ${marker}` } }] }, { text: "done" }]);
  const run = await runOrca(["-p", "go", "--base-url", server.url, "--yes"], { ws, env: { PATH: `${binDir}:${process.env.PATH ?? ""}` } });
  expect(run.code, run.stderr).toBe(0);
  const result = lastToolResult(server.requests[1]!);
  await server.close();
  server = undefined;
  const lines = fs.readFileSync(log, "utf8").split("\n").slice(before, -1);
  return {
    probed: lines.some((l) => l === "--version" || l.endsWith("-- true")),
    commandInBwrap: lines.some((l) => l.includes(`echo pwned > ${marker}`)),
    result,
    marker: fs.existsSync(marker),
  };
}

describe("the sandbox probe's kept answer", () => {
  it("is used by the next start; the first call still runs sandboxed; a changed bwrap or a foreign file probes again", async () => {
    const first = await attack();
    expect(first).toMatchObject({ probed: true, commandInBwrap: true, marker: false });
    expect(first.result).toContain("Read-only file system");
    expect(fs.statSync(cacheFile()).mode & 0o777).toBe(0o600);

    const second = await attack();
    expect(second).toMatchObject({ probed: false, commandInBwrap: true, marker: false });
    expect(second.result).toContain("Read-only file system");

    // Another bwrap (here: the same one touched): the key changes, so it is probed again.
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(path.join(binDir, "bwrap"), later, later);
    expect(await attack()).toMatchObject({ probed: true, commandInBwrap: true, marker: false });
    expect(await attack()).toMatchObject({ probed: false, commandInBwrap: true, marker: false });

    // A file someone else could have written is not believed.
    fs.chmodSync(cacheFile(), 0o666);
    expect(await attack()).toMatchObject({ probed: true, commandInBwrap: true, marker: false });
    // Five runs of the bin: a hang guard for two busy cores, not a speed check.
  }, 180_000);

  it("is not written where a command could write it: the folder is read-only inside a workspace that holds it", async () => {
    // The workspace is the home: the cache folder lies inside the writable area.
    server = await startScriptedServer([
      { toolCalls: [{ name: "bash", args: { command: `mkdir -p .cache/orca/sandbox; echo '{}' > .cache/orca/sandbox/probe.json; echo tried` } }] },
      { text: "done" },
    ]);
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--yes"], { ws, cwd: ws.home, env: { PATH: `${binDir}:${process.env.PATH ?? ""}` } });
    expect(run.code, run.stderr).toBe(0);
    expect(lastToolResult(server.requests[1]!)).toContain("Read-only file system");
    const kept = JSON.parse(fs.readFileSync(cacheFile(), "utf8")) as { key?: unknown };
    expect(typeof kept.key).toBe("string");
  });
});
