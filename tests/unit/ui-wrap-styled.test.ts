import chalk from "chalk";
import fc from "fast-check";
import stringWidth from "string-width";
import stripAnsi from "strip-ansi";
import { describe, expect, it } from "vitest";
import { textWidth, wrapStyled } from "../../src/ui/wrap-styled.js";

chalk.level = 1;

const word = fc.oneof(fc.stringMatching(/^[a-z]{1,12}$/), fc.constantFrom("日本語", "héllo", "🙂ok", "x".repeat(30)));
const styled = fc.tuple(word, fc.constantFrom("plain", "bold", "yellow", "link")).map(([w, style]) =>
  style === "bold" ? chalk.bold(w) : style === "yellow" ? chalk.yellow(w) : style === "link" ? `\u001B]8;;https://x.y\u0007${w}\u001B]8;;\u0007` : w,
);

describe("wrapStyled", () => {
  it("keeps every row within the width and every word in order; styles never leak past a row", () => {
    fc.assert(
      fc.property(fc.array(styled, { minLength: 1, maxLength: 25 }), fc.integer({ min: 4, max: 40 }), (words, width) => {
        const text = words.join(" ");
        const rows = wrapStyled(text, width);
        for (const r of rows) expect(stringWidth(r)).toBeLessThanOrEqual(width);
        const visible = (s: string) => stripAnsi(s).replace(/\u001B\]8;;[^\u0007]*\u0007/g, "").replace(/\s+/g, "");
        expect(rows.map(visible).join("")).toBe(visible(text));
        for (const r of rows) {
          const opens = (r.match(/\u001B\]8;;https/g) ?? []).length;
          const closes = (r.match(/\u001B\]8;;\u0007/g) ?? []).length;
          expect(closes).toBeGreaterThanOrEqual(opens);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("measures styled text by what shows", () => {
    expect(textWidth(chalk.bold("abc"))).toBe(3);
    expect(textWidth("日本")).toBe(4);
    expect(wrapStyled(`${chalk.bold("aaaa bbbb")} cccc`, 6)).toEqual(["\u001B[1maaaa\u001B[0m", "\u001B[1mbbbb\u001B[22m", "cccc"]);
  });
});
