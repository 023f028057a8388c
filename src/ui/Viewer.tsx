import { Box, Text } from "ink";
import type React from "react";
import { useMemo, useRef, useState } from "react";
import { fitFields } from "./fit.js";
import { agentTitle, formatDuration } from "./format.js";
import { useKeyLayer, useKeymap } from "./hooks/key-layers.js";
import { KeyPriority, keysText } from "./keymap.js";
import type { DashboardState, ToolEntry } from "./state/types.js";
import type { DocLine, ViewerTarget } from "./state/ui.js";
import { color, paint } from "./theme.js";
import { diffLine } from "./wrap.js";
import { wrapStyled } from "./wrap-styled.js";
import { tasksDocument } from "./task-panel.js";

/** What the viewer shows for a target: a tool call's diff and whole output, or a document. */
export function viewerDocument(target: ViewerTarget, state: DashboardState): { title: string; lines: DocLine[] } {
  if (target.kind === "doc") return { title: target.title, lines: [...target.lines] };
  if (target.kind === "tasks") return tasksDocument(state);
  if (target.kind === "review") return { title: "review", lines: [] };
  const agent = state.agents[target.agentId];
  const entry = agent?.entries.find((e): e is ToolEntry => e.kind === "tool" && e.seq === target.seq);
  if (!agent || !entry) return { title: "output", lines: [{ text: "(this call has left the pane's history; the session log keeps it)" }] };
  const lines: DocLine[] = [];
  const took = entry.durationMs !== undefined ? ` · ${formatDuration(entry.durationMs)}` : "";
  const title = `${agentTitle(agent)} · ${entry.name} ${entry.summary} · ${entry.state}${took}`;
  if (entry.diff) {
    lines.push({ text: "applied diff:", styled: paint("muted", "applied diff:", { bold: true }) });
    for (const l of entry.diff.replace(/\n$/, "").split("\n")) lines.push({ text: l, styled: diffLine(l, Number.MAX_SAFE_INTEGER) });
    lines.push({ text: "" });
  }
  if (entry.errorText && entry.state !== "ok") {
    for (const l of entry.errorText.split("\n")) lines.push({ text: l, styled: paint("error", l) });
    lines.push({ text: "" });
  }
  if (entry.output !== undefined) {
    if (entry.diff || (entry.errorText && entry.state !== "ok")) lines.push({ text: "what the model received:", styled: paint("muted", "what the model received:", { bold: true }) });
    for (const l of entry.output.replace(/\n$/, "").split("\n")) lines.push({ text: l });
  } else if (entry.outputDropped) lines.push({ text: "(the output was dropped from memory to keep the pane small; the session log keeps it)" });
  else lines.push({ text: entry.state === "running" || entry.state === "queued" || entry.state === "waiting" || entry.state === "asking" ? "(no output yet: the call has not finished)" : "(no output)" });
  return { title, lines };
}

interface ViewRow {
  text: string;
  styled?: string;
}

function wrapDoc(lines: readonly DocLine[], width: number): ViewRow[] {
  const rows: ViewRow[] = [];
  for (const line of lines) {
    if (line.text === "") {
      rows.push({ text: "" });
      continue;
    }
    const plain = wrapStyled(line.text, width, false);
    const styled = line.styled ? wrapStyled(line.styled, width, false) : undefined;
    plain.forEach((text, i) => rows.push({ text, styled: styled && styled.length === plain.length ? styled[i] : undefined }));
  }
  return rows;
}

export interface ViewerProps {
  target: ViewerTarget;
  state: DashboardState;
  width: number;
  height: number;
  onClose(): void;
}

