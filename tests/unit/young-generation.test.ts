import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MODULE = fileURLToPath(new URL("../../dist/ui/young-generation.js", import.meta.url));

/** Committed young-generation MB in a fresh process after an allocation-heavy loop that keeps some survivors (as a streaming dashboard does). */
function youngAfterStream(keepSmall: boolean): number {
  const script = `
    const { keepYoungGenerationSmall } = await import(${JSON.stringify(MODULE)});
    if (${keepSmall}) keepYoungGenerationSmall();
    const v8 = await import("node:v8");
    let rows = [];
    for (let i = 0; i < 2e6; i++) { rows.push({ n: i, text: "token " + i }); if (rows.length > 2000) rows = []; }
    const young = v8.getHeapSpaceStatistics().filter((s) => s.space_name.startsWith("new_")).reduce((a, s) => a + s.space_size, 0);
    process.stdout.write(String(young / 1e6));`;
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  if (out.status !== 0) throw new Error(out.stderr);
  return Number(out.stdout);
}

describe("the dashboard's young generation", () => {
  it("stays at its starting size under a stream's allocation, where V8 alone grows it to its maximum", () => {
    expect(youngAfterStream(false)).toBeGreaterThan(16);
    expect(youngAfterStream(true)).toBeLessThan(5);
  });
});
