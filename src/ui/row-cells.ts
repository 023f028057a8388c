import { NARROW_RANGES } from "string-width";
import { Styles } from "./wrap-styled.js";

/**
 * A row of one-column characters read as cells, so two rows can be compared column by column: a
 * dashboard row is several panes side by side, and when one pane scrolls the others keep their
 * columns. Writing from the first to the last changed column rewrote every pane between them;
 * writing each changed stretch on its own skips them.
 *
 * The styles are kept by run (the characters between two escapes), not by column: a row is read
 * for every row that changes in every frame, and arrays of a string and an index per column were
 * most of what the frame diff allocated.
 */
export interface Cells {
  /** The character of each column. */
  readonly chars: string;
  /** Each run's first column (ascending, the first 0 when the row has characters). */
  readonly runColumn: readonly number[];
  /** The styles each run is drawn in (Styles.reopen of the SGR state there). */
  readonly runStyle: readonly string[];
  /** Where each run's first character is in the text (one code unit a column within a run). */
  readonly runAt: readonly number[];
}

const ESC = "\u001B";

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
 * The style after an SGR sequence, by the style before it: a frame's rows repeat the same few
 * transitions (a border's colour on and off), and reading each sequence anew (Styles.apply, then
 * reopen) was most of reading a row. The reopened style stands for the whole state (each code it
 * holds belongs to one attribute), so it is a sound key. Null: a code orca does not model.
 * Bounded: cleared when it holds more than TRANSITIONS_KEPT.
 */
const SGR_ALL = /\u001B\[[0-9;]*m/g;
const transitions = new Map<string, Map<string, string | null>>();
const TRANSITIONS_KEPT = 4096;
let transitionCount = 0;

function styleAfter(style: string, seq: string): string | null {
  let from = transitions.get(style);
  const hit = from?.get(seq);
  if (hit !== undefined) return hit;
  const state = new Styles();
  for (const code of style.match(SGR_ALL) ?? []) state.apply(code);
  state.apply(seq);
  const next = state.unknown ? null : state.reopen();
  if (++transitionCount > TRANSITIONS_KEPT) {
    transitions.clear();
    transitionCount = 1;
    from = undefined;
  }
  if (!from) transitions.set(style, (from = new Map()));
  from.set(seq, next);
  return next;
}

/** The end of the SGR sequence (ESC [ digits and semicolons m) at `i`, or -1. */
function sgrEnd(text: string, i: number): number {
  if (text.charCodeAt(i + 1) !== 0x5b) return -1;
  let j = i + 2;
  for (let code = text.charCodeAt(j); (code >= 0x30 && code <= 0x39) || code === 0x3b; code = text.charCodeAt(++j));
  return text.charCodeAt(j) === 0x6d ? j + 1 : -1;
}

/**
 * The cells of a row, or null when the row holds anything a column cannot stand for on its own: a
 * wide or combining character, a link, an escape other than a style orca models.
 */
export function cellsOf(text: string): Cells | null {
  const runColumn: number[] = [];
  const runStyle: string[] = [];
  const runAt: number[] = [];
  let chars = "";
  let style = "";
  for (let i = 0; i < text.length; ) {
    if (text.charCodeAt(i) === 0x1b) {
      const end = sgrEnd(text, i);
      if (end < 0) return null;
      const next = styleAfter(style, text.slice(i, end));
      if (next === null) return null;
      style = next;
      i = end;
      continue;
    }
    let j = i;
    for (let code = text.charCodeAt(j); j < text.length && code !== 0x1b; code = text.charCodeAt(++j)) if (ONE_COLUMN[code] !== 1) return null;
    runColumn.push(chars.length);
    runStyle.push(style);
    runAt.push(i);
    chars += text.slice(i, j);
    i = j;
  }
  return { chars, runColumn, runStyle, runAt };
}

/** The run that holds column `c` (< chars.length), looked for from run `k` on. */
function runFrom(cells: Cells, c: number, k: number): number {
  while (k + 1 < cells.runColumn.length && cells.runColumn[k + 1]! <= c) k++;
  return k;
}

/** The run that holds column `c` (< chars.length). */
function runOf(cells: Cells, c: number): number {
  return runFrom(cells, c, 0);
}

/** Where column `c` (< chars.length) is in the row's text. */
function textIndex(cells: Cells, c: number): number {
  const k = runOf(cells, c);
  return cells.runAt[k]! + c - cells.runColumn[k]!;
}

/** Unchanged columns between two changed stretches cost less to rewrite than a new cursor move and style, up to this many. */
const GAP = 12;
const SPACE = 0x20;

/**
 * The changed stretches of a row, [from, to) column pairs, given the cells on screen and the new
 * ones; past either row's end a column is blank (as is an unstyled space). Stretches closer than
 * GAP are joined.
 */
export function changedStretches(before: Cells, now: Cells): [number, number][] {
  const a = before.chars;
  const b = now.chars;
  const columns = Math.max(a.length, b.length);
  const out: [number, number][] = [];
  let from = -1;
  let lastChanged = -1;
  let ka = 0;
  let kb = 0;
  for (let c = 0; c < columns; c++) {
    // Past a row's end its style is undefined, as a column's style past the end of an array was.
    let styleA: string | undefined;
    let styleB: string | undefined;
    if (c < a.length) styleA = before.runStyle[(ka = runFrom(before, c, ka))];
    if (c < b.length) styleB = now.runStyle[(kb = runFrom(now, c, kb))];
    const charA = a.charCodeAt(c);
    const charB = b.charCodeAt(c);
    if (charA === charB && styleA === styleB) continue;
    const blankA = c >= a.length || (charA === SPACE && styleA === "");
    const blankB = c >= b.length || (charB === SPACE && styleB === "");
    if (blankA && blankB) continue;
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
    out += `${move}${ESC}[0m${next.runStyle[runOf(next, from)]}${now.slice(textIndex(next, from), textIndex(next, end - 1) + 1)}${ESC}[0m`;
    if (to > next.chars.length) return `${out}${ESC}[K`;
  }
  return out;
}
