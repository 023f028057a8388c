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
