import { formatDuration } from "./format.js";
import { renderMarkdown } from "./markdown.js";
import type { Entry, ToolEntry } from "./state/types.js";
import { paint } from "./theme.js";
import { wrapStyled } from "./wrap-styled.js";

/** One screen row of a pane. Tool rows are drawn at render time (their spinner moves). */
export interface Row {
  readonly key: string;
  readonly entry: Entry;
  /** The wrapped text of this row (empty for a tool's own row); may hold our own ANSI styling. */
  readonly text: string;
  /** A row under a tool call: what it waited for, its error, or its diff. */
  readonly note?: true;
  /** The text is styled already (markdown, a diff): drawn as is. */
  readonly styled?: true;
}

/**
 * How much a pane shows under a tool call: "pane" keeps a call to its row (and a few diff lines);
 * "zoom" shows the whole error and more of the diff.
 */
export type Detail = "pane" | "zoom";

/** Diff lines shown under an applied edit; the rest is one Enter away. */
export const DIFF_LINES: Record<Detail, number> = { pane: 4, zoom: 12 };

const NOTE_INDENT = "  ";

/**
 * What a call waited for, under its line: the scheduler's serialisation made visible (two
 * agents writing one file), while it waits and after it ran.
 */
export function waitNote(entry: ToolEntry): string | undefined {
  const blockers = entry.blockers ?? [];
  if (blockers.length === 0) return undefined;
  const who = blockers.join(", ");
  if (entry.state === "waiting" || entry.state === "queued" || entry.state === "asking") return `↳ waits for ${who}`;
  if (entry.startedAt !== undefined) return `↳ waited ${formatDuration(entry.startedAt - entry.queuedAt)} for ${who}`;
  return `↳ was waiting for ${who}`;
}

/** Where a command ran: in which sandbox, or — the case to notice — outside any. */
export function sandboxMark(entry: ToolEntry): string {
  switch (entry.sandbox) {
    case "read-only":
      return "⛨ read-only sandbox";
    case "workspace-write":
      return "⛨ sandbox";
    case "none":
      return "⚠ no sandbox";
    default:
      return "";
  }
}

const PLAIN = /^[\x20-\x7e]*$/;

/**
 * Word-wraps printable ASCII (one column per character) without measuring anything: a row ends
 * at the last space that fits, or hard at `width` inside a longer word. Never returns a row wider
 * than `width`.
 */
export function wrapPlain(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const rows: string[] = [];
  let rest = text;
  while (rest.length > width) {
    const cut = rest.lastIndexOf(" ", width);
    if (cut > 0) {
      rows.push(rest.slice(0, cut));
      rest = rest.slice(cut + 1);
    } else {
      rows.push(rest.slice(0, width));
      rest = rest.slice(width);
    }
  }
  rows.push(rest);
  return rows;
}

export const PREFIX: Partial<Record<Entry["kind"], string>> = { user: "› " };

interface Wrapped {
  width: number;
  rows: readonly Row[];
}

// Keyed by the entry object: entries are immutable, so a changed line is a new key and an
// evicted one is collected with its cache. A resize changes `width` and re-wraps lazily.
const caches: Record<Detail, WeakMap<Entry, Wrapped>> = { pane: new WeakMap(), zoom: new WeakMap() };

function wrapNote(text: string, width: number): string[] {
  const inner = Math.max(1, width - NOTE_INDENT.length);
  return PLAIN.test(text) ? wrapPlain(text, inner) : wrapStyled(text, inner, false);
}

function diffRole(line: string): "diffMeta" | "diffAdd" | "diffDel" | "diffHunk" | null {
  if (line.startsWith("+++") || line.startsWith("---")) return "diffMeta";
  if (line.startsWith("+")) return "diffAdd";
  if (line.startsWith("-")) return "diffDel";
  if (line.startsWith("@@")) return "diffHunk";
  return null;
}

