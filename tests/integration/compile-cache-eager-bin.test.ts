import fs from "node:fs";
import nodeModule from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runOrca, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * Issue 32, exit: Node writes a module's compile cache before the module runs, so with V8's lazy
 * default it held the top level alone and every function a run called was compiled again in every
 * run — ~40 % of the JavaScript between the last response and exit. With orca's own cache on, the
 * bin compiles eagerly (bin/compile-cache.js), so the cache holds the functions too: several times
 * the bytes of a lazy one. A cache Node turned on itself (NODE_COMPILE_CACHE, before the bin's
 * flags) is left lazy. Runs where Node has the cache (22.1+: the suite's Node 24 pass in .ci/run).
 */

const bytesIn = (dir: string): number =>
  (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[]).filter((e) => e.isFile()).reduce((sum, e) => sum + fs.statSync(path.join(e.parentPath, e.name)).size, 0);
const cacheOf = (w: TempWorkspace): string => path.join(w.home, ".cache", "orca", "compile-cache");

// Each Node registers the block that is its own (a file that registers no test fails the suite on that Node).
if (typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function") {
  describe("the compile cache holds the bundle's functions", () => {
    it("orca's own cache is written eager, a cache Node turned on at start stays lazy, and both runs answer", async () => {
      const server = await scriptedServer([{ text: "hello" }, { text: "hello" }]);
      const eager = workspace();
      const own = await runOrca(["-p", "hi", "--base-url", server.url], { ws: eager, timeoutMs: 60_000 });
      expect(own.code, own.stderr).toBe(0);
      expect(own.stdout).toBe("hello\n");

      const lazy = workspace();
      const nodes = path.join(lazy.home, "node-cache");
      const started = await runOrca(["-p", "hi", "--base-url", server.url], { ws: lazy, env: { NODE_COMPILE_CACHE: nodes }, timeoutMs: 60_000 });
      expect(started.code, started.stderr).toBe(0);
      expect(started.stdout).toBe("hello\n");
      expect(fs.existsSync(cacheOf(lazy))).toBe(false);

      // The same bundle's chunks in both: eager holds their functions' code as well (~5× here).
      expect(bytesIn(cacheOf(eager))).toBeGreaterThan(2 * bytesIn(nodes));
    }, 120_000);
  });
} else {
  describe("no compile cache (Node 20)", () => {
    it("compiles nothing eagerly: the run answers, and the folder holds only the headless script's kept code, no cache of Node's", async () => {
      const server = await scriptedServer([{ text: "hello" }]);
      const ws = workspace();
      const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws, timeoutMs: 60_000 });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe("hello\n");
      expect(fs.readdirSync(cacheOf(ws))).toEqual(["orca-headless.v8"]);
    }, 120_000);
  });
}
