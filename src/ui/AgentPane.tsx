import { Box, Text } from "ink";
import type React from "react";
import { memo, useMemo } from "react";
import { formatDuration, formatTokens, SPINNER, toolColor, toolIcon } from "./format.js";
import type { AgentState, AgentView, ToolEntry } from "./state/types.js";
import cliTruncate from "cli-truncate";
import { color, paint, type Role } from "./theme.js";
import type { Row } from "./wrap.js";
import { textWidth } from "./wrap-styled.js";
import { paneCost } from "./cost-text.js";

const withDot = (text: string): string => (text ? ` · ${text}` : "");

export function agentIcon(status: AgentState, frame: number): { icon: string; color: string | undefined; role: Role } {
  const is = (icon: string, role: Role) => ({ icon, color: color(role), role });
  switch (status) {
    case "running":
      return is(SPINNER[frame % SPINNER.length]!, "running");
    case "idle":
      return is("●", "muted");
    case "done":
      return is("✓", "ok");
    case "failed":
      return is("✗", "error");
    case "cancelled":
      return is("⊘", "warn");
    default:
      return is("■", "warn");
  }
}

/** A pane's title as one styled line: icon, name, label, state and clock, the current tool, a note. */
export function titleLine(agent: AgentView, frame: number, now: number, focused: boolean, note?: string): string {
  const { icon, role } = agentIcon(agent.status, frame);
  const tool = agent.currentTool;
  const tokens = agent.tokens.input + agent.tokens.output;
  // The board task right after the state, so a narrow pane still shows it (its title only when the label does not say it).
  const task = agent.boardTask ? ` ▸ ${agent.boardTask.id}${agent.boardTask.title === agent.label ? "" : ` ${agent.boardTask.title}`}` : "";
  const state =
    ` ${agent.status}` +
    task +
    (agent.background ? " · bg" : "") +
    (agent.continued ? " · continued" : "") +
    (agent.status === "idle" ? "" : ` · ${formatDuration((agent.finishedAt ?? now) - agent.startedAt)}`) +
    (agent.steps ? ` · step ${agent.steps}` : "") +
    (tokens ? ` · ${formatTokens(tokens)} tok` : "") +
    withDot(paneCost(agent.tokens));
  return (
    paint(role, `${icon} `) +
    paint(focused ? "focus" : null, agent.id, { bold: true }) +
    (agent.label ? paint("label", ` [${agent.label}]`) : "") +
    paint("muted", state) +
    (tool && agent.status === "running" ? paint("running", ` ${SPINNER[frame % SPINNER.length]} ${tool.name}${tool.summary ? ` ${tool.summary}` : ""}`) : "") +
    (note ? paint("warn", ` ${note}`) : "")
  );
}

/** A tool call's own row: icon, name, summary, its time or state, and (in a pane) its error's first line. */
function toolLine(entry: ToolEntry, frame: number, now: number, inline: boolean): string {
  let tail = "";
  if (entry.durationMs !== undefined) tail = ` ${formatDuration(entry.durationMs)}`;
  else if (entry.state === "running" && entry.startedAt !== undefined) tail = ` ${formatDuration(now - entry.startedAt)}`;
  else if (entry.state === "waiting") tail = " waiting";
  else if (entry.state === "asking") tail = " awaiting permission";
  // Zoomed, the whole error is drawn on the rows below; in a pane its first line ends the row. A
  // write refused as stale says why in a few words either way (the agent gets the whole message).
  const error = entry.conflict ? ` — ${entry.conflict}` : inline && entry.error && entry.state !== "ok" ? ` — ${entry.error}` : "";
  return (
    paint(toolColor(entry.state), `${toolIcon(entry.state, frame)} `) +
    paint(null, entry.name, { bold: true }) +
    (entry.summary ? ` ${entry.summary}` : "") +
    paint("muted", tail) +
    paint(entry.state === "cancelled" ? "warn" : "error", error)
  );
}

/**
 * One row of a pane as styled text, no wider than `width` (the width its rows were wrapped to). A
 * tool call's own row is drawn now (its spinner and clock move) and cut at the end.
 */
export function rowLine(row: Row, frame: number, now: number, selected: boolean, inline: boolean, width: number): string {
  const e = row.entry;
  const text = row.text;
  let line: string;
  if (row.styled) line = text;
  else if (e.kind === "tool") {
    if (row.note) {
      const noteRole = row.key.includes(":e") ? (e.state === "cancelled" ? "warn" : "error") : e.state === "waiting" ? "warn" : "muted";
      line = paint(noteRole, text);
    } else line = toolLine(e, frame, now, inline);
  } else if (e.kind === "user") line = paint("user", text, { bold: true });
  else if (e.kind === "thinking") line = paint("muted", text, { italic: true });
  else if (e.kind === "notice") line = paint("muted", text);
  else if (e.kind === "error") line = paint("error", text);
  else line = text;
  // A row wider than the pane would wrap inside the body's one text and push the rows below it
  // down: it is cut, as Ink's truncate-end cut each row before. Rows are cached objects, so their
  // width is measured once; the tool row is drawn anew.
  const tooWide = e.kind === "tool" && !row.note ? textWidth(line) > width : widthOf(row, line) > width;
  if (tooWide) line = cliTruncate(line, width, { position: "end" });
  return selected ? paint(null, line, { inverse: true }) : line;
}

const rowWidths = new WeakMap<Row, number>();

function widthOf(row: Row, line: string): number {
  let width = rowWidths.get(row);
  if (width === undefined) rowWidths.set(row, (width = textWidth(line)));
  return width;
}

interface RowProps {
  row: Row;
  frame: number;
  now: number;
  selected: boolean;
  /** The tool row shows its error's first line (panes); zoom draws it whole below. */
  inline: boolean;
  width: number;
}

