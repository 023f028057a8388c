import type { ReviewItem } from "../orchestrator/review-desk.js";
import type { AgentChangeSet, FileChange } from "../review/change-set.js";
import type { FileDiff } from "../review/file-diff.js";
import { terminalSafe } from "../util/terminal-text.js";
import { displayLine } from "./format.js";

/**
 * The review view's model, kept pure so it is tested without Ink: the change sets laid out as rows
 * (agent → file → hunk → diff lines), the cursor's moves between the rows a person can act on, the
 * marks they make (accept, reject, a comment) and what sending them asks of the review desk. Every
 * text a row carries is terminal-safe (displayLine) when the row is made.
 */

export type Mark = "accept" | "reject";

/** What a row stands for, as a string: "a\0agent", "f\0agent\0path", "h\0agent\0path\0index". */
export type TargetKey = string;

export const agentKey = (agentId: string): TargetKey => `a\0${agentId}`;
export const fileKey = (agentId: string, path: string): TargetKey => `f\0${agentId}\0${path}`;
export const hunkKey = (agentId: string, path: string, hunk: number): TargetKey => `h\0${agentId}\0${path}\0${hunk}`;

export type RowTone = "add" | "del" | "context" | "note" | "warn";

export type ReviewRow =
  | { kind: "agent"; key: TargetKey; agentId: string; text: string; held: boolean }
  | { kind: "file"; key: TargetKey; agentId: string; path: string; text: string; folded: boolean }
  | { kind: "hunk"; key: TargetKey; agentId: string; path: string; hunk: number; text: string }
  | { kind: "line"; text: string; tone: RowTone };

/** A diff as the view holds it: loaded, or still being computed. */
export type DiffSlot = FileDiff | "loading";

export interface RowsInput {
  agents: readonly AgentChangeSet[];
  diffs: ReadonlyMap<TargetKey, DiffSlot>;
  folded: ReadonlySet<TargetKey>;
  held: ReadonlySet<string>;
  /** Files two held worktrees both change: path → the agents. */
  overlaps: ReadonlyMap<string, readonly string[]>;
  /** Every agent's change set (those not shown too): who changed a file after the agent did. */
  all?: readonly AgentChangeSet[];
}

