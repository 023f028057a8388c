import wrapAnsi from "wrap-ansi";
import { formatDuration } from "./format.js";
import type { Entry, ToolEntry } from "./state/types.js";

/** One screen row of a pane. Tool rows are drawn at render time (their spinner moves). */
export interface Row {
  readonly key: string;
  readonly entry: Entry;
  /** The wrapped text of this row (empty for a tool's own row). */
  readonly text: string;
  /** A row under a tool call saying what the scheduler made it wait for. */
  readonly note?: true;
}

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
const cache = new WeakMap<Entry, Wrapped>();

export function rowsOf(entry: Entry, width: number): readonly Row[] {
  const hit = cache.get(entry);
  if (hit && hit.width === width) return hit.rows;
  let rows: Row[];
  if (entry.kind === "tool") {
    rows = [{ key: `${entry.seq}`, entry, text: "" }];
    const inner = Math.max(1, width - NOTE_INDENT.length);
    const note = waitNote(entry);
    if (note) {
      const lines = PLAIN.test(note) ? wrapPlain(note, inner) : wrapAnsi(note, inner, { hard: true, trim: false }).split("\n");
      lines.forEach((line, i) => rows.push({ key: `${entry.seq}:w${i}`, entry, text: NOTE_INDENT + line, note: true }));
    }
    // How a command runs and the call's lifecycle hooks, on one line: "⛨ read-only sandbox · ⚙ hook PreToolUse 12ms".
    const marks = [sandboxMark(entry), entry.hooks?.length ? `⚙ hook ${entry.hooks.join(" · ")}` : ""].filter(Boolean).join(" · ");
    if (marks) rows.push({ key: `${entry.seq}:h`, entry, text: NOTE_INDENT + wrapAnsi(marks, inner, { hard: true }).split("\n")[0], note: true });
  } else {
    const prefix = PREFIX[entry.kind] ?? "";
    const inner = Math.max(1, width - prefix.length);
    // Most lines are short printable ASCII: one column per character, nothing to wrap. The
    // streaming line is re-wrapped on every flush, so skipping wrap-ansi here matters.
    const lines = PLAIN.test(entry.text) ? wrapPlain(entry.text, inner) : wrapAnsi(entry.text, inner, { hard: true, trim: false }).split("\n");
    rows = lines.map((line, i) => ({ key: `${entry.seq}:${i}`, entry, text: (i === 0 ? prefix : " ".repeat(prefix.length)) + line }));
  }
  cache.set(entry, { width, rows });
  return rows;
}

/** The last `height` rows of a transcript; wraps only the entries it needs. */
export function tailRows(entries: readonly Entry[], width: number, height: number): Row[] {
  if (height <= 0) return [];
  const out: Row[][] = [];
  let count = 0;
  for (let i = entries.length - 1; i >= 0 && count < height; i--) {
    const rows = rowsOf(entries[i], width);
    out.push(rows as Row[]);
    count += rows.length;
  }
  const flat = out.reverse().flat();
  return flat.slice(Math.max(0, flat.length - height));
}

/** Every row of a transcript (for the zoomed view). */
export function allRows(entries: readonly Entry[], width: number): Row[] {
  const out: Row[] = [];
  for (const entry of entries) for (const row of rowsOf(entry, width)) out.push(row);
  return out;
}