/** Text rows never change once wrapped; only a running tool row follows the clock. */
function sameRow(a: RowProps, b: RowProps): boolean {
  if (a.row !== b.row || a.selected !== b.selected || a.inline !== b.inline || a.width !== b.width) return false;
  const e = a.row.entry;
  return e.kind !== "tool" || e.state !== "running" || (a.frame === b.frame && Math.floor(a.now / 100) === Math.floor(b.now / 100));
}

/** One row on its own (the welcome pane's notices). */
export const RowView = memo(function RowView({ row, frame, now, selected, inline, width }: RowProps): React.JSX.Element {
  // An empty Text has no height in Ink: a blank line must hold a space to keep its row.
  return <Text>{rowLine(row, frame, now, selected, inline, width) || " "}</Text>;
}, sameRow);

export interface AgentPaneProps {
  agent: AgentView;
  /** Rows to show, already wrapped to width - 2. */
  rows: readonly Row[];
  width: number;
  height: number;
  focused: boolean;
  frame: number;
  now: number;
  /** Extra text at the end of the title (scroll position in zoom). */
  note?: string;
  /** The selected tool call's seq, drawn inverse. */
  selected?: number | null;
  /** Zoomed: tool errors are drawn whole below their row. */
  zoomed?: boolean;
}

/** A bordered pane: title row (icon, name, label, state, current tool), then its transcript rows. */
function AgentPaneImpl({ agent, rows, width, height, focused, frame, now, note, selected = null, zoomed = false }: AgentPaneProps): React.JSX.Element {
  const inner = width - 2;
  const body = usePaneBody(rows, frame, now, selected, !zoomed, inner);
  let title = titleLine(agent, frame, now, focused, note);
  if (textWidth(title) > inner) title = cliTruncate(title, inner, { position: "end" });
  // Title and body are one text: Ink lays out, measures, walks and draws one node a pane (with 32
  // panes on screen, a second text each was a sixth of a frame's layout and output). Every line
  // is cut to the pane already, so Ink has nothing to wrap.
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={color(focused ? "focus" : "border")} overflowY="hidden">
      <Text>{body === null ? title : `${title}\n${body}`}</Text>
    </Box>
  );
}

/**
 * The pane's rows as one string: Ink lays out, walks and draws one node for the whole body instead
 * of one per row (with 8 streaming panes, per-row nodes were most of a frame's layout and commit).
 */
function paneBody(rows: readonly Row[], frame: number, now: number, selected: number | null, inline: boolean, width: number): string {
  let body = "";
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (i > 0) body += "\n";
    body += rowLine(row, frame, now, selected !== null && row.entry.seq === selected && !row.note, inline, width);
  }
  return body;
}

const hasRunningTool = (rows: readonly Row[]): boolean => rows.some((r) => r.entry.kind === "tool" && r.entry.state === "running");

/**
 * The body's string, drawn again only when its rows, selection or width change, or — while it
 * shows a running call — when the clock moves; a tick of the spinner (which moves every running
 * pane's title) leaves it alone. Null when there are no rows.
 */
function usePaneBody(rows: readonly Row[], frame: number, now: number, selected: number | null, inline: boolean, width: number): string | null {
  const clock = hasRunningTool(rows) ? `${frame}:${Math.floor(now / 100)}` : "";
  // frame and now count only through `clock`.
  return useMemo(() => (rows.length ? paneBody(rows, frame, now, selected, inline, width) : null), [rows, selected, inline, width, clock]);
}

function sameRows(a: readonly Row[], b: readonly Row[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A pane re-renders when its agent, its rows (cached Row objects, so an unchanged transcript
 * compares equal) or its box change; a running pane also when its spinner frame moves.
 */
function samePane(a: AgentPaneProps, b: AgentPaneProps): boolean {
  if (a.agent !== b.agent || a.width !== b.width || a.height !== b.height || a.focused !== b.focused || a.note !== b.note || a.selected !== b.selected || a.zoomed !== b.zoomed) return false;
  if (!sameRows(a.rows, b.rows)) return false;
  if (a.agent.status === "running" || hasRunningTool(a.rows)) return a.frame === b.frame;
  // Idle and finished panes show no clock that moves.
  return true;
}

export const AgentPane = memo(AgentPaneImpl, samePane);

/** A finished sub-agent folded to one line. */
interface CollapsedProps {
  agent: AgentView;
  focused: boolean;
  frame: number;
}

export const CollapsedAgent = memo(CollapsedAgentImpl, (a: CollapsedProps, b: CollapsedProps) => a.agent === b.agent && a.focused === b.focused && (a.agent.status !== "running" || a.frame === b.frame));

function CollapsedAgentImpl({ agent, focused, frame }: CollapsedProps): React.JSX.Element {
  const { icon, color: iconColor } = agentIcon(agent.status, frame);
  const took = agent.finishedAt !== undefined ? formatDuration(agent.finishedAt - agent.startedAt) : "";
  const tokens = agent.tokens.input + agent.tokens.output;
  return (
    <Text wrap="truncate-end" inverse={focused}>
      <Text color={iconColor}>{icon} </Text>
      <Text bold>{agent.id}</Text>
      {agent.label ? <Text color={color("label")}> [{agent.label}]</Text> : null}
      <Text color={color("muted")}>
        {" "}
        {agent.status}
        {agent.background ? " · bg" : ""}
        {agent.continued ? " · continued" : ""} · {agent.steps} step{agent.steps === 1 ? "" : "s"}
        {tokens ? ` · ${formatTokens(tokens)} tok` : ""}
        {withDot(paneCost(agent.tokens))}
        {took ? ` · ${took}` : ""}
      </Text>
    </Text>
  );
}
