// Loaded with --import into each process `bench step` runs (orca, a baseline, the SDK floor): the
// CPU the process spends in each step, from the end of a response to the start of the next
// request, as Node's HTTP client reports both (its diagnostics channels), with the process's own
// CPU clock (all its threads), in µs — what a wait for a core does not stretch. Written at exit to
// the file ORCA_BENCH_STEP_CPU names, one JSON array a process.
import dc from "node:diagnostics_channel";
import fs from "node:fs";

const marks = [];
const mark = (kind) => {
  const { user, system } = process.cpuUsage();
  marks.push([kind, user + system]);
};
dc.subscribe("undici:request:create", () => mark("request"));
dc.subscribe("undici:request:trailers", () => mark("response end"));
process.on("exit", () => {
  const steps = [];
  for (let i = 0; i + 1 < marks.length; i++) if (marks[i][0] === "response end" && marks[i + 1][0] === "request") steps.push(marks[i + 1][1] - marks[i][1]);
  if (process.env.ORCA_BENCH_STEP_CPU) fs.appendFileSync(process.env.ORCA_BENCH_STEP_CPU, `${JSON.stringify(steps)}\n`);
});
