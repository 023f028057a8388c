import fs from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT, runOrca } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";
import type { ScriptedReply } from "../../src/model/scripted.js";

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
  // On Node 20 a `-p` run runs the headless bundle, which vm.Script compiles from its text and the
  // trace cannot see: the compiled code it kept of it says it ran (bin/headless-bundle.js).
  if (fs.existsSync(path.join(ws.home, ".cache", "orca", "compile-cache", "orca-headless.v8"))) files.push(path.join(ROOT, "dist", "bundle", "headless.cjs"));
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
    // The trace sees what loads: the bundle's entry (or on Node 20 the headless bundle) and the chunk with the openai SDK.
    expect(files.some((f) => f.endsWith(path.join("dist", "bundle", "main.js")) || f.endsWith(path.join("dist", "bundle", "headless.cjs")))).toBe(true);
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

describe("the YAML parsers (yaml, gray-matter with js-yaml: ~360 KB a start compiled and ran)", () => {
  // Each is a file of its own beside the chunks, required on first use (scripts/bundle-options.mjs).
  const yamlCode = ({ files, bundled }: { files: string[]; bundled: Set<string> }) => ({
    // zod's file aside: it may load while the model answers (tests below).
    files: files.filter((f) => /[\\/]dist[\\/]bundle[\\/]lazy-(?!zod)/.test(f)).map((f) => path.basename(f)).sort(),
    packages: ["yaml", "js-yaml", "gray-matter"].filter((pkg) => bundled.has(pkg)),
  });

  it("stay unloaded when the only config, agents and skills are the package's own (parsed at build time)", async () => {
    expect(yamlCode(await tracedRun())).toEqual({ files: [], packages: [] });
  });

  it("load when the project has a config, an agent and a skill of its own", async () => {
    const files = {
      ".orca/config.yaml": "model:\n  context_window: 100000\n",
      ".orca/agents/helper.md": "---\nname: helper\ndescription: Helps.\n---\nYou help.\n",
      ".orca/skills/notes/SKILL.md": "---\nname: notes\ndescription: Takes notes.\n---\nWrite them down.\n",
    };
    expect(yamlCode(await tracedRun({ files }))).toEqual({ files: ["lazy-gray-matter.cjs", "lazy-yaml.cjs"], packages: ["yaml", "js-yaml", "gray-matter"] });
  });
});

describe("zod (~250 KB a start compiled and ran; the tools' schemas made before the first request)", () => {
  // Built into a file of its own like the YAML parsers; the tools' parameter schemas are made on
  // first use, and warmed while the model answers (orchestrator/agent-runner.ts).
  const zodFile = (files: string[]) => files.some((f) => f.endsWith(path.join("dist", "bundle", "lazy-zod.cjs")));

  async function loadedBeforeFirstRequest(replies: ScriptedReply[], files: Record<string, string> = {}) {
    const server = await scriptedServer(replies);
    const ws = workspace(files);
    const trace = path.join(ws.home, "modules.txt");
    const first = path.join(ws.home, "first-request.txt");
    const run = await runOrca(["-p", "go", "--base-url", server.url], { ws, env: { NODE_OPTIONS: `--import=${TRACER}`, ORCA_TRACE_MODULES: trace, ORCA_TRACE_FIRST_REQUEST: first } });
    expect(run.code, run.stderr).toBe(0);
    return { before: fs.readFileSync(first, "utf8").split("\n"), atExit: fs.readFileSync(trace, "utf8").split("\n"), requests: server.requests };
  }

  it("is not loaded before the first request leaves, with the package's own config; nor in the chunks", async () => {
    const { before } = await loadedBeforeFirstRequest([{ text: "hello" }]);
    expect(zodFile(before)).toBe(false);
    expect((await tracedRun()).bundled.has("zod")).toBe(false);
  });

  it("loads before it with a config of the project's own (checked against the config schema), and when a tool is called", async () => {
    expect(zodFile((await loadedBeforeFirstRequest([{ text: "hello" }], { ".orca/config.yaml": "model:\n  context_window: 100000\n" })).before)).toBe(true);
    const called = await loadedBeforeFirstRequest([{ toolCalls: [{ name: "read_file", args: { path: "a.txt" } }] }, { text: "read it" }], { "a.txt": "the content\n" });
    expect(JSON.stringify(called.requests[1]?.body.messages.at(-1))).toContain("the content");
    expect(zodFile(called.atExit)).toBe(true);
  });
});

