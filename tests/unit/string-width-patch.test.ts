import fc from "fast-check";
import stringWidth, { NARROW_RANGES, stringWidthBySegments } from "string-width";
import { describe, expect, it } from "vitest";

const ESC = "\u001B";
/**
 * The ranges patches/string-width+8.3.0.patch counts without walking graphemes: printable ASCII
 * and the dashboard's one-column symbols (the frame diff's own fast path, src/ui/row-cells.ts,
 * reads the same set).
 */
const FAST: readonly (readonly [number, number])[] = [[0x20, 0x7e], ...NARROW_RANGES];

describe("string-width (patched): the fast path for ASCII and one-column symbols", () => {
  it("counts every code point of the fast set as the grapheme walk does, ambiguous narrow or wide", () => {
    const differ: string[] = [];
    for (const [from, to] of FAST) {
      for (let code = from; code <= to; code++) {
        const ch = String.fromCodePoint(code);
        for (const ambiguousIsNarrow of [true, false]) {
          if (stringWidth(ch, { ambiguousIsNarrow }) !== stringWidthBySegments(ch, { ambiguousIsNarrow })) differ.push(`${code.toString(16)}:${ambiguousIsNarrow}`);
        }
      }
    }
    expect(differ).toEqual([]);
  });

  it("agrees with the grapheme walk on mixed text: symbols next to combining marks, emoji, wide characters and escapes", () => {
    const piece = fc.oneof(
      fc.constantFrom("a", " ", "~", "token 12", "│", "─", "╭", "⠼", "…", "•", "→", "·", "✓", "✗", "█", "↳", "⚙", "⚠", "›", "≥", "◌", "‼"),
      fc.constantFrom("日", "\u0301", "\uFE0F", "\u20E3", "✅", "◽", "👍🏽", "\u200D", "é", "\u00AD", "\t", "\u200B", "\u2060"),
      fc.constantFrom(`${ESC}[1m`, `${ESC}[0m`, `${ESC}[38;5;33m`, `${ESC}[m`, `${ESC}]8;;https://x.dev\u0007`),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.boolean(), fc.boolean(), (pieces, ambiguousIsNarrow, countAnsiEscapeCodes) => {
        const text = pieces.join("");
        expect(stringWidth(text, { ambiguousIsNarrow, countAnsiEscapeCodes })).toBe(stringWidthBySegments(text, { ambiguousIsNarrow, countAnsiEscapeCodes }));
      }),
      { numRuns: 3000 },
    );
  });

  it("walks graphemes as before once its segmenter and regexes are made on first use: emoji, wide, combining, zero-width", () => {
    const widths = ["👍🏽", "日本", "e\u0301", "\u200B", "a\tb", "👨\u200D👩\u200D👧", "１２", "ｶﾞ", "✅x"].map((s) => stringWidthBySegments(s));
    expect(widths).toEqual([2, 4, 1, 0, 2, 2, 4, 2, 3]);
  });
});
