/**
 * On Node 20, `orca -p` runs the headless bundle and keeps V8's compiled code of it
 * (bin/headless-bundle.js) in orca's compile-cache folder: code that runs as the user at the next
 * start, outside any sandbox. A sandboxed command must not be able to write it — here with the
 * workspace at the home directory, which holds the folder — and a next start must run nothing
 * the command tried to plant. On a Node with a compile cache (22.1+) Node keeps it instead
 * (compile-cache-bin.test.ts), and there is no such file.
 */
import fs from "node:fs";
import nodeModule from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lastToolResult, runOrca, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

const keptOf = (w: TempWorkspace): string => path.join(w.home, ".cache", "orca", "compile-cache", "orca-headless.v8");
// Typed for Node 20, which has none.
const nodeHasCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function";

async function hi(ws: TempWorkspace): Promise<void> {
  const server = await scriptedServer([{ text: "hello" }]);
  const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws, timeoutMs: 60_000 });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout.trim()).toBe("hello");
}

// Each Node registers the block that is its own: on the other the test would not be skipped but wrong.
if (!nodeHasCache) {
  describe("the headless bundle's kept code (Node 20)", () => {
    it("is kept by a `-p` run and taken by the next, which leaves it as it was", async () => {
      const ws = workspace();
      await hi(ws);
      const kept = fs.statSync(keptOf(ws));
      expect(kept.mode & 0o777).toBe(0o600);
      await hi(ws);
      expect(fs.statSync(keptOf(ws)).ino).toBe(kept.ino);
      expect(fs.statSync(keptOf(ws)).mtimeMs).toBe(kept.mtimeMs);
    }, 120_000);

    it("with the workspace at the home directory, a sandboxed command can neither replace nor plant it, and the next start runs none of it", async () => {
      const ws = workspace();
      await hi(ws);
      const before = fs.readFileSync(keptOf(ws));
      const kept = keptOf(ws);
      const plant = [
        `printf 'PLANTED' > ${kept}`,
        `printf 'PLANTED' > ${kept}.x && mv ${kept}.x ${kept}`,
        `rm -f ${kept}; ln -s ~/planted ${kept}`,
        "echo PLANTED > ~/.cache/orca/compile-cache/planted",
      ].join("; ");
      const server = await scriptedServer([{ toolCalls: [{ name: "bash", args: { command: plant } }] }, { text: "done" }]);
      const run = await runOrca(["-p", "go", "--base-url", server.url, "--yes", "-w", ws.home], { ws, cwd: ws.home, timeoutMs: 60_000 });
      expect(run.code, run.stderr).toBe(0);
      // The command ran, in the sandbox, and met a read-only folder.
      expect(lastToolResult(server.requests[1]!)).toContain("Read-only file system");
      expect(fs.lstatSync(kept).isFile()).toBe(true);
      expect(fs.readFileSync(kept)).toEqual(before);
      expect(fs.readdirSync(path.dirname(kept))).toEqual(["orca-headless.v8"]);
      const next = await runOrca(["-p", "hi", "--base-url", (await scriptedServer([{ text: "hello" }])).url], { ws, timeoutMs: 60_000 });
      expect(next.code, next.stderr).toBe(0);
      expect(next.stdout + next.stderr).not.toContain("PLANTED");
    }, 120_000);
  });
} else {
  describe("the headless bundle's kept code (Node 22.1+)", () => {
    it("is not kept: Node's own compile cache holds the chunks", async () => {
      const ws = workspace();
      await hi(ws);
      expect(fs.existsSync(keptOf(ws))).toBe(false);
    }, 120_000);
  });
}