/** A tool call's whole output (or /help, /cost…), scrollable, with `/` to search. */
export function Viewer({ target, state, width, height, onClose }: ViewerProps): React.JSX.Element {
  const keymap = useKeymap();
  const doc = useMemo(() => viewerDocument(target, state), [target, state]);
  const inner = Math.max(1, width - 2);
  const rows = useMemo(() => wrapDoc(doc.lines, inner), [doc, inner]);
  const visible = Math.max(1, height - 4);
  const maxTop = Math.max(0, rows.length - visible);
  const [top, setTop] = useState(0);
  const [query, setQuery] = useState("");
  const [typing, setTypingState] = useState<string | null>(null);
  // The search being typed, as the keys left it: a key handled before React re-rendered (a busy
  // machine) must not see the text from before the previous key.
  const typed = useRef<string | null>(null);
  const setTyping = (text: string | null): void => {
    typed.current = text;
    setTypingState(text);
  };
  const at = Math.min(top, maxTop);
  const matches = useMemo(() => {
    if (!query) return [];
    const q = query.toLowerCase();
    return rows.flatMap((r, i) => (r.text.toLowerCase().includes(q) ? [i] : []));
  }, [rows, query]);

  const go = (to: number): void => setTop(Math.max(0, Math.min(maxTop, to)));
  const jump = (dir: 1 | -1, from = at): void => {
    if (!matches.length) return;
    const next = dir === 1 ? (matches.find((m) => m > from) ?? matches[0]!) : ([...matches].reverse().find((m) => m < from) ?? matches[matches.length - 1]!);
    go(next);
  };

  useKeyLayer(KeyPriority.Viewer, {
    actions: typing === null
      ? {
          line_up: () => go(at - 1),
          line_down: () => go(at + 1),
          page_up: () => go(at - (visible - 1)),
          page_down: () => go(at + (visible - 1)),
          top: () => go(0),
          bottom: () => go(maxTop),
          search: () => setTyping(""),
          next_match: () => jump(1),
          prev_match: () => jump(-1),
          close: onClose,
        }
      : {},
    text: (press) => {
      // "/150" that arrived in one read (fast typing, tmux send-keys) is a search too.
      const typing = typed.current;
      if (typing === null && press.name === "text" && press.pasted && press.text.startsWith("/")) {
        setTyping(press.text.slice(1).replace(/[\r\n]+/g, " "));
        return true;
      }
      if (typing === null) return false;
      if (press.name === "escape") setTyping(null);
      else if (press.name === "return") {
        setQuery(typing);
        setTyping(null);
        const q = typing.toLowerCase();
        const first = q ? rows.findIndex((r, i) => i >= at && r.text.toLowerCase().includes(q)) : -1;
        const any = first >= 0 ? first : q ? rows.findIndex((r) => r.text.toLowerCase().includes(q)) : -1;
        if (any >= 0) go(any);
      } else if (press.name === "backspace") setTyping(typing.slice(0, -1));
      else if (press.name === "text") setTyping(typing + press.text.replace(/[\r\n]+/g, " "));
      return true;
    },
    // Modal: the panes below do not scroll or zoom while the viewer is open; Ctrl+C still stops a run.
    modal: (press) => !(press.name === "ctrl" && press.text === "c"),
  });

  const shown = rows.slice(at, at + visible);
  const q = query.toLowerCase();
  const lastShown = Math.min(rows.length, at + visible);
  const where = rows.length ? `lines ${at + 1}–${lastShown} of ${rows.length}` : "empty";
  const found = query ? `"${query}": ${matches.length ? `${matches.filter((m) => m <= at).length || 1} of ${matches.length}` : "no match"}` : "";
  const k = (action: Parameters<typeof keysText>[2]): string => keysText(keymap, KeyPriority.Viewer, action);
  // The match count first; key hints go whole, from the right, when the line is short.
  const status = fitFields(
    [
      ...(found ? [{ text: found, drop: 0 }] : []),
      { text: `${k("search")} search`, drop: 1 },
      { text: `${k("next_match")}/${k("prev_match")} next/prev`, drop: 3 },
      { text: `${k("line_up")} ${k("page_up")} scroll`, drop: 4 },
      { text: `${k("close")} back`, drop: 2 },
    ],
    inner,
  )
    .map((f) => f.text)
    .join(" · ");
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={color("focus")} overflowY="hidden">
      <Text wrap="truncate-end">
        <Text bold color={color("focus")}>{doc.title}</Text>
        <Text color={color("muted")}>
          {" "}· {where}
        </Text>
      </Text>
      {shown.map((row, i) => {
        const hit = q && row.text.toLowerCase().includes(q);
        if (hit) {
          const s = row.text.toLowerCase().indexOf(q);
          return (
            <Text key={at + i} wrap="truncate-end">
              {row.text.slice(0, s)}
              <Text inverse color={color("match")}>{row.text.slice(s, s + q.length)}</Text>
              {row.text.slice(s + q.length)}
            </Text>
          );
        }
        return (
          <Text key={at + i} wrap="truncate-end">
            {row.styled ?? (row.text || " ")}
          </Text>
        );
      })}
      <Box flexGrow={1} />
      {typing !== null ? (
        <Text wrap="truncate-end">
          <Text color={color("accent")}>/</Text>
          {typing}
          <Text inverse> </Text>
          <Text color={color("muted")}> Enter find · Esc drop</Text>
        </Text>
      ) : (
        <Text wrap="truncate-end" color={color("muted")}>
          {status}
        </Text>
      )}
    </Box>
  );
}
