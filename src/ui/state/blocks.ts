import type { AgentView, Entry } from "./types.js";

/**
 * Streamed assistant text arrives line by line; markdown needs whole blocks. The unsettled lines
 * are the "text" entries at the end of a pane. Each finished block — a paragraph or list ended by
 * a blank line, a heading, a closed code fence, or whatever is left when the message ends —
 * becomes one "md" entry, parsed once when it is drawn. The line still streaming stays raw.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(\s|$)/;

function closes(line: string, fence: string): boolean {
  const m = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
  return Boolean(m && m[1]![0] === fence[0] && m[1]!.length >= fence.length);
}

/** Where the scan of an agent's streamed lines stands, so each line is looked at once. */
export interface MdScan {
  /** The opening fence while inside a code block. */
  readonly fence: string | null;
  /** The seq of the first line of the block not finished yet. */
  readonly start: number | null;
  /** The seq of the first line not scanned yet. */
  readonly next: number;
}

const FRESH: MdScan = { fence: null, start: null, next: 0 };

/** The first index whose entry's seq is ≥ `seq` (entries are in seq order). */
function lowerBound(entries: readonly Entry[], seq: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (entries[mid]!.seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Folds the agent's finished blocks into "md" entries, looking only at lines it has not seen:
 * a long paragraph being streamed costs one check per new line, not one per line per frame.
 * `final`: the message has ended, so the open line and an unclosed fence are finished too.
 * Returns the agent itself when nothing changed.
 */
export function settleMarkdown(agent: AgentView, final: boolean): AgentView {
  const entries = agent.entries;
  const scan = agent.md ?? FRESH;
  // The line being streamed is not finished until a newline (or the message end) closes it.
  const end = !final && agent.open === "text" ? entries.length - 1 : entries.length;
  const from = lowerBound(entries, scan.next);
  if (from >= end && !(final && scan.start !== null)) return final && scan.fence !== null ? { ...agent, md: { ...scan, fence: null, start: null } } : agent;
  const blocks: [number, number][] = [];
  let fence = scan.fence;
  let start = scan.start;
  // The last line scanned before this call: a blank line now closes the block it ended.
  let lastSeq = from > 0 ? entries[from - 1]!.seq : -1;
  const close = (toSeq: number): void => {
    if (start !== null && toSeq >= start) blocks.push([start, toSeq]);
    start = null;
  };
  for (let i = from; i < end; i++) {
    const e = entries[i]!;
    if (e.kind !== "text") {
      // Something else came between: what was pending ends here.
      close(lastSeq);
      fence = null;
      lastSeq = e.seq;
      continue;
    }
    const t = e.text;
    if (fence !== null) {
      if (closes(t, fence)) {
        close(e.seq);
        fence = null;
      }
    } else {
      const open = FENCE.exec(t);
      if (open) {
        close(lastSeq);
        start = e.seq;
        fence = open[1]!;
      } else if (t.trim() === "") close(lastSeq);
      else if (HEADING.test(t)) {
        close(lastSeq);
        start = e.seq;
        close(e.seq);
      } else if (start === null) start = e.seq;
    }
    lastSeq = e.seq;
  }
  if (final) {
    const tail = end > 0 ? entries[end - 1]!.seq : lastSeq;
    close(Math.max(lastSeq, tail));
    fence = null;
  }
  const scanned = end > from ? entries[end - 1]!.seq + 1 : scan.next;
  const next: MdScan = final ? { fence: null, start: null, next: scanned } : { fence, start, next: scanned };
  if (blocks.length === 0) return { ...agent, md: next };
  const out = entries.slice();
  // From the last block back, so earlier indices stay valid.
  for (let b = blocks.length - 1; b >= 0; b--) {
    const [fromSeq, toSeq] = blocks[b]!;
    const i = lowerBound(out, fromSeq);
    let j = i;
    while (j < out.length && out[j]!.seq <= toSeq && out[j]!.kind === "text") j++;
    if (j === i) continue;
    const text = out
      .slice(i, j)
      .map((e) => (e as { text: string }).text)
      .join("\n");
    out.splice(i, j - i, { seq: out[i]!.seq, kind: "md", text });
  }
  return { ...agent, entries: out, md: next };
}
