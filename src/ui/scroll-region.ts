/**
 * A band of rows that moved up since the last frame, written as one terminal scroll instead of
 * row by row. A pane that streams moves its text up a row for every new line; where that pane is
 * as wide as the screen (one agent, a zoomed pane, stacked panes) or the panes side by side move
 * together, whole rows of the new frame are rows of the last one a little higher. The scroll is a
 * scrolling region (DECSTBM) moved with SU, understood by every VT100-style terminal, and inside
 * the frame's synchronized-output brackets like the rest of it.
 */
export interface Scroll {
  /** The region's first and last row (0-based, inclusive). */
  top: number;
  bottom: number;
  /** Rows the region moves up. */
  by: number;
}

const ESC = "\u001B";
/** Lines of text moved at once that are looked for (one frame may take several new lines). */
const MAX_BY = 3;
/** A scroll costs ~20 bytes and the rows it vacates are rewritten: worth it only when it saves more. */
const MIN_SAVED = 200;

/**
 * The band of `now` that is `before` moved up by 1–3 rows and saves the most rewriting, or null.
 * Rows equal in place are left out (nothing to save there); the band is the longest run of rows
 * that each equal the row `by` below them in `before`.
 */
export function findScroll(before: readonly string[], now: readonly string[]): Scroll | null {
  let best: Scroll | null = null;
  let bestSaved = MIN_SAVED - 1;
  for (let by = 1; by <= MAX_BY; by++) {
    let start = -1;
    let saved = 0;
    const last = Math.min(now.length, before.length - by);
    for (let r = 0; r <= last; r++) {
      const moved = r < last && now[r] === before[r + by];
      if (moved) {
        if (start === -1) start = r;
        if (now[r] !== before[r]) saved += now[r]!.length;
        continue;
      }
      if (start !== -1 && saved > bestSaved) {
        best = { top: start, bottom: r - 1 + by, by };
        bestSaved = saved;
      }
      start = -1;
      saved = 0;
    }
  }
  return best;
}

/** The bytes of a scroll: styles reset (the rows it vacates take the current background), the region set, moved, and cleared again. */
export function scrollBytes(scroll: Scroll): string {
  return `${ESC}[0m${ESC}[${scroll.top + 1};${scroll.bottom + 1}r${ESC}[${scroll.by}S${ESC}[r`;
}

/** `rows` as the terminal shows them after `scroll`: the band moved up, the rows it vacated blank. */
export function scrolled<T>(rows: readonly T[], scroll: Scroll, blank: T): T[] {
  const out = [...rows];
  for (let r = scroll.top; r <= scroll.bottom; r++) out[r] = r + scroll.by <= scroll.bottom ? rows[r + scroll.by]! : blank;
  return out;
}
