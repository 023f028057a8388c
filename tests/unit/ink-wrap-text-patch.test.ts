import { execFileSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import cliTruncate from "cli-truncate";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import wrapAnsi from "wrap-ansi";
import wrapText from "../../node_modules/ink/build/wrap-text.js";
import { ROOT } from "../fixtures/harness.js";

const MODULE = pathToFileURL(path.join(ROOT, "node_modules", "ink", "build", "wrap-text.js")).href;

/**
 * Ink's wrap cache (patches/ink+6.8.0.patch): every text drawn narrower than it is goes through it
 * on every layout, so a pane whose body or title changes each frame added a key of its whole text
 * each frame, for good (ink #986). It is bounded now, and its key no longer runs the text into the
 * width (ink #998).
 */
describe("Ink's wrapText (patched)", () => {
  it("answers as wrap-ansi and cli-truncate do, cached or not", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.integer({ min: 1, max: 30 }), fc.constantFrom("wrap", "truncate-end", "truncate-middle", "truncate-start"), (text, width, type) => {
        const position = type === "truncate-middle" ? "middle" : type === "truncate-start" ? "start" : "end";
        const direct = type === "wrap" ? wrapAnsi(text, width, { trim: false, hard: true }) : cliTruncate(text, width, { position });
        expect(wrapText(text, width, type)).toBe(direct);
        expect(wrapText(text, width, type)).toBe(direct);
      }),
    );
  });

  it("keeps a text and its width apart in the key: ('ab', 12) and ('ab1', 2) are two answers", () => {
    expect(wrapText("ab", 12, "wrap")).toBe("ab");
    expect(wrapText("ab1", 2, "wrap")).toBe("ab\n1");
  });

  it("does not keep every text it ever wrapped: 24 MB of distinct texts leave under 4 MB behind", () => {
    // A fresh process, so the heap measured after a full GC holds only what the cache kept.
    const script = `
      const { default: wrapText } = await import(${JSON.stringify(MODULE)});
      gc();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < 3000; i++) wrapText(("pane " + i + " ").padEnd(8000, String.fromCharCode(97 + (i % 26))), 80, "truncate-end");
      gc();
      console.log(process.memoryUsage().heapUsed - before);`;
    const kept = Number(execFileSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], { encoding: "utf8" }).trim());
    expect(kept).toBeLessThan(4_000_000);
  });
});
