import type { Entry } from "./state/types.js";
import type { Row } from "./wrap.js";

/**
 * Selecting tool rows in a pane and keeping the selection in view. Pure: the key handlers and the
 * render both use these, so what a key selects is what the screen then shows.
 */

/** The next tool call before (-1) or after (+1) `current`; from none, the last one. Null: none there. */
export function stepSelection(entries: readonly Entry[], current: number | null, dir: -1 | 1): number | null {
  const tools = entries.filter((e) => e.kind === "tool").map((e) => e.seq);
  if (tools.length === 0) return null;
  if (current === null) return tools[tools.length - 1]!;
  const at = tools.indexOf(current);
  if (at < 0) return tools[tools.length - 1]!;
  const next = at + dir;
  return next >= 0 && next < tools.length ? tools[next]! : current;
}

/** The scroll (rows up from the bottom) that shows the row of `seq`, moving as little as it can. */
export function scrollToShow(rows: readonly Row[], height: number, seq: number, scroll: number): number {
  const index = rows.findIndex((r) => r.entry.seq === seq && !r.note);
  if (index < 0) return scroll;
  const total = rows.length;
  const maxScroll = Math.max(0, total - height);
  const clamped = Math.min(scroll, maxScroll);
  const start = Math.max(0, total - height - clamped);
  // Show the call with the rows under it (its diff) when they fit.
  let last = index;
  while (last + 1 < total && rows[last + 1]!.entry.seq === seq && last + 1 - index < height) last++;
  if (index < start) return Math.min(maxScroll, total - height - index);
  if (last >= start + height) return Math.max(0, total - (last + 1));
  return clamped;
}

/** The rows on screen: `height` rows ending `scroll` rows above the bottom. */
export function windowRows(rows: readonly Row[], height: number, scroll: number): Row[] {
  const maxScroll = Math.max(0, rows.length - height);
  const s = Math.min(Math.max(0, scroll), maxScroll);
  return rows.slice(Math.max(0, rows.length - height - s), rows.length - s);
}
