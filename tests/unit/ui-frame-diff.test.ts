import fc from "fast-check";
// The grapheme walk itself: string-width's own fast path (patches/string-width+8.3.0.patch) is not the reference.
import { NARROW_RANGES, stringWidthBySegments as stringWidth } from "string-width";
import { describe, expect, it, vi } from "vitest";
import { FrameDiff, compactStyles, diffingStdout, rowWidth } from "../../src/ui/frame-diff.js";
import { Screen as Terminal } from "../fixtures/screen.js";

const ESC = "\u001B";
const ROWS = 8;
const COLUMNS = 60;

class Screen extends Terminal {
  constructor() {
    super(ROWS, COLUMNS);
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
  fc.constantFrom("│", "ok").map((w) => `${ESC}[32m${w}${ESC}[39m`),
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

  it("scrolls a band of rows that moved up instead of rewriting it, and leaves the screen a full redraw leaves", () => {
    const TALL = 16;
    const whole = (frame: string) => {
      const screen = new Terminal(TALL, COLUMNS);
      frame.split("\n").forEach((row, i) => screen.write(`${ESC}[${i + 1};1H${row}${ESC}[0m`));
      return screen.text();
    };
    const line = fc.array(piece, { minLength: 4, maxLength: 10 }).map((parts) => parts.join("")).filter((r) => stringWidth(r) <= COLUMNS);
    const step = fc.record({ by: fc.integer({ min: 0, max: 4 }), title: fc.boolean(), edit: fc.option(fc.record({ at: fc.nat(TALL - 1), text: line })) });
    let scrolls = 0;
    fc.assert(
      fc.property(fc.array(line, { minLength: TALL * 3, maxLength: TALL * 3 }), fc.array(step, { minLength: 1, maxLength: 8 }), (lines, steps) => {
        const diff = new FrameDiff();
        const screen = new Terminal(TALL, COLUMNS);
        let offset = 0;
        for (const { by, title, edit } of steps) {
          offset += by;
          // A title row that stays or changes, a body of streaming lines, a footer.
          const rows = [title ? "title" : `${ESC}[1mtitle${ESC}[22m`, ...lines.slice(offset, offset + TALL - 2), "footer"];
          if (edit) rows[edit.at] = edit.text;
          const frame = rows.join("\n");
          const out = diff.next(frame);
          if (out.includes(`${ESC}[r`)) scrolls++;
          screen.write(out);
          expect(screen.text()).toBe(whole(frame));
        }
      }),
      { numRuns: 400 },
    );
    expect(scrolls).toBeGreaterThan(100);
  });

  it("keeps the screen right across repaints, with rows as wide as the screen whose trailing styles alone change", () => {
    const border = `${ESC}[36m│${ESC}[39m`;
    const fullRow = fc
      .tuple(rowText, fc.constantFrom("", `${ESC}[31m${ESC}[39m`, `${ESC}[1m${ESC}[22m`))
      .map(([text, tail]) => `${border}${text}${" ".repeat(Math.max(0, COLUMNS - 2 - stringWidth(text)))}${border}${tail}`)
      .filter((row) => stringWidth(row) === COLUMNS);
    const frame = fc.array(fc.oneof(rowText, fullRow), { minLength: 1, maxLength: ROWS }).map((rows) => rows.join("\n"));
    const step = fc.oneof(
      frame.map((f) => ({ frame: f })),
      fc.constant({ repaint: true as const }),
    );
    fc.assert(
      fc.property(frame, fc.array(step, { maxLength: 10 }), (first, steps) => {
        const diff = new FrameDiff();
        const screen = new Screen();
        let last = first;
        screen.write(diff.next(first));
        for (const s of steps) {
          if ("repaint" in s) screen.write(diff.repaint());
          else screen.write(diff.next((last = s.frame)));
          expect(screen.text()).toBe(drawnWhole(last));
        }
      }),
      { numRuns: 500 },
    );
  });

  it("after a repaint, the same frame from Ink writes nothing", () => {
    const diff = new FrameDiff();
    const frame = `${ESC}[36m│${ESC}[39m${ESC}[32mok${ESC}[39m │\nplain`;
    diff.next(frame);
    expect(diff.repaint()).toContain("ok");
    expect(diff.next(frame)).toBe("");
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

describe("compactStyles", () => {
  it("joins neighbouring pieces of one colour", () => {
    const border = `${ESC}[90m│${ESC}[39m`;
    expect(compactStyles(`${border}${border}${border} x ${border}`)).toBe(`${ESC}[90m│││${ESC}[39m x ${ESC}[90m│${ESC}[39m`);
    expect(compactStyles(`${ESC}[31ma${ESC}[39m${ESC}[32mb${ESC}[39m`)).toBe(`${ESC}[31ma${ESC}[32mb${ESC}[39m`);
  });

  it("leaves the screen as the original text does", () => {
    fc.assert(
      fc.property(rowText, (row) => {
        const original = new Screen();
        original.write(`${ESC}[1;1H${row}${ESC}[0m`);
        const compacted = new Screen();
        const out = compactStyles(`${ESC}[1;1H${row}${ESC}[0m`);
        compacted.write(out);
        expect(compacted.text()).toBe(original.text());
        expect(out.length).toBeLessThanOrEqual(row.length + 10);
      }),
      { numRuns: 1000 },
    );
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
    // Each frame leaves in one write, its brackets around it.
    expect(written.slice(2)).toEqual([`${ESC}[?2026h${ESC}[2;1HB${ESC}[0m${ESC}[K${ESC}[?2026l`]);
    // A frame that changes nothing writes nothing.
    frame("a\nB\nc", 4);
    expect(written).toHaveLength(3);
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

  it("repaints only once no frame came for the whole wait, with one timer however many frames come", () => {
    vi.useFakeTimers();
    try {
      const { stream, written } = fakeTty();
      const out = diffingStdout(stream, {}, 50);
      const frame = (text: string): void => {
        out.stream.write(`${ESC}[?2026h`);
        out.stream.write(text);
        out.stream.write(`${ESC}[?2026l`);
      };
      frame("a\n");
      vi.advanceTimersByTime(40);
      frame("b\n");
      expect(vi.getTimerCount()).toBe(1);
      // 80 ms since the first frame, 40 since the last: not still yet.
      vi.advanceTimersByTime(40);
      expect(written).toHaveLength(2);
      vi.advanceTimersByTime(10);
      expect(written).toHaveLength(3);
      expect(written[2]).toContain("b");
      expect(vi.getTimerCount()).toBe(0);
      out.dispose();
    } finally {
      vi.useRealTimers();
    }
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
    await vi.waitFor(() => expect(written.length).toBe(count + 2));
    expect(written.slice(count + 1).join("")).toContain("z");
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
    for (const [from, to] of NARROW_RANGES) {
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
