import fc from "fast-check";
import stringWidth from "string-width";
import { describe, expect, it, vi } from "vitest";
import { FrameDiff, NARROW_SYMBOLS, diffingStdout, rowWidth } from "../../src/ui/frame-diff.js";

const ESC = "\u001B";
const ROWS = 8;
const COLUMNS = 60;

/**
 * A small terminal: cursor addressing (CUP), erase to end of line (EL), clear screen, SGR bold and
 * foreground colour (what the test's rows use), OSC ignored, wide characters take two cells and a
 * combining mark joins the cell before it. Enough to compare two ways of drawing.
 */
class Screen {
  cells: string[][] = Array.from({ length: ROWS }, () => Array.from({ length: COLUMNS }, () => " "));
  private row = 0;
  private col = 0;
  private bold = false;
  private fg = "";

  write(data: string): void {
    const escape = /\u001B(?:\[([0-9;:?]*)([@-~])|\][^\u0007\u001B]*(?:\u0007|\u001B\\))/y;
    let i = 0;
    while (i < data.length) {
      if (data[i] === ESC) {
        escape.lastIndex = i;
        const m = escape.exec(data);
        if (!m) throw new Error(`unknown escape at ${i}: ${JSON.stringify(data.slice(i, i + 10))}`);
        i += m[0].length;
        if (m[2] === "H") {
          const [r, c] = (m[1] || "1;1").split(";").map(Number);
          this.row = (r ?? 1) - 1;
          this.col = (c ?? 1) - 1;
        } else if (m[2] === "K") {
          for (let c = this.col; c < COLUMNS; c++) this.cells[this.row]![c] = " ";
        } else if (m[2] === "J") {
          this.cells = Array.from({ length: ROWS }, () => Array.from({ length: COLUMNS }, () => " "));
        } else if (m[2] === "m") {
          const code = m[1] || "0";
          if (code === "0") [this.bold, this.fg] = [false, ""];
          else if (code === "1") this.bold = true;
          else if (code === "22") this.bold = false;
          else if (code === "39") this.fg = "";
          else if (/^3[0-7]$/.test(code)) this.fg = code;
          else throw new Error(`SGR ${code} not modelled`);
        }
        continue;
      }
      const char = String.fromCodePoint(data.codePointAt(i)!);
      i += char.length;
      const width = stringWidth(char);
      if (width === 0) {
        // A combining mark: part of the character before it.
        const cell = this.cells[this.row]![this.col - 1];
        if (cell !== undefined) this.cells[this.row]![this.col - 1] = cell + char;
        continue;
      }
      const style = this.bold || this.fg ? `{${this.bold ? "b" : ""}${this.fg}}` : "";
      if (this.col < COLUMNS) this.cells[this.row]![this.col] = style + char;
      if (width === 2 && this.col + 1 < COLUMNS) this.cells[this.row]![this.col + 1] = "";
      this.col += width;
    }
  }

  text(): string {
    return this.cells.map((r) => r.join("")).join("\n");
  }
}

/** What a full redraw leaves on screen: every row written from column 1. */
function drawnWhole(frame: string): string {
  const screen = new Screen();
  frame.split("\n").forEach((row, i) => screen.write(`${ESC}[${i + 1};1H${row}${ESC}[0m`));
  return screen.text();
}

const piece = fc.oneof(
  fc.constantFrom("a", "bc", " ", "def ", "xyz", "12", "東京", "🎉", "e\u0301", "│", "·"),
  fc.constantFrom("hello", "world").map((w) => `${ESC}[1m${w}${ESC}[22m`),
  fc.constantFrom("red", "note").map((w) => `${ESC}[31m${w}${ESC}[39m`),
  fc.constant(`${ESC}]8;;https://x.dev${ESC}\\link${ESC}]8;;${ESC}\\`),
);
const rowText = fc.array(piece, { maxLength: 10 }).map((parts) => parts.join("")).filter((r) => stringWidth(r) <= COLUMNS);
const frameOf = fc.array(rowText, { minLength: 1, maxLength: ROWS }).map((rows) => rows.join("\n"));

