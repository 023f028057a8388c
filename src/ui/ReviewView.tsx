import { Box, Text } from "ink";
import type React from "react";
import { useEffect, useMemo, useRef, useState } from "react";
import type { EventBus } from "../events/bus.js";
import type { ReviewApi } from "../orchestrator/review-desk.js";
import type { FileChange, RunChangeSet } from "../review/change-set.js";
import { errorLine } from "../util/text.js";
import { fitFields } from "./fit.js";
import { displayLine } from "./format.js";
import { useKeyLayer, useKeymap } from "./hooks/key-layers.js";
import { KeyPriority, keysText, type LayerAction } from "./keymap.js";
import { askParentToResume, worktreeOverlaps } from "./review-commands.js";
import {
  agentKey,
  buildRows,
  fileKey,
  markOf,
  nearest,
  NO_MARKS,
  pendingCount,
  rowOf,
  scrollTo,
  sendPlan,
  setComment,
  step,
  toggleMark,
  type DiffSlot,
  type Marks,
  type ReviewRow,
  type RowTone,
  type TargetKey,
} from "./review-model.js";
import { color, type Role } from "./theme.js";

/**
 * The review view (/review, R on a pane): every agent's change set, file by file and hunk by hunk,
 * with the person's marks — accept, reject, a comment — sent together with `s` through the session's
 * ReviewApi (restores on disk, one message per agent). Only the rows on screen are drawn, and a
 * file's diff is computed when its row comes near the screen, so a change set of thousands of files
 * opens at once.
 */

export interface ReviewViewProps {
  review: ReviewApi;
  /** Followed while the view is open: a file an agent changes now is shown as it is now. */
  bus?: EventBus;
  /** The agent to start at; `only`: show no other (/review AGENT). */
  agentId?: string;
  only?: boolean;
  width: number;
  height: number;
  onClose(): void;
  /** Lines for the transcript: what a send or an accept did. */
  notify(lines: string[]): void;
  /** A prompt for the coordinator: a comment for an agent that has ended, which it resumes with. */
  submit?(text: string): void;
}

const TONE: Record<RowTone, Role | undefined> = { add: "diffAdd", del: "diffDel", context: undefined, note: "muted", warn: "warn" };
const STATUS: Record<FileChange["status"], Role> = { created: "ok", modified: "warn", deleted: "error" };
const CHANGES: ReadonlySet<string> = new Set(["file_write", "file_changed", "agent_started", "worktree"]);

