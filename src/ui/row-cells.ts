import { NARROW_RANGES } from "string-width";
import { Styles } from "./wrap-styled.js";

/**
 * A row of one-column characters read as cells, so two rows can be compared column by column: a
 * dashboard row is several panes side by side, and when one pane scrolls the others keep their
 * columns. Writing from the first to the last changed column rewrote every pane between them;
 * writing each changed stretch on its own skips them.
 */
export interface Cells {
  /** The character of each column. */
  readonly chars: string;
  /** The styles each column is drawn in (Styles.reopen of the SGR state there). */
  readonly styles: readonly string[];
  /** Where each column's character is in the text (one code unit each). */
  readonly at: readonly number[];
}

const ESC = "\u001B";
const SGR = /\u001B\[[0-9;]*m/y;

/**
 * Code units that take one column and never join a neighbour: printable ASCII and the set
 * patches/string-width counts without walking graphemes (box drawing, blocks, braille,
 * punctuation, arrows, ✓ and ✗…; a test checks each against the grapheme walk).
 */
const ONE_COLUMN = (() => {
  const table = new Uint8Array(0x10000);
  table.fill(1, 0x20, 0x7f);
  for (const [from, to] of NARROW_RANGES) table.fill(1, from, to + 1);
  return table;
})();

/**
 * Whether every character of `text` (no escapes in it) takes one column and stands alone, so its
 * width is its length: the dashboard's rows are nearly all ASCII and border symbols.
 */
export function oneColumnEach(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (ONE_COLUMN[text.charCodeAt(i)] !== 1) return false;
  return true;
}

/**
 * The cells of a row, or null when the row holds anything a column cannot stand for on its own: a
 * wide or combining character, a link, an escape other than a style orca models.
 */
export function cellsOf(text: string): Cells | null {
  const styles: string[] = [];
  const at: number[] = [];
  let chars = "";
  const state = new Styles();
  let style = "";
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    if (code === 0x1b) {
      SGR.lastIndex = i;
      const match = SGR.exec(text);
      if (!match) return null;
      state.apply(match[0]);
      if (state.unknown) return null;
      style = state.reopen();
      i += match[0].length;
      continue;
    }
    if (ONE_COLUMN[code] !== 1) return null;
    at.push(i);
    styles.push(style);
    chars += text[i];
    i++;
  }
  return { chars, styles, at };
}

/** Whether column `c` shows nothing: past the row's end, or an unstyled space (a blank past one row's end matches it). */
function blankAt(cells: Cells, c: number): boolean {
  return cells.chars.length <= c || (cells.chars[c] === " " && cells.styles[c] === "");
}

/** Unchanged columns between two changed stretches cost less to rewrite than a new cursor move and style, up to this many. */
const GAP = 12;

/**
 * The changed stretches of a row, [from, to) column pairs, given the cells on screen and the new
 * ones; past either row's end a column is blank. Stretches closer than GAP are joined.
 */
export function changedStretches(before: Cells, now: Cells): [number, number][] {
  const columns = Math.max(before.chars.length, now.chars.length);
  const out: [number, number][] = [];
  let from = -1;
  let lastChanged = -1;
  for (let c = 0; c < columns; c++) {
    const same = before.chars[c] === now.chars[c] && before.styles[c] === now.styles[c];
    if (same || (blankAt(before, c) && blankAt(now, c))) continue;
    if (from !== -1 && c - lastChanged > GAP) {
      out.push([from, lastChanged + 1]);
      from = -1;
    }
    if (from === -1) from = c;
    lastChanged = c;
  }
  if (from !== -1) out.push([from, lastChanged + 1]);
  return out;
}

/**
 * The cells of the rows of this frame and the last: a changed row's text on screen is the text it
 * was given as new one frame before, so each is read once.
 */
export class CellsByFrame {
  private last = new Map<string, Cells | null>();
  private current = new Map<string, Cells | null>();

  /** A property, not a method, so the frame diff can hand it on as the reader of rows. */
  readonly of = (text: string): Cells | null => {
    // A row that cannot be read as cells is remembered as null, so it is not read again either.
    let cells = this.current.get(text);
    if (cells === undefined) cells = this.last.get(text);
    if (cells === undefined) cells = cellsOf(text);
    this.current.set(text, cells);
    return cells;
  };

  /** The frame is written: what it read is what the next frame's rows are compared with. */
  endFrame(): void {
    this.last = this.current;
    this.current = new Map();
  }
}

/**
 * The bytes that turn row `row` from `before` into `now` stretch by stretch, or null when either
 * row cannot be read as cells. Each stretch is addressed, opened in its styles and closed; a
 * stretch that reaches past the new row's end erases the rest of the line.
 */
export function rewriteByCells(row: number, before: string, now: string, read: (text: string) => Cells | null = cellsOf): string | null {
  const old = read(before);
  const next = old && read(now);
  if (!old || !next) return null;
  let out = "";
  for (const [from, to] of changedStretches(old, next)) {
    const move = `${ESC}[${row + 1};${from + 1}H`;
    if (from >= next.chars.length) return `${out}${move}${ESC}[0m${ESC}[K`;
    const end = Math.min(to, next.chars.length);
    // Up to the stretch's last character: a style change after it would be reset at once.
    out += `${move}${ESC}[0m${next.styles[from]}${now.slice(next.at[from], next.at[end - 1]! + 1)}${ESC}[0m`;
    if (to > next.chars.length) return `${out}${ESC}[K`;
  }
  return out;
}
