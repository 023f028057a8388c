import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cellsOf, changedStretches, rewriteByCells } from "../../src/ui/row-cells.js";
import { Screen } from "../fixtures/screen.js";

const ESC = "\u001B";
const COLUMNS = 60;

/** A row as a full redraw writes it, then `extra` on top. */
function drawn(row: string, extra = ""): string {
  const screen = new Screen(1, COLUMNS);
  screen.write(`${ESC}[1;1H${row}${ESC}[0m${ESC}[K${extra}`);
  return screen.text();
}

const word = fc.constantFrom("a", "token", " ", "   ", "12", "│", "─", "·", "⠼", "…", "→", "✓");
const styled = fc.oneof(
  word,
  word.map((w) => `${ESC}[1m${w}${ESC}[22m`),
  word.map((w) => `${ESC}[31m${w}${ESC}[39m`),
  word.map((w) => `${ESC}[90m${w}${ESC}[39m`),
  // A style left open to the row's end, as a compacted row may.
  word.map((w) => `${ESC}[36m${w}`),
);
/** A pane: a border and its text, padded to its width, as Ink joins panes side by side. */
const pane = fc.array(styled, { maxLength: 4 }).map((parts) => {
  const text = parts.join("");
  const width = text.replace(/\u001B\[[0-9;]*m/g, "").length;
  return `${ESC}[90m│${ESC}[39m${text}${ESC}[0m${" ".repeat(Math.max(0, 14 - width))}`;
});
const row = fc
  .array(pane, { minLength: 1, maxLength: 4 })
  .map((panes) => panes.join("").trimEnd())
  .filter((r) => (cellsOf(r)?.chars.length ?? COLUMNS + 1) <= COLUMNS);

describe("rows compared column by column", () => {
  it("leave the screen a full redraw of the new row leaves", () => {
    fc.assert(
      fc.property(row, row, (before, now) => {
        const bytes = rewriteByCells(0, before, now);
        expect(bytes).not.toBeNull();
        expect(drawn(before, bytes!)).toBe(drawn(now));
      }),
      { numRuns: 3000 },
    );
  });

  it("also when one pane of several changes, and when rows end in the last column", () => {
    const full = (fill: string) => `${ESC}[90m│${ESC}[39m${fill.repeat(COLUMNS - 2)}${ESC}[90m│${ESC}[39m`;
    for (const [before, now] of [
      [full("a"), full("b")],
      [full("a"), "short"],
      ["short", full("x")],
      [`${ESC}[90m│${ESC}[39m${"a".repeat(40)}`, full("a")],
      [full("a"), `${ESC}[90m│${ESC}[39m${"a".repeat(40)}`],
    ] as const) {
      expect(drawn(before, rewriteByCells(0, before, now)!)).toBe(drawn(now));
    }
  });

  it("skip a pane that did not change between two that did", () => {
    const panes = (a: string, b: string, c: string) => `│${a.padEnd(18)}│${b.padEnd(18)}│${c.padEnd(18)}│`;
    const before = panes("left 1", "middle stays put", "right 1");
    const now = panes("left 2", "middle stays put", "right 2");
    const bytes = rewriteByCells(4, before, now)!;
    expect(bytes).not.toContain("middle");
    expect(bytes).toBe(`${ESC}[5;7H${ESC}[0m2${ESC}[0m${ESC}[5;46H${ESC}[0m2${ESC}[0m`);
    expect(changedStretches(cellsOf(before)!, cellsOf(now)!)).toEqual([
      [6, 7],
      [45, 46],
    ]);
  });

  it("joins stretches a few columns apart: a cursor move costs more than rewriting them", () => {
    expect(changedStretches(cellsOf("abcdefgh")!, cellsOf("xbcdefgy")!)).toEqual([[0, 8]]);
  });

  it("declines rows a column cannot stand for: wide and combining characters, links, unknown escapes", () => {
    for (const text of ["東京", "e\u0301", "🎉", `${ESC}]8;;https://x.dev\u0007x`, `${ESC}[2Jx`, `${ESC}[38;5mx`]) expect(cellsOf(text)).toBeNull();
    expect(rewriteByCells(0, "plain", "東京")).toBeNull();
  });
});
