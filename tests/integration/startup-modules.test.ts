import fs from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runOrca } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

// Which files a headless run loads, traced in the real bin (tests/fixtures/module-trace.mjs): the
// dashboard's libraries, the MCP SDK and esprima cost start-up time and a `-p` run needs none.
const TRACER = fileURLToPath(new URL("../fixtures/module-trace.mjs", import.meta.url));

/** The files `orca -p hi` loaded, and for each bundle chunk the packages esbuild put in it. */
async function tracedRun(opts: { delayMs?: number; files?: Record<string, string>; prompt?: string } = {}): Promise<{ files: string[]; bundled: Set<string> }> {
  const server = await scriptedServer([{ text: "hello", delayMs: opts.delayMs }]);
  const ws = workspace(opts.files);
  const trace = path.join(ws.home, "modules.txt");
  const run = await runOrca(["-p", opts.prompt ?? "hi", "--base-url", server.url], { ws, env: { NODE_OPTIONS: `--import=${TRACER}`, ORCA_TRACE_MODULES: trace } });
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

  it("reads no module from node_modules: everything it runs is in the bundle (fdir's picomatch was read from disk)", async () => {
    const { files } = await tracedRun();
    expect(files.filter((f) => f.includes(`${path.sep}node_modules${path.sep}`))).toEqual([]);
  });
});

describe("the tokenizer (0.2–0.4 s of the main thread to load)", () => {
  const tokenizerFiles = (files: string[]) => files.filter((f) => /[\\/]node_modules[\\/]gpt-tokenizer[\\/]/.test(f));

  it("stays unloaded while the model is slow to answer a short request far from the window", async () => {
    // 300 ms: past the idle wait after which orca warms what later steps need (the shell grammar).
    const { files } = await tracedRun({ delayMs: 300 });
    expect(tokenizerFiles(files)).toEqual([]);
  });

  it("loads while the model answers when the request nears the window, where exact counts decide", async () => {
    const { files } = await tracedRun({ delayMs: 300, files: { ".orca/config.yaml": "model:\n  context_window: 20000\n" }, prompt: "word ".repeat(4_000) });
    expect(tokenizerFiles(files).length).toBeGreaterThan(0);
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

  it("links no Node built-in as an ES module: its facade would load what the built-in exports lazily (undici for node:http)", () => {
    const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    const linked = [...sources().matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*"([^"]+)"/gm)].map((m) => m[1]!).filter((spec) => builtins.has(spec));
    expect(linked).toEqual([]);
  });
});
