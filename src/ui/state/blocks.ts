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

/** [from, to] ranges (inclusive, indices into `lines`) that are finished blocks. */
export function finishedBlocks(lines: readonly string[], final: boolean): [number, number][] {
  const blocks: [number, number][] = [];
  let fence: string | null = null;
  let start = -1;
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!;
    if (fence !== null) {
      if (closes(t, fence)) {
        blocks.push([start, i]);
        start = -1;
        fence = null;
      }
      continue;
    }
    const open = FENCE.exec(t);
    if (open) {
      if (start >= 0) blocks.push([start, i - 1]);
      start = i;
      fence = open[1]!;
      continue;
    }
    if (t.trim() === "") {
      if (start >= 0) blocks.push([start, i - 1]);
      start = -1;
      continue;
    }
    if (HEADING.test(t)) {
      if (start >= 0) blocks.push([start, i - 1]);
      blocks.push([i, i]);
      start = -1;
      continue;
    }
    if (start < 0) start = i;
  }
  if (final && start >= 0) blocks.push([start, lines.length - 1]);
  return blocks;
}

/**
 * Folds the agent's finished blocks into "md" entries. `final`: the message has ended, so the
 * open line and an unclosed fence are finished too. Returns the agent itself when nothing settled.
 */
export function settleMarkdown(agent: AgentView, final: boolean): AgentView {
  const entries = agent.entries;
  let first = entries.length;
  while (first > 0 && entries[first - 1]!.kind === "text") first--;
  if (first === entries.length) return agent;
  // The line being streamed is not finished until a newline (or the message end) closes it.
  const end = !final && agent.open === "text" ? entries.length - 1 : entries.length;
  if (end <= first) return agent;
  const suffix = entries.slice(first, end);
  const blocks = finishedBlocks(
    suffix.map((e) => (e as { text: string }).text),
    final,
  );
  if (blocks.length === 0) return agent;
  const out: Entry[] = entries.slice(0, first);
  let at = 0;
  for (const [from, to] of blocks) {
    for (; at < from; at++) out.push(suffix[at]!);
    const text = suffix
      .slice(from, to + 1)
      .map((e) => (e as { text: string }).text)
      .join("\n");
    out.push({ seq: suffix[from]!.seq, kind: "md", text });
    at = to + 1;
  }
  for (; at < suffix.length; at++) out.push(suffix[at]!);
  for (let i = end; i < entries.length; i++) out.push(entries[i]!);
  return { ...agent, entries: out };
}
