// Loaded with --import into each process `bench step` runs (orca, a baseline, the SDK floor): the
// CPU the process spends in each step, from the end of a response to the next request's body
// handed to the socket, as Node's HTTP client reports both (its diagnostics channels), with the
// process's own CPU clock (all its threads), in µs — what a wait for a core does not stretch. The
// step ends when the body is sent, not when the request is made: sending the body (copying it,
// streaming it to the socket) is work that grows with the history, and the server sees the request
// only once it is done. Written at exit to the file ORCA_BENCH_STEP_CPU names, one JSON array a process.
import dc from "node:diagnostics_channel";
import fs from "node:fs";

const marks = [];
const mark = (kind) => {
  const { user, system } = process.cpuUsage();
  marks.push([kind, user + system]);
};
dc.subscribe("undici:request:bodySent", () => mark("body sent"));
dc.subscribe("undici:request:trailers", () => mark("response end"));
process.on("exit", () => {
  const steps = [];
  for (let i = 0; i + 1 < marks.length; i++) if (marks[i][0] === "response end" && marks[i + 1][0] === "body sent") steps.push(marks[i + 1][1] - marks[i][1]);
  if (process.env.ORCA_BENCH_STEP_CPU) fs.appendFileSync(process.env.ORCA_BENCH_STEP_CPU, `${JSON.stringify(steps)}\n`);
});
