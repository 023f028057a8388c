import fc from "fast-check";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
// Ink's output stage as patched by patches/ink+6.8.0.patch (not part of Ink's public exports).
import Output from "../../node_modules/ink/build/output.js";
import measureText from "../../node_modules/ink/build/measure-text.js";
import sanitizeAnsi, { sanitizeAnsiByTokens } from "../../node_modules/ink/build/sanitize-ansi.js";
import sliceAnsi from "slice-ansi";
import { Screen } from "../fixtures/screen.js";

const ESC = "\u001B";
const COLUMNS = 60;

interface Piece {
  x: number;
  line: string;
}

interface PatchedOutput {
  write(x: number, y: number, text: string, options: { transformers: ((line: string, index: number) => string)[] }): void;
  get(): { output: string; height: number };
  /** The unpatched algorithm: every piece into a grid of cells, later pieces win. */
  gridRow(pieces: Piece[]): string;
}

const newOutput = (): PatchedOutput => new (Output as unknown as new (o: { width: number; height: number }) => PatchedOutput)({ width: COLUMNS, height: 1 });

function drawn(row: string): string {
  const screen = new Screen(1, COLUMNS + 20);
  screen.write(`${ESC}[1;1H${row}${ESC}[0m`);
  return screen.text();
}

const text = fc.oneof(
  fc.constantFrom("a", "token 12", "   ", "東京", "e\u0301", "│", "╭──╮", "· x"),
  fc.constantFrom("bold", "b").map((w) => `${ESC}[1m${w}${ESC}[22m`),
  fc.constantFrom("gray", "│").map((w) => `${ESC}[90m${w}${ESC}[39m`),
  fc.constantFrom("red").map((w) => `${ESC}[31m${w}${ESC}[39m`),
  // A style left open: the padding after it must not take it.
  fc.constantFrom("open").map((w) => `${ESC}[32m${w}`),
);
const line = fc.array(text, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(""));
// `blank`: the piece is the empty last line of a taller write (as a box's side borders end).
const piece = fc.record({ x: fc.integer({ min: 0, max: COLUMNS - 1 }), line, blank: fc.boolean() });

describe("Ink's output stage (patched): rows joined as text", () => {
  it("draws the same row as the cell grid, overlapping or not", () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 6 }), (pieces) => {
        const output = newOutput();
        for (const p of pieces) output.write(p.x, 0, p.blank ? `\n${p.line}` : p.line, { transformers: [] });
        const onRow = pieces.map((p) => ({ x: p.x, line: p.blank ? "" : p.line }));
        expect(drawn(output.get().output)).toBe(drawn(output.gridRow(onRow)));
      }),
      { numRuns: 1500 },
    );
  });

  it("joins side-by-side panes without building cells, padding between them", () => {
    const output = newOutput();
    const border = `${ESC}[90m│${ESC}[39m`;
    output.write(0, 0, border, { transformers: [] });
    output.write(20, 0, border, { transformers: [] });
    output.write(1, 0, `${ESC}[1mhi${ESC}[22m there`, { transformers: [] });
    const row = output.get().output;
    expect(row).toBe(`${border}${ESC}[1mhi${ESC}[22m there${" ".repeat(11)}${border}`);
    expect(stringWidth(row)).toBe(21);
  });

  it("closes a style a piece leaves open before the padding after it", () => {
    const output = newOutput();
    output.write(0, 0, `${ESC}[32mopen`, { transformers: [] });
    output.write(10, 0, "x", { transformers: [] });
    expect(output.get().output).toBe(`${ESC}[32mopen${ESC}[0m      x`);
  });
});

describe("Ink's output stage (patched): a line inside the clip is not re-sliced", () => {
  it("draws what slicing every line drew, clipped or not", () => {
    const clipped = fc.record({ x: fc.integer({ min: 0, max: 30 }), x1: fc.integer({ min: 0, max: 30 }), x2: fc.integer({ min: 1, max: COLUMNS }), line });
    fc.assert(
      fc.property(clipped, ({ x, x1, x2, line: text }) => {
        fc.pre(x1 < x2);
        const output = newOutput() as PatchedOutput & { clip(c: { x1: number; x2: number }): void; unclip(): void };
        output.clip({ x1, x2 });
        output.write(x, 0, text, { transformers: [] });
        output.unclip();
        // What Ink did before: every line of a clipped write through slice-ansi.
        const from = x < x1 ? x1 - x : 0;
        const width = stringWidth(text);
        if (x + width < x1 || x > x2) return; // drawn nowhere, both ways
        const to = x + width > x2 ? x2 - x : width;
        const sliced = output.gridRow([{ x: Math.max(x, x1), line: sliceAnsi(text, from, to) }]);
        expect(drawn(output.get().output)).toBe(drawn(sliced));
      }),
      { numRuns: 1500 },
    );
  });
});

describe("Ink's sanitizer (patched): styled text is not tokenized", () => {
  const part = fc.oneof(
    fc.constantFrom("plain", "東京", "e\u0301", "│ x", "\u0007", "\t", ";m[", "0m"),
    fc.constantFrom("1", "22", "38;5;203", "38:2::1:2:3", "", "0;1;4").map((p) => `${ESC}[${p}m`),
    // What must still go: cursor moves, clears, private modes, C1 controls, lone and cut escapes.
    fc.constantFrom(`${ESC}[2J`, `${ESC}[?25l`, `${ESC}[1;1H`, `${ESC}[1 m`, `${ESC}[>1m`, "\u009B31m", "\u009B2J", `${ESC}7`, ESC, `${ESC}[`, `${ESC}[12`, "\u0085"),
    // Links stay, in both terminations.
    fc.constantFrom(`${ESC}]8;;https://x.dev\u0007`, `${ESC}]8;;${ESC}\\`, `${ESC}P1$r${ESC}\\`),
  );
  it("keeps and drops exactly what the tokenizer keeps and drops", () => {
    fc.assert(
      fc.property(fc.array(part, { maxLength: 8 }), (parts) => {
        const text = parts.join("");
        expect(sanitizeAnsi(text)).toBe(sanitizeAnsiByTokens(text));
      }),
      { numRuns: 3000 },
    );
  });
  it("returns SGR-only text as it is, and still strips a cursor move", () => {
    const styled = `${ESC}[1mbold${ESC}[22m ${ESC}[38;5;203mred${ESC}[39m`;
    expect(sanitizeAnsi(styled)).toBe(styled);
    expect(sanitizeAnsi(`a${ESC}[2Jb`)).toBe("ab");
  });
});

describe("Ink's text measure (patched): line widths remembered", () => {
  it("measures every text as its widest line and its line count", () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), (lines) => {
        const text = lines.join("\n");
        expect(measureText(text)).toEqual({ width: Math.max(...lines.map((l) => stringWidth(l))), height: lines.length });
      }),
      { numRuns: 500 },
    );
  });
});
