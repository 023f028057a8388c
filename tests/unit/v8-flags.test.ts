/**
 * bin/v8-flags.js, set at run time as the bin sets them: WebAssembly stays on V8's baseline
 * compiler. On Node 24 `--liftoff-only` alone did not do it (V8 applies a flag's implications only
 * at start), and the optimising compiler's memory put ~15 MB on every run's peak (bench/fanout.ts).
 * CI runs this on Node 20 and 24.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const FIXTURE = fileURLToPath(new URL("../fixtures/wasm-tier.mjs", import.meta.url));
const FIRST_GC = fileURLToPath(new URL("../fixtures/first-gc.mjs", import.meta.url));
const tiers = (...args: string[]): { liftoff: boolean; turbofan: boolean } =>
  JSON.parse(execFileSync(process.execPath, ["--allow-natives-syntax", FIXTURE, ...args], { encoding: "utf8" })) as { liftoff: boolean; turbofan: boolean };

describe("the bin's V8 flags", () => {
  it("without them, a hot WebAssembly function is optimised (the check below can fail)", () => {
    expect(tiers()).toEqual({ liftoff: false, turbofan: true });
  }, 60_000);

  it("with them, set at run time, the same function stays on the baseline compiler", () => {
    expect(tiers("flags")).toEqual({ liftoff: true, turbofan: false });
  }, 60_000);
});

/** V8's trace of the fixture's full GCs, in order: each one marked incrementally or in one pause. */
function fullGcs(): Array<"incremental" | "atomic"> {
  const trace = execFileSync(process.execPath, ["--trace-gc", FIRST_GC], { encoding: "utf8" });
  expect(trace).toMatch(/full GCs: [3-9]/);
  // "(+ 1.2 ms in 9 steps since start of marking, …)": the marking before the pause was incremental.
  return trace
    .split("\n")
    .filter((line) => line.includes("Mark-Compact"))
    .map((line) => (/ steps since start of marking/.test(line) ? "incremental" : "atomic"));
}

describe("the first full GC, deferred (deferFirstFullGc)", () => {
  it("comes in one pause when the heap needs it, and V8 marks incrementally again from the next one on", () => {
    const gcs = fullGcs();
    expect(gcs[0]).toBe("atomic");
    expect(gcs.slice(1)).toContain("incremental");
  }, 60_000);
});
