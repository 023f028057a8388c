// Loaded with --import into each orca `bench mcp-start` runs: the process's own CPU (all its
// threads, µs) from its start to the first request's body handed to the socket, as Node's HTTP
// client reports it. Written at exit to the file ORCA_BENCH_FIRST_CPU names, one number a line.
import dc from "node:diagnostics_channel";
import fs from "node:fs";

let first;
dc.subscribe("undici:request:bodySent", () => {
  if (first !== undefined) return;
  const { user, system } = process.cpuUsage();
  first = user + system;
});
process.on("exit", () => {
  if (first !== undefined && process.env.ORCA_BENCH_FIRST_CPU) fs.appendFileSync(process.env.ORCA_BENCH_FIRST_CPU, `${first}\n`);
});
