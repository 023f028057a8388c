import stringWidth from "string-width";
import { CellsByFrame, oneColumnEach, rewriteByCells } from "./row-cells.js";
import { findScroll, scrollBytes, scrolled } from "./scroll-region.js";
import { Styles } from "./wrap-styled.js";

/**
 * The dashboard's output stage: Ink redraws the whole frame on every render (it erases the old
 * frame line by line and writes the new one, ~12 KB on a 160×48 screen). The dashboard owns the
 * alternate screen and its frame starts at the top-left, so what changed can be written in place
 * instead: each changed row is addressed absolutely, and within a row only the span that differs
 * is written when the text around it is unchanged and keeps its columns. Ink's own incremental
 * mode moves the cursor relatively and loses its place when a frame's height changes; absolute
 * addresses cannot drift.
 *
 * `diffingStdout` hands Ink a stdout whose frame writes go through a FrameDiff and leave in one
 * write with the synchronized-output brackets around them; everything else (cursor visibility)
 * passes through.
 */

const ESC = "\u001B";
export const SYNC_BEGIN = `${ESC}[?2026h`;
export const SYNC_END = `${ESC}[?2026l`;
/** What Ink writes before a frame to erase the previous one: erase line, cursor up, cursor left. */
const ERASE_PREFIX = /^(?:\u001B\[2K|\u001B\[1A|\u001B\[G)+/;
/** How long the screen stays unchanged before the last frame is written whole once more. */
const REPAINT_AFTER_MS = 1000;
/** Ink's clearTerminal: erase the screen and the scrollback, cursor home. */
const CLEAR_PREFIX = /^(?:\u001B\[2J|\u001B\[3J|\u001B\[H)+/;
/** CSI (SGR and the rest), or OSC ended by BEL or ST. */
const ESCAPE = /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B]*(?:\u0007|\u001B\\))/y;
const SGR = /\u001B\[[0-9;:]*m/g;
const RESET = `${ESC}[0m`;
/** Bands scrolled in one frame at most (each later one is looked for after the ones before). */
const MAX_SCROLLS = 4;
const ERASE_TO_END = `${ESC}[K`;

export class FrameDiff {
  /** The rows on screen as Ink wrote them (to see what changed) and as they were sent (compacted). */
  private previous: string[] = [];
  private sent: string[] = [];
  private readonly cells = new CellsByFrame();

  /** Forget what is on screen: the next frame is written whole (after a clear, a resize). */
  reset(): void {
    this.previous = [];
    this.sent = [];
  }

  /**
   * The last frame written whole again, over whatever else reached the screen since. What the
   * diff knows of the screen does not change: the next frame from Ink is compared with Ink's last.
   */
  repaint(): string {
    let out = "";
    this.sent.forEach((row, i) => (out += `${moveTo(i, 0)}${row}${RESET}${ERASE_TO_END}`));
    return out;
  }

  /** The bytes that turn the last frame on screen into `frame` (Ink's frame text, rows split by \n). */
  next(frame: string): string {
    const rows = frame.split("\n");
    if (rows.at(-1) === "") rows.pop();
    const sent: string[] = [];
    let out = "";
    // A band that moved up (a streaming pane as wide as the screen, or panes side by side that
    // moved together) is scrolled, not rewritten; another band may follow (panes stacked in two).
    for (let bands = 0; bands < MAX_SCROLLS; bands++) {
      const scroll = findScroll(this.previous, rows);
      if (!scroll) break;
      out += scrollBytes(scroll);
      this.previous = scrolled(this.previous, scroll, "");
      this.sent = scrolled(this.sent, scroll, "");
    }
    const count = Math.max(rows.length, this.previous.length);
    for (let row = 0; row < count; row++) {
      const now = rows[row] ?? "";
      if (now === this.previous[row]) {
        sent.push(this.sent[row]!);
        continue;
      }
      // Rows are compared as compacted, so the changed span is found in what was actually sent.
      const compact = compactStyles(now);
      const before = this.sent[row];
      sent.push(compact);
      out += before === undefined ? `${moveTo(row, 0)}${compact}${RESET}${ERASE_TO_END}` : changedRow(row, before, compact, this.cells);
    }
    this.previous = rows;
    this.sent = sent;
    this.cells.endFrame();
    return out;
  }
}

/** A default colour right before a colour is set: the set replaces the colour anyway. */
const REDUNDANT_DEFAULT = /\u001B\[39m(?=\u001B\[(?:3[0-7]|9[0-7]|38;[0-9;]*)m)|\u001B\[49m(?=\u001B\[(?:4[0-7]|10[0-7]|48;[0-9;]*)m)/g;
/** An SGR sequence repeated with only text between: setting the same attributes again changes nothing. */
const REPEATED_SGR = /(\u001B\[[0-9;]*m)([^\u001B]*)\1/g;

/**
 * The same output with fewer style codes. Ink draws each piece of a row (a pane's border, its text,
 * the next pane's border) in its own colour and closes it, so neighbouring pieces of one colour
 * read `ESC[90m│ESC[39mESC[90m│ESC[39m`; rows that change are sent with these dropped.
 */
export function compactStyles(text: string): string {
  if (!text.includes(ESC)) return text;
  let out = text.replace(REDUNDANT_DEFAULT, "");
  for (;;) {
    const next = out.replace(REPEATED_SGR, "$1$2");
    if (next === out) return out;
    out = next;
  }
}

/**
 * Columns a piece of a row takes. Most rows are ASCII and border symbols in SGR styles, one column
 * per character: string-width's full Unicode walk of every changed row was the diff's largest
 * cost (12 % of the dashboard's CPU in bench render, as pane borders sent every row to it).
 */
export function rowWidth(text: string): number {
  const plain = text.includes("\u001B") ? text.replace(SGR, "") : text;
  return oneColumnEach(plain) ? plain.length : stringWidth(text);
}

/** The bytes that rewrite one row from `before` to `now`: the differing span when that is safe. */
function changedRow(row: number, before: string, now: string, cells: CellsByFrame): string {
  const whole = `${moveTo(row, 0)}${now}${RESET}${ERASE_TO_END}`;
  // A hyperlink open at the cut would need re-opening: such rows are written whole.
  if (now.includes(`${ESC}]`) || before.includes(`${ESC}]`)) return whole;
  // Rows of one-column characters (nearly all of them) are compared column by column.
  const byCells = rewriteByCells(row, before, now, cells.of);
  if (byCells !== null) return byCells.length < whole.length ? byCells : whole;
  const inBefore = escapeRanges(before);
  const inNow = escapeRanges(now);
  const start = safeStart(before, now, inNow);
  // Only styles changed after the last character: nothing visible to write. (A write there
  // would address the column after the row, which a terminal clamps to the last one, and its
  // erase would take the row's last character.)
  if (onlyEscapesFrom(now, start, inNow) && onlyEscapesFrom(before, start, inBefore)) return "";
  const end = safeEnd(before, now, start, inBefore, inNow);
  const column = rowWidth(now.slice(0, start));
  const style = activeStyle(now.slice(0, start));
  if (end !== null) {
    // The rest of the row is the same text: if the changed middle keeps its width and its style
    // changes (so the rest is drawn in the same style as before), only the middle is written.
    const oldMiddle = before.slice(start, before.length - end);
    const newMiddle = now.slice(start, now.length - end);
    if (rowWidth(oldMiddle) === rowWidth(newMiddle) && sameStyling(oldMiddle, newMiddle)) {
      const span = `${moveTo(row, column)}${RESET}${style}${newMiddle}${RESET}`;
      return span.length < whole.length ? span : whole;
    }
  }
  const tail = `${moveTo(row, column)}${RESET}${style}${now.slice(start)}${RESET}${ERASE_TO_END}`;
  return tail.length < whole.length ? tail : whole;
}

/** Where each escape sequence of `text` starts and ends: [start, end) pairs, in order. */
function escapeRanges(text: string): number[] {
  const ranges: number[] = [];
  let i = text.indexOf(ESC);
  while (i !== -1) {
    ESCAPE.lastIndex = i;
    const match = ESCAPE.exec(text);
    const end = i + (match ? match[0].length : 1);
    ranges.push(i, end);
    i = text.indexOf(ESC, end);
  }
  return ranges;
}

/** Whether everything of `text` from `index` on is escape sequences (or nothing). */
function onlyEscapesFrom(text: string, index: number, ranges: readonly number[]): boolean {
  let at = index;
  for (let k = 0; k < ranges.length && at < text.length; k += 2) {
    if (ranges[k + 1]! <= at) continue;
    if (ranges[k]! > at) return false;
    at = ranges[k + 1]!;
  }
  return at >= text.length;
}

/** Whether `index` falls inside an escape sequence (after its first character). */
function insideEscape(ranges: readonly number[], index: number): boolean {
  for (let k = 0; k < ranges.length; k += 2) {
    if (ranges[k]! >= index) return false;
    if (index < ranges[k + 1]!) return true;
  }
  return false;
}

/**
 * Where the rows start to differ, moved back to a place a write can start from: not inside an
 * escape sequence, and between plain ASCII characters, so no wide character, surrogate pair or
 * combining mark is split. (The rows are equal before it, so their escapes there are the same.)
 */
function safeStart(a: string, b: string, escapes: readonly number[]): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  for (let p = i; p > 0; p--) {
    if (!insideEscape(escapes, p) && isPlainAt(a, p) && isPlainAt(b, p)) return p;
  }
  return 0;
}

/**
 * How many characters at the end both rows share, cut at a safe place (as safeStart), never
 * reaching into the first `start` characters of either; null when they share nothing usable.
 */
function safeEnd(a: string, b: string, start: number, inA: readonly number[], inB: readonly number[]): number | null {
  const limit = Math.min(a.length, b.length) - start;
  let n = 0;
  while (n < limit && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++;
  if (n === 0) return null;
  // The shared tail must begin at a place where both rows are outside escapes, at plain text.
  for (let p = Math.max(b.length - n, start); p <= b.length; p++) {
    const shared = b.length - p;
    const q = a.length - shared;
    if (!insideEscape(inB, p) && !insideEscape(inA, q) && isPlainAt(a, q) && isPlainAt(b, p)) return shared;
  }
  return null;
}

/** Whether a write may start at `index`: the characters on both sides are plain ASCII or an escape. */
function isPlainAt(text: string, index: number): boolean {
  const plain = (code: number) => Number.isNaN(code) || code === 0x1b || (code >= 0x20 && code < 0x7f);
  return plain(text.charCodeAt(index)) && (index === 0 || plain(text.charCodeAt(index - 1)));
}

function sameStyling(a: string, b: string): boolean {
  const codes = (text: string) => (text.match(SGR) ?? []).join("");
  return codes(a) === codes(b);
}

/**
 * The SGR state at the end of `prefix`, one code per attribute in force (Ink closes and reopens
 * styles piece by piece, so the raw list since the last reset grows long). A code the reader does
 * not model keeps the whole list since the last reset.
 */
function activeStyle(prefix: string): string {
  const codes = prefix.match(SGR) ?? [];
  let from = 0;
  codes.forEach((code, i) => {
    if (code === RESET || code === `${ESC}[m`) from = i + 1;
  });
  const styles = new Styles();
  for (const code of codes.slice(from)) styles.apply(code);
  return styles.unknown ? codes.slice(from).join("") : styles.reopen();
}

function moveTo(row: number, column: number): string {
  return `${ESC}[${row + 1};${column + 1}H`;
}

/** Whether Ink synchronizes frames on this stream (a TTY, not CI): only then are frames bracketed. */
export function framesAreBracketed(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI !== "0" && env.CI !== "false" && ("CI" in env || "CONTINUOUS_INTEGRATION" in env || Object.keys(env).some((k) => k.startsWith("CI_")));
  return stream.isTTY === true && !ci;
}

/**
 * A stdout for Ink that writes only what changed. Frames are recognised by the synchronized-
 * output brackets Ink puts around each (a TTY outside CI); elsewhere it is `stdout` itself.
 * `reset()` is for after the screen was cleared by hand; `dispose()` before leaving the screen.
 */
export function diffingStdout(
  stdout: NodeJS.WriteStream,
  env: NodeJS.ProcessEnv = process.env,
  repaintAfterMs = REPAINT_AFTER_MS,
): { stream: NodeJS.WriteStream; reset(): void; dispose(): void } {
  if (!framesAreBracketed(stdout, env)) return { stream: stdout, reset: () => {}, dispose: () => {} };
  const diff = new FrameDiff();
  // What Ink writes between a frame's brackets, held so the frame leaves in one write: a TTY
  // write is a system call that wakes the terminal, and Ink makes three of them a frame.
  let frame: string | null = null;
  // A full redraw wiped anything else that reached the screen (keys the terminal echoed before
  // raw mode was on, a stray warning); rows that do not change keep it. Once the screen has been
  // still for a moment, the last frame is written whole once. One timer, moved on when it fires
  // early, rather than one set and cleared every frame.
  let repaint: NodeJS.Timeout | undefined;
  let lastFrame = 0;
  const repaintWhenStill = (): void => {
    const still = Date.now() - lastFrame;
    if (still < repaintAfterMs) {
      repaint = setTimeout(repaintWhenStill, repaintAfterMs - still);
      repaint.unref();
      return;
    }
    repaint = undefined;
    stdout.write(`${SYNC_BEGIN}${diff.repaint()}${SYNC_END}`);
  };
  const scheduleRepaint = (): void => {
    lastFrame = Date.now();
    if (repaint) return;
    repaint = setTimeout(repaintWhenStill, repaintAfterMs);
    repaint.unref();
  };
  const cancelRepaint = (): void => {
    clearTimeout(repaint);
    repaint = undefined;
  };
  const write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    if (text === SYNC_BEGIN) {
      frame = "";
      return true;
    }
    if (text === SYNC_END) {
      const body = frame ?? "";
      frame = null;
      // Nothing changed on screen: nothing to send.
      return body ? stdout.write(`${SYNC_BEGIN}${body}${SYNC_END}`) : true;
    }
    if (frame !== null) {
      // A frame as tall as the terminal makes Ink clear the screen first: what was there is gone.
      const cleared = CLEAR_PREFIX.exec(text)?.[0] ?? "";
      if (cleared) diff.reset();
      scheduleRepaint();
      frame += cleared + diff.next(text.slice(cleared.length).replace(ERASE_PREFIX, ""));
      return true;
    }
    if (ERASE_PREFIX.test(text) && text.replace(ERASE_PREFIX, "") === "") {
      // Ink erasing its frame outside a render (before a clear, at unmount): the screen is about
      // to be wiped or left.
      diff.reset();
      cancelRepaint();
      return true;
    }
    return stdout.write(chunk, ...(rest as []));
  };
  const stream = new Proxy(stdout, {
    get(target, property) {
      if (property === "write") return write;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { stream, reset: () => diff.reset(), dispose: cancelRepaint };
}