/** A diff line coloured by its kind, cut to `width` (the viewer shows it whole). */
export function diffLine(line: string, width: number): string {
  const cut = [...line].length > width ? `${[...line].slice(0, Math.max(1, width - 1)).join("")}…` : line;
  return paint(diffRole(line), cut);
}

/**
 * The first `limit` lines of a diff's body, moved on so they hold its first changed line: a hunk
 * opens with up to three lines of context, which alone would say nothing of the change. The
 * change's hunk header and one line of context before it stay when there is room.
 */
export function diffWindow(body: readonly string[], limit: number): string[] {
  const first = body.findIndex((l) => l.startsWith("+") || l.startsWith("-"));
  if (first < limit) return body.slice(0, limit);
  const header = body.slice(0, first).findLastIndex((l) => l.startsWith("@@"));
  const lead: string[] = [];
  if (header >= 0 && header < first - 1 && limit >= 3) lead.push(body[header]!);
  if (limit >= 2) lead.push(body[first - 1]!);
  return [...lead, ...body.slice(first)].slice(0, limit);
}

/** The rows under a finished call: its whole error (zoom), the applied diff's first lines. */
function detailRows(entry: ToolEntry, width: number, detail: Detail): Row[] {
  const rows: Row[] = [];
  if (detail === "zoom" && entry.errorText && entry.state !== "ok") {
    const lines = entry.errorText.split("\n").flatMap((l) => wrapNote(l, width));
    lines.forEach((line, i) => rows.push({ key: `${entry.seq}:e${i}`, entry, text: NOTE_INDENT + line, note: true }));
  }
  if (entry.diff && entry.state === "ok") {
    // The ---/+++ header says what the row already says: the path.
    const body = entry.diff.split("\n").filter((l, i) => l !== "" && !(i < 2 && /^(---|\+\+\+) /.test(l)));
    const shown = diffWindow(body, DIFF_LINES[detail]);
    shown.forEach((line, i) => rows.push({ key: `${entry.seq}:d${i}`, entry, text: NOTE_INDENT + diffLine(line, width - NOTE_INDENT.length), note: true, styled: true }));
    const more = body.length - shown.length;
    if (more > 0) rows.push({ key: `${entry.seq}:dm`, entry, text: NOTE_INDENT + paint("muted", `… ${more} more diff line${more === 1 ? "" : "s"} (select, Enter)`), note: true, styled: true });
  }
  return rows;
}

/** Finished blocks drawn lately, by width and source: a block met again costs a lookup. */
const MARKDOWN_KEPT = 256;
const MARKDOWN_KEPT_CHARS = 4096;
const markdownRows = new Map<string, readonly string[]>();

/**
 * A finished block's rows. Blocks are keyed by their text as well as their entry: the same block
 * comes back at another width and back again (a pane zoomed and unzoomed, the grid re-laid out
 * as agents start and finish), and sub-agents given one task write the same blocks. Least
 * recently used first out.
 */
function markdownLines(text: string, width: number): readonly string[] {
  const key = `${width}:${text}`;
  const hit = markdownRows.get(key);
  if (hit) {
    markdownRows.delete(key);
    markdownRows.set(key, hit);
    return hit;
  }
  const lines = renderMarkdown(text, width);
  // A long block (a whole file in a fence) is kept by its entry only: a few of them would be
  // most of the memory this holds.
  if (text.length > MARKDOWN_KEPT_CHARS) return lines;
  if (markdownRows.size >= MARKDOWN_KEPT) markdownRows.delete(markdownRows.keys().next().value!);
  markdownRows.set(key, lines);
  return lines;
}