describe("picomatch (the coordinator's `mcp__*` compiled a glob before every first request)", () => {
  const picomatchFile = (files: string[]) => files.some((f) => f.endsWith(path.join("dist", "bundle", "lazy-picomatch.cjs")));

  it("is not loaded by a run that matches no glob, and loads when the glob tool runs", async () => {
    const { files, bundled } = await tracedRun();
    expect({ file: picomatchFile(files), inChunks: bundled.has("picomatch") }).toEqual({ file: false, inChunks: false });
    const server = await scriptedServer([{ toolCalls: [{ name: "glob", args: { pattern: "src/*.ts" } }] }, { text: "found" }]);
    const ws = workspace({ "src/a.ts": "x", "src/b.js": "y" });
    const trace = path.join(ws.home, "modules.txt");
    const run = await runOrca(["-p", "find", "--base-url", server.url], { ws, env: { NODE_OPTIONS: `--import=${TRACER}`, ORCA_TRACE_MODULES: trace } });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.stringify(server.requests[1]?.body.messages.at(-1));
    expect(result).toContain("src/a.ts");
    expect(result).not.toContain("src/b.js");
    expect(picomatchFile(fs.readFileSync(trace, "utf8").split("\n"))).toBe(true);
  });
});

describe("Node built-ins a plain SDK client does not load (scripts/bundle-options.mjs, LAZY_BUILTINS)", () => {
  it("node:child_process stays unloaded while nothing is spawned (the sandbox probe's answer kept), and loads when a command runs", async () => {
    const ws = workspace();
    const builtinsOf = async (replies: ScriptedReply[]) => {
      const server = await scriptedServer(replies);
      const trace = path.join(ws.home, "modules.txt");
      const run = await runOrca(["-p", "go", "--base-url", server.url, "--yes"], { ws, env: { NODE_OPTIONS: `--import=${TRACER}`, ORCA_TRACE_MODULES: trace } });
      expect(run.code, run.stderr).toBe(0);
      return { loaded: fs.readFileSync(trace, "utf8").split("\n"), requests: server.requests };
    };
    // The first start in a home probes bwrap (a child process) and keeps its answer.
    expect((await builtinsOf([{ text: "hello" }])).loaded).toContain("node:child_process");
    expect((await builtinsOf([{ text: "hello" }])).loaded).not.toContain("node:child_process");
    const ran = await builtinsOf([{ toolCalls: [{ name: "bash", args: { command: "echo ran" } }] }, { text: "done" }]);
    expect(JSON.stringify(ran.requests[1]?.body.messages.at(-1))).toContain("ran");
    expect(ran.loaded).toContain("node:child_process");
  });
});

describe("what the bundle holds", () => {
  const bundleDir = fileURLToPath(new URL("../../dist/bundle/", import.meta.url));
  // With the lazy packages' files (lazy-zod.cjs holds zod).
  const sources = () => fs.readdirSync(bundleDir).filter((f) => /\.c?js$/.test(f)).map((f) => fs.readFileSync(path.join(bundleDir, f), "utf8")).join("\n");

  it("holds React's production build only, and zod's English messages only (scripts/bundle-options.mjs)", () => {
    const all = sources();
    expect(all).toMatch(/^\/\/ node_modules\/react-reconciler\/cjs\/react-reconciler\.production\.js$/m);
    expect(all).not.toMatch(/^\/\/ node_modules\/(react|react-reconciler|scheduler)\/cjs\/[\w.-]+\.development\.js$/m);
    expect(all).toMatch(/^\/\/ node_modules\/zod\/v4\/locales\/en\.js$/m);
    expect(all).not.toMatch(/^\/\/ node_modules\/zod\/v4\/locales\/(?!en\.js|index\.js)[\w-]+\.js$/m);
  });

  it("is ASCII throughout (a non-ASCII character left in a comment made the whole chunk a two-byte string in V8)", () => {
    const notAscii = fs.readdirSync(bundleDir).filter((f) => /\.c?js$/.test(f) && !/^[\x00-\x7f]*$/.test(fs.readFileSync(path.join(bundleDir, f), "utf8")));
    expect(notAscii).toEqual([]);
  });

  it("holds every built-in's require stand-in in one chunk (one each, they were nine ~460-byte chunks a headless run loaded)", () => {
    const holding = fs.readdirSync(bundleDir).filter((f) => f.endsWith(".js") && /^\/\/ builtin-required:/m.test(fs.readFileSync(path.join(bundleDir, f), "utf8")));
    expect(holding).toHaveLength(1);
  });

  it("links no Node built-in as an ES module: its facade would load what the built-in exports lazily (undici for node:http)", () => {
    const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    const linked = [...sources().matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*"([^"]+)"/gm)].map((m) => m[1]!).filter((spec) => builtins.has(spec));
    expect(linked).toEqual([]);
  });
});
