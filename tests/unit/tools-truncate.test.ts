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
});