export function ReviewView({ review, bus, agentId, only, width, height, onClose, notify, submit }: ReviewViewProps): React.JSX.Element {
  const keymap = useKeymap();
  const [run, setRun] = useState<RunChangeSet>(() => review.changeSets());
  const [diffs, setDiffs] = useState<ReadonlyMap<TargetKey, DiffSlot>>(() => new Map());
  const [folded, setFolded] = useState<ReadonlySet<TargetKey>>(() => new Set());
  const [marks, setMarks] = useState<Marks>(NO_MARKS);
  const [cursorKey, setCursorKey] = useState<TargetKey | null>(agentId ? agentKey(agentId) : null);
  const [top, setTop] = useState(0);
  const [typing, setTyping] = useState<string | null>(null);
  const [status, setStatus] = useState("");
  const [closing, setClosing] = useState(false);
  const [sending, setSending] = useState(false);
  /** The files whose diff was asked for, each with its ticket (the latest request's number). */
  const requested = useRef(new Map<TargetKey, number>());
  const tickets = useRef(0);
  const mounted = useRef(true);

  // Changes made while the view is open: the change sets again, and the diffs of the paths touched.
  useEffect(() => {
    if (!bus) return;
    const dirty = new Set<string>();
    let timer: NodeJS.Timeout | undefined;
    const off = bus.subscribe((e) => {
      if (!CHANGES.has(e.type)) return;
      if ("path" in e && typeof e.path === "string") dirty.add(e.path);
      // A burst of writes (a merge-back, a restore) is one refresh.
      timer ??= setTimeout(() => {
        timer = undefined;
        const paths = [...dirty];
        dirty.clear();
        setRun(review.changeSets());
        forget(paths);
      }, 100);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [bus, review]);

  const forget = (paths: readonly string[]): void => {
    if (!paths.length) return;
    const gone = (key: TargetKey): boolean => paths.some((p) => key.endsWith(`\0${p}`));
    for (const key of [...requested.current.keys()]) if (gone(key)) requested.current.delete(key);
    setDiffs((prev) => new Map([...prev].filter(([key]) => !gone(key))));
  };

  const agents = useMemo(() => run.agents.filter((a) => a.files.length && (!only || a.agentId === agentId)), [run, only, agentId]);
  const files = useMemo(() => new Map(agents.flatMap((a) => a.files.map((f) => [fileKey(a.agentId, f.path), f] as const))), [agents]);
  // Held merges change with the change sets (an accept merges one): read again with them.
  const held = useMemo(() => new Set(review.held()), [review, run]);
  const overlaps = useMemo(() => worktreeOverlaps(run), [run]);
  const rows = useMemo(() => buildRows({ agents, diffs, folded, held, overlaps, all: run.agents }), [agents, diffs, folded, held, overlaps, run]);

  const visible = Math.max(1, height - 4);
  const cursor = rowOf(rows, cursorKey);
  const shownTop = scrollTo(top, Math.max(0, cursor), visible, rows.length);
  const current: ReviewRow | undefined = rows[cursor];

  // Diffs of the files on screen and a screen either side, computed in one batch. A diff that lands
  // after its file was forgotten (changed again meanwhile) is dropped: its ticket is gone.
  useEffect(() => {
    const want: Array<[TargetKey, FileChange, number]> = [];
    for (let i = Math.max(0, shownTop - visible); i < Math.min(rows.length, shownTop + 2 * visible); i++) {
      const r = rows[i]!;
      if (r.kind !== "file" || r.folded || requested.current.has(r.key)) continue;
      const f = files.get(r.key);
      if (!f) continue;
      const ticket = ++tickets.current;
      requested.current.set(r.key, ticket);
      want.push([r.key, f, ticket]);
    }
    if (!want.length) return;
    const failed = (f: FileChange, error: unknown): DiffSlot => ({ path: f.path, status: f.status, text: "", hunks: [], binary: false, unavailable: errorLine(error) });
    void Promise.all(want.map(([key, f, ticket]) => review.diff(f).then((d): DiffSlot => d, (error: unknown) => failed(f, error)).then((d) => [key, d, ticket] as const))).then((loaded) => {
      const fresh = loaded.filter(([key, , ticket]) => requested.current.get(key) === ticket);
      if (mounted.current && fresh.length) setDiffs((prev) => new Map([...prev, ...fresh.map(([key, d]) => [key, d] as const)]));
    });
  }, [rows, shownTop, visible, files, review]);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );

  const moveTo = (index: number): void => {
    const r = rows[index];
    if (!r || r.kind === "line") return;
    setCursorKey(r.key);
    setTop(scrollTo(shownTop, index, visible, rows.length));
    setClosing(false);
  };
  const page = (dir: 1 | -1): void => {
    const nextTop = Math.max(0, Math.min(Math.max(0, rows.length - visible), shownTop + dir * (visible - 1)));
    setTop(nextTop);
    const at = nearest(rows, Math.max(0, cursor) + dir * (visible - 1));
    const r = rows[at];
    if (r && r.kind !== "line") setCursorKey(r.key);
  };

  const mark = (m: "accept" | "reject"): void => {
    if (!current || current.kind === "line") return;
    if (m === "accept" && current.kind === "agent") return acceptAgent(current.agentId);
    setMarks((prev) => toggleMark(prev, current, m));
    setClosing(false);
  };

  const acceptAgent = (id: string): void => {
    setStatus(`accepting ${id}…`);
    review.accept(id).then(
      (r) => {
        const line = r.ok ? `accepted ${id}'s change${r.note ? ` — ${r.note}` : ""}` : `✗ accept ${id}: ${r.error}`;
        setStatus(line);
        notify([line]);
        setRun(review.changeSets());
      },
      (error: unknown) => setStatus(`✗ accept ${id}: ${errorLine(error)}`),
    );
  };

  const send = async (): Promise<void> => {
    const plan = sendPlan(agents, marks);
    if (!plan.length) return setStatus(`nothing marked: ${keysText(keymap, KeyPriority.Review, "reject")} rejects, ${keysText(keymap, KeyPriority.Review, "comment")} comments`);
    setSending(true);
    setStatus("sending…");
    const lines: string[] = [];
    const touched: string[] = [];
    for (const part of plan) {
      try {
        const r = await review.reviewAgent(part.agentId, part.items, part.comment);
        touched.push(...r.restored);
        const said = part.comment || part.items.some((i) => i.comment);
        const to = said ? (r.undelivered ? `; ${part.agentId} is not running: the coordinator is asked to resume it with your comments` : `; your comments were sent to ${part.agentId}`) : "";
        lines.push(`review of ${part.agentId}: ${r.restored.length ? `restored ${r.restored.join(", ")}` : "nothing restored"}${to}`);
        for (const e of r.errors) lines.push(`  ✗ ${e}`);
        if (r.undelivered) submit?.(askParentToResume(part.agentId, r.undelivered));
      } catch (error) {
        lines.push(`✗ review of ${part.agentId}: ${errorLine(error)}`);
      }
    }
    setSending(false);
    setMarks(NO_MARKS);
    setStatus(lines[0] ?? "");
    notify(lines);
    setRun(review.changeSets());
    forget(touched);
  };

  const fold = (): void => {
    if (!current || current.kind === "line" || current.kind === "hunk") return;
    const keys = current.kind === "file" ? [current.key] : [...files.keys()].filter((k) => k.startsWith(`f\0${current.agentId}\0`));
    setFolded((prev) => {
      const next = new Set(prev);
      const unfold = keys.every((k) => next.has(k));
      for (const k of keys) if (unfold) next.delete(k);
      else next.add(k);
      return next;
    });
  };

  const close = (): void => {
    if (pendingCount(marks) && !closing) {
      setClosing(true);
      setStatus(`${pendingCount(marks)} mark(s) not sent: ${keysText(keymap, KeyPriority.Review, "send")} sends them, ${keysText(keymap, KeyPriority.Review, "close")} again drops them`);
      return;
    }
    onClose();
  };

  const actions: Partial<Record<LayerAction<KeyPriority.Review>, () => void>> =
    typing !== null || sending
      ? {}
      : {
          review_next: () => moveTo(step(rows, cursor, 1)),
          review_prev: () => moveTo(step(rows, cursor, -1)),
          next_file: () => moveTo(step(rows, cursor, 1, true)),
          prev_file: () => moveTo(step(rows, cursor, -1, true)),
          page_down: () => page(1),
          page_up: () => page(-1),
          top: () => moveTo(rowOf(rows, null)),
          bottom: () => moveTo(nearest(rows, rows.length - 1)),
          fold,
          accept: () => mark("accept"),
          reject: () => mark("reject"),
          comment: () => current && current.kind !== "line" && setTyping(marks.comments.get(current.key) ?? ""),
          send: () => void send(),
          close,
        };
  useKeyLayer(KeyPriority.Review, {
    actions,
    text: (press) => {
      if (typing === null) return false;
      if (press.name === "escape") setTyping(null);
      else if (press.name === "return" && !press.pasted) {
        if (current && current.kind !== "line") setMarks((prev) => setComment(prev, current.key, typing));
        setTyping(null);
      } else if (press.name === "backspace") setTyping(typing.slice(0, -1));
      else if (press.name === "text" || press.name === "return") setTyping(typing + press.text.replace(/[\r\n]+/g, " "));
      return true;
    },
    // Modal: Ctrl+C still reaches the dashboard (it cancels a run; twice exits).
    modal: (press) => !(press.name === "ctrl" && press.text === "c"),
  });

  const inner = Math.max(1, width - 2);
  const count = agents.reduce((n, a) => n + a.files.length, 0);
  const title = `review · ${agents.length} agent${agents.length === 1 ? "" : "s"}, ${count} file${count === 1 ? "" : "s"}`;
  const where = rows.length ? ` · rows ${shownTop + 1}–${Math.min(rows.length, shownTop + visible)} of ${rows.length}` : "";
  const k = (action: LayerAction<KeyPriority.Review>): string => keysText(keymap, KeyPriority.Review, action);
  const marked = pendingCount(marks);
  const hints = fitFields(
    [
      { text: `${k("reject")} reject`, drop: 1 },
      { text: `${k("accept")} accept`, drop: 2 },
      { text: `${k("comment")} comment`, drop: 1 },
      { text: `${k("send")} send${marked ? ` (${marked})` : ""}`, drop: 0 },
      { text: `${k("next_file")} file`, drop: 3 },
      { text: `${k("fold")} fold`, drop: 4 },
      { text: `${k("close")} back`, drop: 2 },
    ],
    inner,
  )
    .map((f) => f.text)
    .join(" · ");
  const currentComment = current && current.kind !== "line" ? marks.comments.get(current.key) : undefined;

  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={color("focus")} overflowY="hidden">
      <Text wrap="truncate-end">
        <Text bold color={color("focus")}>{title}</Text>
        <Text color={color("muted")}>{where}</Text>
      </Text>
      {rows.length === 0 ? (
        <Text color={color("muted")}>{only && agentId ? `${displayLine(agentId)} changed no file` : "no agent has changed a file in this session yet"}</Text>
      ) : (
        rows.slice(shownTop, shownTop + visible).map((row, i) => <Row key={shownTop + i} row={row} at={shownTop + i === cursor} marks={marks} />)
      )}
      <Box flexGrow={1} />
      {typing !== null ? (
        <Text wrap="truncate-end">
          <Text color={color("accent")}>comment: </Text>
          {displayLine(typing)}
          <Text inverse> </Text>
          <Text color={color("muted")}> Enter keep · Esc drop</Text>
        </Text>
      ) : (
        <Text wrap="truncate-end" color={status.startsWith("✗") ? color("error") : color("muted")}>
          {displayLine(status) || (currentComment ? `comment: ${displayLine(currentComment)}` : hints)}
        </Text>
      )}
    </Box>
  );
}

function Row({ row, at, marks }: { row: ReviewRow; at: boolean; marks: Marks }): React.JSX.Element {
  if (row.kind === "line") return <Text wrap="truncate-end" color={color(TONE[row.tone] ?? "text")}>{`      ${row.text}`}</Text>;
  const m = markOf(marks, row);
  const glyph = m === "reject" ? "✗" : m === "accept" ? "✓" : " ";
  const comment = marks.comments.get(row.key);
  const role: Role = row.kind === "agent" ? "heading" : row.kind === "hunk" ? "diffHunk" : STATUS[row.text.split(" ")[0] as FileChange["status"]] ?? "text";
  const indent = row.kind === "agent" ? "" : row.kind === "file" ? "  " : "    ";
  return (
    <Text wrap="truncate-end">
      <Text color={color("focus")}>{at ? "›" : " "}</Text>
      <Text color={color(m === "reject" ? "error" : "ok")}>{glyph}</Text>
      {indent}
      <Text color={color(role)} bold={row.kind !== "hunk"} inverse={at}>
        {row.text}
      </Text>
      {row.kind === "file" && row.folded ? <Text color={color("muted")}> (folded)</Text> : null}
      {comment ? <Text color={color("accent")}> ✎ {displayLine(comment)}</Text> : null}
    </Text>
  );
}
