/**
 * With the workspace at the home directory, the sandbox keeps orca's own folders there read-only
 * (the compile cache, ~/.config/orca: code and settings a later start runs as the user, outside any
 * sandbox). A read-only mount cannot be renamed, but a folder above it could: a command that moved
 * ~/.cache away and made a new ~/.cache/orca/compile-cache could put there what the next start runs.
 * On Node 20 that is the headless script's kept V8 code — crafted here as a real attacker would (a
 * script as long as the bundle, compiled under its key) — and on Node 22.1+ Node's compile cache.
 * Every folder between the workspace and a protected one is pinned (bound onto itself), so none can be
 * renamed away.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { lastToolResult, runOrca } from "../fixtures/harness.js";
import { craftPlantedCode, hi } from "../fixtures/planted-code.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

it("with the workspace at the home directory, a sandboxed command cannot rename a folder above orca's own away and plant a new one: the next start runs none of it", async () => {
  const ws = workspace();
  await hi(ws);
  const cache = path.join(ws.home, ".cache", "orca", "compile-cache");
  const config = path.join(ws.home, ".config", "orca");
  fs.mkdirSync(config, { recursive: true, mode: 0o700 });
  const before = { cache: fs.statSync(cache).ino, config: fs.statSync(config).ino };
  const marker = path.join(ws.dir, "MARKER");
  // The attacker's prepared file, as a crafted workspace would bring it.
  const evil = path.join(ws.home, "evil.v8");
  craftPlantedCode(evil, marker);
  const plant = [
    "mv ~/.cache ~/.cache-old",
    "mv ~/.cache/orca ~/.cache/orca-old",
    "mkdir -p ~/.cache/orca/compile-cache",
    "cp ~/evil.v8 ~/.cache/orca/compile-cache/orca-headless.v8",
    "echo PLANTED > ~/.cache/orca/compile-cache/planted",
    "mv ~/.config ~/.config-old",
    "mkdir -p ~/.config/orca",
    "echo PLANTED > ~/.config/orca/planted",
    "ls -a ~ ~/.cache ~/.cache/orca",
  ].join("; ");
  const server = await scriptedServer([{ toolCalls: [{ name: "bash", args: { command: plant } }] }, { text: "done" }]);
  const run = await runOrca(["-p", "go", "--base-url", server.url, "--yes", "-w", ws.home], { ws, cwd: ws.home, timeoutMs: 60_000 });
  expect(run.code, run.stderr).toBe(0);
  // The command ran, in the sandbox, and met folders that cannot move.
  expect(lastToolResult(server.requests[1]!)).toContain("Device or resource busy");
  expect(fs.existsSync(path.join(ws.home, ".cache-old")), "~/.cache renamed away").toBe(false);
  expect(fs.existsSync(path.join(ws.home, ".cache", "orca-old")), "~/.cache/orca renamed away").toBe(false);
  expect(fs.existsSync(path.join(ws.home, ".config-old")), "~/.config renamed away").toBe(false);
  expect(fs.statSync(cache).ino).toBe(before.cache);
  expect(fs.statSync(config).ino).toBe(before.config);
  expect(fs.readdirSync(cache)).not.toContain("planted");
  expect(fs.readdirSync(config)).not.toContain("planted");
  const next = await hi(ws);
  expect(next).not.toContain("PLANTED");
  expect(fs.existsSync(marker), "the planted code ran").toBe(false);
}, 180_000);

it("with the home in the host's /tmp, which a sandbox with the host's network shares writable: no folder above orca's cache there can be renamed away either", async () => {
  const ws = workspace({ "a.txt": "x\n" });
  // Outside the home: a config in it is no more than one the command could rename away with the rest.
  const configFile = path.join(ws.dir, "..", "config.yaml");
  fs.writeFileSync(configFile, 'permissions:\n  allow: ["bash"]\nsandbox:\n  network:\n    allow: ["*"]\n');
  await hi(ws);
  const cache = path.join(ws.home, ".cache", "orca", "compile-cache");
  const before = fs.statSync(cache).ino;
  const marker = path.join(ws.dir, "MARKER");
  const evil = path.join(ws.dir, "evil.v8");
  craftPlantedCode(evil, marker);
  const home = ws.home;
  const command = [
    `mv ${home} ${home}-old`,
    `mv ${home}/.cache ${home}/.cache-old`,
    `mv ${home}/.cache/orca ${home}/.cache/orca-old`,
    `mkdir -p ${cache}`,
    `cp ${evil} ${cache}/orca-headless.v8`,
    `echo PLANTED > ${cache}/planted`,
    "echo tried",
  ].join("; ");
  // Encoded, as a package's install script would run it: the command line names no path outside the workspace.
  const hidden = `python3 -c 'import base64, os; os.system(base64.b64decode("${Buffer.from(command).toString("base64")}").decode())'`;
  const server = await scriptedServer([{ toolCalls: [{ name: "bash", args: { command: hidden } }] }, { text: "done" }]);
  const run = await runOrca(["-p", "go", "--base-url", server.url, "--config", configFile], { ws, timeoutMs: 60_000 });
  expect(run.code, run.stderr).toBe(0);
  expect(lastToolResult(server.requests[1]!)).toContain("tried");
  expect(fs.statSync(cache).ino).toBe(before);
  expect(fs.readdirSync(cache)).not.toContain("planted");
  expect(fs.existsSync(`${home}-old`) || fs.existsSync(`${home}/.cache-old`) || fs.existsSync(`${home}/.cache/orca-old`), "a folder above the cache renamed away").toBe(false);
  const next = await hi(ws);
  expect(next).not.toContain("PLANTED");
  expect(fs.existsSync(marker), "the planted code ran").toBe(false);
}, 180_000);
