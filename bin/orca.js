#!/usr/bin/env node
// The entry stays tiny so `orca --version` answers without loading the runtime.
import { readFileSync } from "node:fs";
import nodeModule from "node:module";
import v8 from "node:v8";
import { enableCompileCache, readBuildId } from "./compile-cache.js";
import { headless, V8_FLAGS } from "./v8-flags.js";

process.env.NODE_ENV ??= "production";
// `orca sessions | head`: a reader that goes away is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`orca ${pkg.version}\n`);
  process.exit(0);
}
// Node's own modules come with V8 code compiled when Node was built, which V8 takes only while its
// flags are still Node's: each built-in loaded after the flags below are set is compiled from
// source instead (NODE_DEBUG_NATIVE=CODE_CACHE: "is rejected"), ~75 of them in an `orca -p` run.
// So what can load first does: perf_hooks, and in a headless run, which always makes a request,
// Node's fetch — undici and the http, tls, crypto, zlib and stream modules it requires (~19 ms less
// CPU a run on Node 24; docs/benchmarks.md). The dashboard's first frame must not wait for fetch.
await import("node:perf_hooks");
if (headless(argv)) void globalThis.Headers; // a lazy global: reading it loads undici
// Why each flag: bin/v8-flags.js.
for (const flag of V8_FLAGS) v8.setFlagsFromString(flag);
// Where the Node version has one (22.1+): why and where, and why functions are compiled eagerly with it, bin/compile-cache.js.
enableCompileCache(nodeModule, process.env, undefined, v8, readBuildId());
// `orca`, `orca --demo`: the dashboard's first frame is up before the rest of orca loads (src/cli/first-frame.ts decides when).
if (process.stdin.isTTY && process.stdout.isTTY) await (await import("../dist/bundle/first-frame.js")).paintFirstFrame(argv);
// Node 20, `-p`: the same code as one script whose compiled code is kept (bin/headless-bundle.js).
const headlessBundle = headless(argv) && typeof nodeModule.enableCompileCache !== "function" ? (await import("./headless-bundle.js")).loadHeadlessBundle(argv, nodeModule) : undefined;
const { main } = headlessBundle ?? (await import("../dist/bundle/main.js"));
const code = await main(argv);
headlessBundle?.keep();
process.exitCode = code;
// Stray handles (the model's keep-alive socket, a dying MCP child) must not keep a finished run
// alive: everything of the run is done once main returns, so exit as soon as what it wrote has
// reached stdout and stderr. However long its reader takes: a stdout that is a non-blocking pipe
// (any program that spawns orca from Node) holds the part of a long answer its reader has not
// taken yet in this process, and exiting sooner cut it off. A reader that goes away ends orca
// through EPIPE above.
const flushed = (stream) => new Promise((resolve) => (stream.writableLength === 0 ? resolve() : stream.write("", () => resolve())));
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(code);
