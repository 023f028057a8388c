#!/usr/bin/env node
// The entry stays tiny so `orca --version` answers without loading the runtime.
import { readFileSync } from "node:fs";

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
const { main } = await import("../dist/bundle/main.js");
const code = await main(argv);
process.exitCode = code;
// Stray handles (a keep-alive socket, a dying MCP child) must not keep a finished run alive.
setTimeout(() => process.exit(code), 200).unref();
