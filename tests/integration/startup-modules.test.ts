import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { runOrca, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

// Which files a headless run loads, traced in the real bin (tests/fixtures/module-trace.mjs): the
// dashboard's libraries, the MCP SDK and esprima cost start-up time and a `-p` run needs none.
const TRACER = fileURLToPath(new URL("../fixtures/module-trace.mjs", import.meta.url));

let server: ScriptedServer | undefined;
let ws: TempWorkspace | undefined;

afterEach(async () => {
  await server?.close();
  ws?.cleanup();
  server = undefined;
  ws = undefined;
});

/** The files `orca -p hi` loaded, and for each bundle chunk the packages esbuild put in it. */
async function tracedRun(): Promise<{ files: string[]; bundled: Set<string> }> {
  server = await startScriptedServer([{ text: "hello" }]);
  ws = tempWorkspace();
  const trace = path.join(ws.home, "modules.txt");
  const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws, env: { NODE_OPTIONS: `--import=${TRACER}`, ORCA_TRACE_MODULES: trace } });
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout.trim()).toBe("hello");
  const files = fs.readFileSync(trace, "utf8").split("\n").filter(Boolean);
  const bundled = new Set<string>();
  for (const file of files.filter((f) => f.includes(`${path.sep}dist${path.sep}bundle${path.sep}`))) {
    // esbuild heads each bundled module with a comment naming its source path.
    for (const match of fs.readFileSync(file, "utf8").matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)) bundled.add(match[1]!);
  }
  return { files, bundled };
}

describe("what a headless run loads", () => {
  it("loads the model client, and never ink, react, the MCP SDK or esprima", async () => {
    const { files, bundled } = await tracedRun();
    // The trace sees what loads: the bundle's entry and the chunk with the openai SDK.
    expect(files.some((f) => f.endsWith(path.join("dist", "bundle", "main.js")))).toBe(true);
    expect(bundled.has("openai")).toBe(true);
    for (const pkg of ["ink", "react", "react-reconciler", "yoga-layout", "marked", "highlight.js"]) expect(bundled.has(pkg), pkg).toBe(false);
    const fromNodeModules = files.filter((f) => /[\\/]node_modules[\\/](ink|react|esprima|@modelcontextprotocol)[\\/]/.test(f));
    expect(fromNodeModules).toEqual([]);
  });
});

describe("what the bundle holds", () => {
  const bundleDir = fileURLToPath(new URL("../../dist/bundle/", import.meta.url));
  const sources = () => fs.readdirSync(bundleDir).filter((f) => f.endsWith(".js")).map((f) => fs.readFileSync(path.join(bundleDir, f), "utf8")).join("\n");

  it("holds React's production build only, and zod's English messages only (scripts/bundle-options.mjs)", () => {
    const all = sources();
    expect(all).toMatch(/^\/\/ node_modules\/react-reconciler\/cjs\/react-reconciler\.production\.js$/m);
    expect(all).not.toMatch(/^\/\/ node_modules\/(react|react-reconciler|scheduler)\/cjs\/[\w.-]+\.development\.js$/m);
    expect(all).toMatch(/^\/\/ node_modules\/zod\/v4\/locales\/en\.js$/m);
    expect(all).not.toMatch(/^\/\/ node_modules\/zod\/v4\/locales\/(?!en\.js|index\.js)[\w-]+\.js$/m);
  });
});