/** A line of code made terminal-safe with its indentation kept (displayLine would collapse it). */
export function codeLine(raw: string): string {
  return terminalSafe(raw).replace(/\n/g, " ");
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Every row of the view, in order; a file whose diff is not loaded yet is one row and a "loading" line. */
export function buildRows({ agents, diffs, folded, held, overlaps, all = agents }: RowsInput): ReviewRow[] {
  const rows: ReviewRow[] = [];
  const later = laterChanges(all);
  for (const a of agents) {
    const who = displayLine(a.label ? `${a.agentId} [${a.label}]` : a.agentId);
    const task = displayLine(a.task);
    const text = `${who} — ${plural(a.files.length, "file")}${task ? `: ${task.length > 80 ? `${task.slice(0, 79)}…` : task}` : ""}`;
    rows.push({ kind: "agent", key: agentKey(a.agentId), agentId: a.agentId, text, held: held.has(a.agentId) });
    if (held.has(a.agentId)) rows.push({ kind: "line", tone: "warn", text: "held for review (review: ask): a on the agent's line merges it" });
    for (const f of a.files) {
      const key = fileKey(a.agentId, f.path);
      const diff = diffs.get(key);
      const isFolded = folded.has(key);
      const hunks = diff && diff !== "loading" && diff.hunks.length ? ` (${plural(diff.hunks.length, "hunk")})` : "";
      rows.push({ kind: "file", key, agentId: a.agentId, path: f.path, text: `${f.status} ${displayLine(f.path)}${hunks}${f.worktree ? " · in its worktree" : ""}`, folded: isFolded });
      const clash = overlaps.get(f.path)?.filter((id) => id !== a.agentId);
      if (clash?.length) rows.push({ kind: "line", tone: "warn", text: `⚠ also changed in the worktree of ${clash.map(displayLine).join(", ")}: merging both conflicts` });
      const after = f.worktree ? [] : (later.get(f.path) ?? []).filter((o) => o.agentId !== a.agentId && o.lastAt > f.lastAt).map((o) => displayLine(o.agentId));
      if (after.length) rows.push({ kind: "line", tone: "warn", text: `⚠ changed after it by ${after.join(", ")}: this diff runs to the file now, so it holds their change too` });
      if (isFolded) continue;
      rows.push(...diffRows(a.agentId, f, diff));
    }
  }
  return rows;
}

/** Per main-tree path, when each agent last changed it. */
function laterChanges(all: readonly AgentChangeSet[]): Map<string, Array<{ agentId: string; lastAt: number }>> {
  const byPath = new Map<string, Array<{ agentId: string; lastAt: number }>>();
  for (const a of all) for (const f of a.files) if (!f.worktree) byPath.set(f.path, [...(byPath.get(f.path) ?? []), { agentId: a.agentId, lastAt: f.lastAt }]);
  return byPath;
}

function diffRows(agentId: string, f: FileChange, diff: DiffSlot | undefined): ReviewRow[] {
  if (!diff || diff === "loading") return [{ kind: "line", tone: "note", text: "… loading the diff" }];
  if (diff.binary) return [{ kind: "line", tone: "note", text: "binary: no diff shown" }];
  if (diff.unavailable) return [{ kind: "line", tone: "note", text: `no diff: ${displayLine(diff.unavailable)}` }];
  if (!diff.hunks.length) return [{ kind: "line", tone: "note", text: "as it was: nothing left of the change" }];
  const rows: ReviewRow[] = [];
  for (const h of diff.hunks) {
    rows.push({ kind: "hunk", key: hunkKey(agentId, f.path, h.index), agentId, path: f.path, hunk: h.index, text: `@@ hunk ${h.index + 1}: -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@` });
    for (const raw of h.lines) {
      const tone: RowTone = raw.startsWith("+") ? "add" : raw.startsWith("-") ? "del" : "context";
      rows.push({ kind: "line", tone, text: codeLine(raw) });
    }
  }
  return rows;
}

const selectable = (r: ReviewRow | undefined): boolean => r !== undefined && r.kind !== "line";

/** The row of `key`, else the first row a person can act on (-1: none). */
export function rowOf(rows: readonly ReviewRow[], key: TargetKey | null): number {
  if (key !== null) {
    const at = rows.findIndex((r) => r.kind !== "line" && r.key === key);
    if (at >= 0) return at;
  }
  return rows.findIndex(selectable);
}

/** The next (dir 1) or previous (-1) row a person can act on; `files`: only agent and file rows. */
export function step(rows: readonly ReviewRow[], from: number, dir: 1 | -1, files = false): number {
  for (let i = from + dir; i >= 0 && i < rows.length; i += dir) {
    const r = rows[i]!;
    if (files ? r.kind === "agent" || r.kind === "file" : selectable(r)) return i;
  }
  return from;
}

/** The acting row nearest `at` (first at or after it, else before): where a page move lands. */
export function nearest(rows: readonly ReviewRow[], at: number): number {
  const clamped = Math.max(0, Math.min(rows.length - 1, at));
  if (selectable(rows[clamped])) return clamped;
  const after = step(rows, clamped, 1);
  return after !== clamped ? after : step(rows, clamped, -1);
}

/** The first row shown so that `cursor` is visible, moving the window as little as it can. */
export function scrollTo(top: number, cursor: number, visible: number, total: number): number {
  let next = top;
  if (cursor < next) next = cursor;
  else if (cursor >= next + visible) next = cursor - visible + 1;
  return Math.max(0, Math.min(next, Math.max(0, total - visible)));
}

export interface Marks {
  readonly marks: ReadonlyMap<TargetKey, Mark>;
  readonly comments: ReadonlyMap<TargetKey, string>;
}

export const NO_MARKS: Marks = { marks: new Map(), comments: new Map() };

/** `mark` on the target, or off when it already has it. A file's mark replaces its hunks'. */
export function toggleMark(m: Marks, row: ReviewRow, mark: Mark): Marks {
  if (row.kind === "line") return m;
  const marks = new Map(m.marks);
  if (marks.get(row.key) === mark) marks.delete(row.key);
  else {
    marks.set(row.key, mark);
    // A mark covers what is under it: marking a file or an agent drops the marks inside it, and a
    // hunk's mark takes over from its file's and agent's.
    const inside = row.kind === "agent" ? [`f\0${row.agentId}\0`, `h\0${row.agentId}\0`] : row.kind === "file" ? [`h\0${row.agentId}\0${row.path}\0`] : [];
    for (const k of [...marks.keys()]) if (inside.some((p) => k.startsWith(p))) marks.delete(k);
    if (row.kind !== "agent") marks.delete(agentKey(row.agentId));
    if (row.kind === "hunk") marks.delete(fileKey(row.agentId, row.path));
  }
  return { ...m, marks };
}

export function setComment(m: Marks, key: TargetKey, text: string): Marks {
  const comments = new Map(m.comments);
  const clean = text.replace(/[\r\n]+/g, " ").trim();
  if (clean) comments.set(key, clean);
  else comments.delete(key);
  return { ...m, comments };
}

/** The mark a row shows: its own, else its file's, else its agent's. */
export function markOf(m: Marks, row: ReviewRow): Mark | undefined {
  if (row.kind === "line") return undefined;
  const own = m.marks.get(row.key);
  if (own || row.kind === "agent") return own;
  return (row.kind === "hunk" ? m.marks.get(fileKey(row.agentId, row.path)) : undefined) ?? m.marks.get(agentKey(row.agentId));
}

export function pendingCount(m: Marks): number {
  return m.marks.size + m.comments.size;
}

/** One agent's part of a send: its files' items for ReviewApi.reviewAgent and its own comment. */
export interface AgentSend {
  agentId: string;
  items: ReviewItem[];
  comment?: string;
}

/** What sending the marks asks of the desk, agent by agent (agents with nothing marked left out). */
export function sendPlan(agents: readonly AgentChangeSet[], m: Marks): AgentSend[] {
  const plan: AgentSend[] = [];
  for (const a of agents) {
    const items: ReviewItem[] = [];
    for (const file of a.files) {
      const fk = fileKey(a.agentId, file.path);
      const prefix = `h\0${a.agentId}\0${file.path}\0`;
      const hunkMarks = [...m.marks].filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [Number(k.slice(prefix.length)), v] as const);
      const whole = m.marks.get(fk) ?? m.marks.get(agentKey(a.agentId));
      const rejected = hunkMarks.filter(([, v]) => v === "reject").map(([h]) => h).sort((x, y) => x - y);
      const accepted = hunkMarks.filter(([, v]) => v === "accept").map(([h]) => h).sort((x, y) => x - y);
      const notes = [m.comments.get(fk), ...[...m.comments].filter(([k]) => k.startsWith(prefix)).sort(([x], [y]) => Number(x.slice(prefix.length)) - Number(y.slice(prefix.length))).map(([k, v]) => `hunk ${Number(k.slice(prefix.length)) + 1}: ${v}`)].filter(Boolean);
      const hunks: ReviewItem["hunks"] = whole === "reject" ? "all" : rejected;
      const acceptedAll: ReviewItem["accepted"] = whole === "accept" ? "all" : accepted.length ? accepted : undefined;
      if (hunks === "all" || hunks.length || acceptedAll || notes.length) {
        items.push({ file, hunks, ...(acceptedAll ? { accepted: acceptedAll } : {}), ...(notes.length ? { comment: notes.join("; ") } : {}) });
      }
    }
    const comment = m.comments.get(agentKey(a.agentId));
    if (items.length || comment) plan.push({ agentId: a.agentId, items, ...(comment ? { comment } : {}) });
  }
  return plan;
}
