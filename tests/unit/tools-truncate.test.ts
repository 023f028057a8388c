import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bpeTokenCounter } from "../../src/model/token-counter.js";
import { truncateHeadTail as truncateWith, type NoticeFn } from "../../src/tools/truncate.js";

const counter = bpeTokenCounter();
const tokenCount = (text: string) => counter.count(text);
const truncateHeadTail = (text: string, maxTokens: number, notice?: NoticeFn) => truncateWith(text, maxTokens, counter, notice);

const textArb = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: "grapheme", maxLength: 30 }),
      fc.string({ unit: "binary", maxLength: 20 }),
      fc.constantFrom("", "<|endoftext|>", "    indented();", "\t\t", "a".repeat(300), "ü€😀".repeat(40), "\ud800 lone", "acgt".repeat(200)),
    ),
    { maxLength: 80 },
  )
  .map((lines) => lines.join("\n"));

describe("truncateHeadTail", () => {
  it("keeps a prefix and a suffix within the budget, plus only the notice line", () => {
    fc.assert(
      fc.property(textArb, fc.integer({ min: 0, max: 120 }), (text, maxTokens) => {
        const cut = truncateHeadTail(text, maxTokens);
        if (!cut.truncated) {
          expect(cut.text).toBe(text);
          expect(tokenCount(text)).toBeLessThanOrEqual(maxTokens);
          return;
        }
        expect(text.startsWith(cut.head)).toBe(true);
        expect(text.endsWith(cut.tail)).toBe(true);
        expect(cut.head.length + cut.tail.length).toBeLessThan(text.length);
        expect(tokenCount(cut.head) + tokenCount(cut.tail)).toBeLessThanOrEqual(maxTokens);
        const joiner = cut.head === "" || cut.head.endsWith("\n") ? "" : "\n";
        expect(cut.text).toBe(`${cut.head}${joiner}${cut.notice}\n${cut.tail}`);
        // The notice line and its two line breaks are the only overhead.
        expect(tokenCount(cut.text)).toBeLessThanOrEqual(maxTokens + tokenCount(`\n${cut.notice}\n`) + 2);
        expect(cut.omittedChars).toBe(text.length - cut.head.length - cut.tail.length);
      }),
      { numRuns: 300 },
    );
  });

  it("leaves text within the budget alone", () => {
    const text = "one\ntwo\nthree\n";
    expect(truncateHeadTail(text, 1000)).toMatchObject({ text, truncated: false, omittedLines: 0 });
  });

  it("keeps whole lines from both ends and counts the omitted ones", () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`);
    const cut = truncateHeadTail(lines.join("\n"), 200);
    expect(cut.truncated).toBe(true);
    const headLines = cut.head.split("\n").filter(Boolean);
    const tailLines = cut.tail.split("\n").filter(Boolean);
    expect(headLines[0]).toBe("line 1");
    expect(tailLines[tailLines.length - 1]).toBe("line 1000");
    expect(cut.omittedLines).toBe(1000 - headLines.length - tailLines.length);
    expect(cut.firstOmittedLine).toBe(headLines.length + 1);
    expect(cut.text).toContain(`${cut.omittedLines} lines`);
  });

  it("cuts inside a single line too long for the budget", () => {
    const line = "word ".repeat(5000);
    const cut = truncateHeadTail(line, 50);
    expect(cut.truncated).toBe(true);
    expect(cut.head.length).toBeGreaterThan(0);
    expect(cut.tail.length).toBeGreaterThan(0);
    expect(line.startsWith(cut.head)).toBe(true);
    expect(line.endsWith(cut.tail)).toBe(true);
    expect(cut.omittedLines).toBe(1);
  });

  it("uses a custom notice", () => {
    const text = Array.from({ length: 300 }, (_, i) => `row ${i}`).join("\n");
    const cut = truncateHeadTail(text, 60, (o) => `SKIPPED ${o.omittedLines} FROM ${o.firstOmittedLine}`);
    expect(cut.notice).toBe(`SKIPPED ${cut.omittedLines} FROM ${cut.firstOmittedLine}`);
    expect(cut.text).toContain(cut.notice);
  });

  it("cuts a 1 MB single line to the budget, keeping both of its ends", () => {
    let state = 11;
    const line = Array.from({ length: 1_000_000 }, () => "acgt"[((state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 16) % 4]).join("");
    const cut = truncateHeadTail(line, 8_000);
    expect(cut.truncated).toBe(true);
    expect(line.startsWith(cut.head)).toBe(true);
    expect(line.endsWith(cut.tail)).toBe(true);
    expect(tokenCount(cut.head) + tokenCount(cut.tail)).toBeLessThanOrEqual(8_000);
    // Cut by characters first: nowhere near the whole line was kept, but a fair share of the budget.
    expect(tokenCount(cut.head) + tokenCount(cut.tail)).toBeGreaterThan(4_000);
    expect(cut).toMatchObject({ omittedLines: 1, firstOmittedLine: 1, omittedChars: line.length - cut.head.length - cut.tail.length });
  });

  it("says which lines of a long output were left out, counted over the whole output", () => {
    const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i + 1}`);
    const cut = truncateHeadTail(`${lines.join("\n")}\n`, 300);
    const headLines = cut.head.split("\n").filter(Boolean);
    const tailLines = cut.tail.split("\n").filter(Boolean);
    expect(headLines[0]).toBe("line 1");
    expect(tailLines.at(-1)).toBe("line 200000");
    expect(cut.firstOmittedLine).toBe(headLines.length + 1);
    expect(cut.omittedLines).toBe(200_000 - headLines.length - tailLines.length);
    expect(tailLines[0]).toBe(`line ${200_000 - tailLines.length + 1}`);
  });
});