describe("FrameDiff", () => {
  it("leaves the same screen as redrawing every frame whole, writing less", () => {
    fc.assert(
      fc.property(fc.array(frameOf, { minLength: 1, maxLength: 8 }), (frames) => {
        const diff = new FrameDiff();
        const screen = new Screen();
        for (const frame of frames) {
          const out = diff.next(frame);
          screen.write(out);
          expect(screen.text()).toBe(drawnWhole(frame));
          // Never more than writing every row whole (cursor address, row, reset, erase to end).
          const whole = frame.split("\n").reduce((n, row, i) => n + `${ESC}[${i + 1};1H${row}${ESC}[0m${ESC}[K`.length, 0);
          expect(out.length).toBeLessThanOrEqual(whole + ROWS * 12);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("writes nothing for an unchanged frame and only the changed span of a row", () => {
    const diff = new FrameDiff();
    const row = (n: string) => `│ pane one ${ESC}[1mtokens ${n}${ESC}[22m │ pane two stays the same │`;
    diff.next(`header\n${row("41")}\nfooter`);
    expect(diff.next(`header\n${row("41")}\nfooter`)).toBe("");
    const out = diff.next(`header\n${row("42")}\nfooter`);
    // Only "2" changed: it is written at its column with its style, nothing else of the row.
    expect(out).toBe(`${ESC}[2;20H${ESC}[0m${ESC}[1m2${ESC}[0m`);
  });

  it("after reset the next frame is written whole", () => {
    const diff = new FrameDiff();
    diff.next("one\ntwo");
    diff.reset();
    expect(diff.next("one\ntwo")).toBe(`${ESC}[1;1Hone${ESC}[0m${ESC}[K${ESC}[2;1Htwo${ESC}[0m${ESC}[K`);
  });
});

describe("diffingStdout", () => {
  function fakeTty() {
    const written: string[] = [];
    const stream = { isTTY: true, columns: COLUMNS, rows: ROWS, write: (chunk: string) => (written.push(chunk), true) } as unknown as NodeJS.WriteStream;
    return { stream, written };
  }

  it("turns Ink's erase-and-redraw frames into the changes, and passes the rest through", () => {
    const { stream, written } = fakeTty();
    const { stream: ink } = diffingStdout(stream, {});
    const frame = (text: string, previousRows: number) => {
      ink.write(`${ESC}[?2026h`);
      ink.write(`${`${ESC}[2K${ESC}[1A`.repeat(Math.max(0, previousRows - 1))}${previousRows ? `${ESC}[2K${ESC}[G` : ""}${text}\n`);
      ink.write(`${ESC}[?2026l`);
    };
    ink.write(`${ESC}[?25l`);
    frame("a\nb\nc", 0);
    frame("a\nB\nc", 4);
    expect(written[0]).toBe(`${ESC}[?25l`);
    expect(written.slice(4)).toEqual([`${ESC}[?2026h`, `${ESC}[2;1HB${ESC}[0m${ESC}[K`, `${ESC}[?2026l`]);
    expect(ink.columns).toBe(COLUMNS);
  });

  it("writes the last frame whole once the screen has been still, over what else reached it", async () => {
    const { stream, written } = fakeTty();
    const out = diffingStdout(stream, {}, 20);
    out.stream.write(`${ESC}[?2026h`);
    out.stream.write("a\nb\n");
    out.stream.write(`${ESC}[?2026l`);
    const before = written.length;
    await vi.waitFor(() => expect(written.length).toBe(before + 1));
    expect(written.at(-1)).toBe(`${ESC}[?2026h${ESC}[1;1Ha${ESC}[0m${ESC}[K${ESC}[2;1Hb${ESC}[0m${ESC}[K${ESC}[?2026l`);
    out.dispose();
  });

  it("repaints nothing after dispose", async () => {
    const { stream, written } = fakeTty();
    const out = diffingStdout(stream, {}, 5);
    out.stream.write(`${ESC}[?2026h`);
    out.stream.write("a\n");
    out.stream.write(`${ESC}[?2026l`);
    out.dispose();
    const count = written.length;
    // A later frame's repaint proves timers run; the disposed one never wrote.
    const other = diffingStdout(stream, {}, 5);
    other.stream.write(`${ESC}[?2026h`);
    other.stream.write("z\n");
    other.stream.write(`${ESC}[?2026l`);
    await vi.waitFor(() => expect(written.length).toBe(count + 4));
    expect(written.slice(count + 3).join("")).toContain("z");
    expect(written.slice(count).join("")).not.toContain("a");
  });

  it("is stdout itself where Ink does not bracket frames (not a TTY, or CI)", () => {
    const { stream } = fakeTty();
    const pipe = { ...stream, isTTY: false } as NodeJS.WriteStream;
    expect(diffingStdout(pipe, {}).stream).toBe(pipe);
    expect(diffingStdout(stream, { CI: "true" }).stream).toBe(stream);
    expect(diffingStdout(stream, { CI: "false" }).stream).not.toBe(stream);
  });
});

describe("rowWidth", () => {
  it("counts every symbol of its one-column set as string-width does", () => {
    const differ: string[] = [];
    for (const [from, to] of NARROW_SYMBOLS) {
      for (let code = from; code <= to; code++) if (stringWidth(String.fromCodePoint(code)) !== 1) differ.push(code.toString(16));
    }
    expect(differ).toEqual([]);
  });

  it("agrees with string-width on styled rows of ASCII, symbols, wide characters, combining marks and emoji", () => {
    const piece = fc.oneof(
      fc.constantFrom("a", " ", "~", "│", "─", "╭", "⠼", "…", "•", "→", "·", "✓", "✗", "█"),
      fc.constantFrom("日", "\u0301", "\uFE0F", "⚙", "✅", "👍🏽", "\u200D", "é", "\u00AD"),
      fc.constantFrom(`${ESC}[1m`, `${ESC}[0m`, `${ESC}[38;5;33m`, `${ESC}[m`),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join("");
        expect(rowWidth(text)).toBe(stringWidth(text));
      }),
      { numRuns: 2000 },
    );
  });
});
