import { Box, Text, useInput, type Key } from "ink";
import type React from "react";
import { useCallback, useReducer, useRef } from "react";
import type { SessionInfo } from "../sessions/store.js";
import { useTerminalSize } from "./hooks/use-terminal-size.js";
import { normalizeKey, type KeyPress } from "./keys.js";
import { terminalSafe } from "../util/terminal-text.js";
import { displayLine } from "./format.js";
import { ScreenTitle } from "./ScreenTitle.js";
import { color } from "./theme.js";

export interface SessionPickerProps {
  /** Newest first, as listSessions returns them. */
  sessions: readonly SessionInfo[];
  /** Called once: the chosen session's id, or null when the user quits. */
  onDone: (id: string | null) => void;
  /** The user's home, shortened to ~ in workspace paths. */
  home?: string;
}

/** Sessions whose id, workspace, first prompt, status or model hold every word of `query`. */
export function filterSessions(sessions: readonly SessionInfo[], query: string): SessionInfo[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...sessions];
  return sessions.filter((s) => {
    const hay = `${s.id} ${s.workspace} ${s.firstPrompt} ${s.status} ${s.model}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

const pad2 = (n: number): string => String(n).padStart(2, "0");

/** Local start time, fixed width so the columns line up: 2025-01-31 14:03. */
export function formatStart(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
}

function shortPath(path: string, home: string | undefined, max: number): string {
  const p = home && (path === home || path.startsWith(`${home}/`)) ? `~${path.slice(home.length)}` : path;
  return p.length > max ? `…${p.slice(p.length - max + 1)}` : p;
}

function statusColor(status: string): string | undefined {
  switch (status) {
    case "done":
    case "idle":
      return color("ok");
    case "failed":
      return color("error");
    case "interrupted":
    case "cancelled":
      return color("warn");
    default:
      return color("label");
  }
}

/** The first row of the window of `visible` rows: it moves only as far as `selected` needs. */
export function windowStart(previous: number, selected: number, visible: number, total: number): number {
  if (total <= visible) return 0;
  const start = Math.min(Math.max(previous, selected - visible + 1), selected);
  return Math.min(Math.max(0, start), total - visible);
}

export interface PickerView {
  query: string;
  selected: number;
}

/** What one key does to the picker: a new view, or the answer (an id, or null to quit). */
export function pickerStep(view: PickerView, key: KeyPress, sessions: readonly SessionInfo[], page: number): { view: PickerView } | { done: string | null } {
  const shown = filterSessions(sessions, view.query);
  const last = Math.max(0, shown.length - 1);
  const at = Math.min(view.selected, last);
  const move = (to: number): { view: PickerView } => ({ view: to === view.selected ? view : { ...view, selected: to } });
  // A new filter starts from its best (most recent) match.
  const filter = (query: string): { view: PickerView } => ({ view: query === view.query ? view : { query, selected: 0 } });
  switch (key.name) {
    case "escape":
      return { done: null };
    case "return":
      return shown[at] ? { done: shown[at].id } : { view };
    case "up":
      return move(Math.max(0, at - 1));
    case "down":
      return move(Math.min(last, at + 1));
    case "pageup":
      return move(Math.max(0, at - page));
    case "pagedown":
      return move(Math.min(last, at + page));
    case "home":
      return move(0);
    case "end":
      return move(last);
    case "backspace":
      return filter(view.query.slice(0, -1));
    case "ctrl":
      if (key.text === "c") return { done: null };
      return key.text === "u" ? filter("") : { view };
    case "text": {
      const text = key.text.replace(/[\r\n\t]+/g, " ");
      const clean = terminalSafe(text);
      return clean ? filter(view.query + clean) : { view };
    }
    default:
      return { view };
  }
}

/** Rows the frame spends on other things than the list: title, filter, borders, heading, hints. */
const CHROME_ROWS = 6;
const STATUS_WIDTH = 11;

/**
 * `orca --resume` without an id: the recent sessions in the dashboard's style. ↑/↓ (PgUp/PgDn,
 * Home/End) move, Enter opens, typing filters, Backspace and Ctrl+U edit the filter, Esc or
 * Ctrl+C quits.
 */
export function SessionPicker({ sessions, onDone, home }: SessionPickerProps): React.JSX.Element {
  const size = useTerminalSize();
  // Keys can arrive faster than React re-renders (a paste, key repeat): each one must see the
  // state the previous one left, so the state lives in a ref and a counter triggers the render.
  const view = useRef<PickerView>({ query: "", selected: 0 });
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const done = useRef(false);
  const topRef = useRef(0);

  // A frame as tall as the terminal makes Ink clear the screen on every render (see layout.ts).
  const height = Math.max(8, size.rows - 1);
  const width = Math.max(40, size.columns);
  const visible = Math.max(1, height - CHROME_ROWS);

  const finish = useCallback(
    (id: string | null) => {
      if (done.current) return;
      done.current = true;
      onDone(id);
    },
    [onDone],
  );

  useInput((input: string, raw: Key) => {
    if (done.current) return;
    const step = pickerStep(view.current, normalizeKey(input, raw), sessions, visible);
    if ("done" in step) finish(step.done);
    else if (step.view !== view.current) {
      view.current = step.view;
      rerender();
    }
  });

  const { query } = view.current;
  const shown = filterSessions(sessions, query);
  const at = Math.min(view.current.selected, Math.max(0, shown.length - 1));
  const top = windowStart(topRef.current, at, visible, shown.length);
  topRef.current = top;

  const idWidth = Math.max(8, ...sessions.map((s) => s.id.length));
  const workspaceWidth = Math.min(32, Math.max(9, Math.floor(width / 5)));
  const rows = shown.slice(top, top + visible);
  const count = query ? `${shown.length} of ${sessions.length}` : `${sessions.length}`;

  return (
    <Box flexDirection="column" width={width} height={height} overflowY="hidden">
      <ScreenTitle title="resume a session">
        <Text color={color("muted")}>
          {" "}
          · {count} session{sessions.length === 1 ? "" : "s"}, most recent first
        </Text>
      </ScreenTitle>
      <Box height={1}>
        <Text wrap="truncate-end">
          <Text color={color("accent")}>filter › </Text>
          {query ? <Text>{query}</Text> : <Text color={color("muted")}>type to filter by id, workspace, prompt or status</Text>}
        </Text>
      </Box>
      <Box flexDirection="column" borderStyle="round" borderColor={color("accent")} height={height - 3} overflowY="hidden">
        <Text wrap="truncate-end" color={color("muted")}>
          {"  "}
          {"ID".padEnd(idWidth)} {"STARTED".padEnd(16)} {"STATUS".padEnd(STATUS_WIDTH)} {"WORKSPACE".padEnd(workspaceWidth)} FIRST PROMPT
        </Text>
        {rows.length === 0 ? <Text color={color("warn")}>{"  "}no session matches “{query}”</Text> : null}
        {rows.map((s, i) => {
          const current = top + i === at;
          return (
            <Text key={s.id} wrap="truncate-end" inverse={current}>
              <Text color={color("accent")}>{current ? "▸ " : "  "}</Text>
              <Text bold={current}>{s.id.padEnd(idWidth)}</Text>
              <Text color={color("muted")}> {formatStart(s.startedAt)} </Text>
              <Text color={statusColor(s.status)}>{s.status.padEnd(STATUS_WIDTH)}</Text>
              <Text> {shortPath(s.workspace, home, workspaceWidth).padEnd(workspaceWidth)} </Text>
              <Text>{displayLine(s.firstPrompt) || "(no prompt)"}</Text>
            </Text>
          );
        })}
      </Box>
      <Box height={1}>
        <Text wrap="truncate-end" color={color("muted")}>
          ↑/↓ move · Enter open · type to filter · Ctrl+U clear filter · Esc quit
        </Text>
      </Box>
    </Box>
  );
}
