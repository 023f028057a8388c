import fc from "fast-check";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
// Ink's output stage as patched by patches/ink+6.8.0.patch (not part of Ink's public exports).
import Output from "../../node_modules/ink/build/output.js";
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
