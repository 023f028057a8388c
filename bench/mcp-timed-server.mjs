// The MCP server `bench mcp-start` runs: the filesystem server from node_modules, with two marks
// appended (epoch ms) to the file ORCA_BENCH_SERVER_MARKS names — when its first line of JS runs
// (the spawn, give or take Node's start) and when it has loaded and listens on stdin.
import fs from "node:fs";

const mark = (what) => fs.appendFileSync(process.env.ORCA_BENCH_SERVER_MARKS, `${what} ${performance.timeOrigin + performance.now()}\n`);
mark("started");
await import("@modelcontextprotocol/server-filesystem/dist/index.js");
mark("ready");