/** `keep`: whether the rows are kept for the entry (not for a streaming line, replaced by the next delta). */
export function rowsOf(entry: Entry, width: number, detail: Detail = "pane", keep = true): readonly Row[] {
  const cache = caches[detail];
  const hit = keep ? cache.get(entry) : undefined;
  if (hit && hit.width === width) return hit.rows;
  let rows: Row[];
  if (entry.kind === "tool") {
    rows = [{ key: `${entry.seq}`, entry, text: "" }];
    const note = waitNote(entry);
    if (note) wrapNote(note, width).forEach((line, i) => rows.push({ key: `${entry.seq}:w${i}`, entry, text: NOTE_INDENT + line, note: true }));
    // How a command runs and the call's lifecycle hooks, on one line: "⛨ read-only sandbox · ⚙ hook PreToolUse 12ms".
    const marks = [sandboxMark(entry), entry.hooks?.length ? `⚙ hook ${entry.hooks.join(" · ")}` : ""].filter(Boolean).join(" · ");
    if (marks) rows.push({ key: `${entry.seq}:h`, entry, text: NOTE_INDENT + wrapNote(marks, width)[0], note: true });
    rows.push(...detailRows(entry, width, detail));
  } else if (entry.kind === "md") {
    rows = markdownLines(entry.text, width).map((line, i) => ({ key: `${entry.seq}:${i}`, entry, text: line, styled: true }));
  } else {
    const prefix = PREFIX[entry.kind] ?? "";
    const inner = Math.max(1, width - prefix.length);
    // Most lines are short printable ASCII: one column per character, nothing to wrap. The
    // streaming line is re-wrapped on every flush, so measuring nothing here matters.
    const lines = PLAIN.test(entry.text) ? wrapPlain(entry.text, inner) : wrapStyled(entry.text, inner, false);
    rows = lines.map((line, i) => ({ key: `${entry.seq}:${i}`, entry, text: (i === 0 ? prefix : " ".repeat(prefix.length)) + line }));
  }
  if (keep) cache.set(entry, { width, rows });
  return rows;
}

interface Tail {
  width: number;
  height: number;
  rows: Row[];
}

// A pane whose transcript did not change keeps its entries array (the reducer copies only the
// agents an event touched), so its rows come back as the same array and its pane skips the frame.
const tails: Record<Detail, WeakMap<readonly Entry[], Tail>> = { pane: new WeakMap(), zoom: new WeakMap() };

/** The last `height` rows of a transcript; wraps only the entries it needs. */
export function tailRows(entries: readonly Entry[], width: number, height: number, detail: Detail = "pane"): Row[] {
  if (height <= 0) return [];
  const hit = tails[detail].get(entries);
  if (hit && hit.width === width && hit.height === height) return hit.rows;
  const rows = wrapTail(entries, width, height, detail);
  tails[detail].set(entries, { width, height, rows });
  return rows;
}

function wrapTail(entries: readonly Entry[], width: number, height: number, detail: Detail): Row[] {
  const out: (readonly Row[])[] = [];
  let count = 0;
  for (let i = entries.length - 1; i >= 0 && count < height; i--) {
    const entry = entries[i]!;
    // The last line of streamed text is a new entry at every delta: kept, each frame of every
    // streaming pane added an entry to the WeakMap for the collector to clear.
    const rows = rowsOf(entry, width, detail, i < entries.length - 1 || (entry.kind !== "text" && entry.kind !== "thinking"));
    out.push(rows);
    count += rows.length;
  }
  // The entries' rows from the oldest needed, less the rows above the first `height` from the end.
  const tail: Row[] = [];
  let skip = Math.max(0, count - height);
  for (let k = out.length - 1; k >= 0; k--) {
    const rows = out[k]!;
    for (let r = skip; r < rows.length; r++) tail.push(rows[r]!);
    skip = Math.max(0, skip - rows.length);
  }
  return tail;
}

/** Every row of a transcript (for the zoomed view and a pane with a selected row). */
export function allRows(entries: readonly Entry[], width: number, detail: Detail = "zoom"): Row[] {
  const out: Row[] = [];
  for (const entry of entries) for (const row of rowsOf(entry, width, detail)) out.push(row);
  return out;
}
