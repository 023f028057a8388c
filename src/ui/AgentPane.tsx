import { Box, Text } from "ink";
import type React from "react";
import { memo } from "react";
import { formatDuration, formatTokens, SPINNER, toolColor, toolIcon } from "./format.js";
import type { AgentState, AgentView, ToolEntry } from "./state/types.js";
import { color, type Role } from "./theme.js";
import type { Row } from "./wrap.js";

export function agentIcon(status: AgentState, frame: number): { icon: string; color: string | undefined } {
  const is = (icon: string, role: Role) => ({ icon, color: color(role) });
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

function ToolRow({ entry, frame, now, selected, inline }: { entry: ToolEntry; frame: number; now: number; selected: boolean; inline: boolean }): React.JSX.Element {
  const stateColor = color(toolColor(entry.state));
  let tail = "";
  if (entry.durationMs !== undefined) tail = ` ${formatDuration(entry.durationMs)}`;
  else if (entry.state === "running" && entry.startedAt !== undefined) tail = ` ${formatDuration(now - entry.startedAt)}`;
  else if (entry.state === "waiting") tail = " waiting";
  else if (entry.state === "asking") tail = " awaiting permission";
  // Zoomed, the whole error is drawn on the rows below; in a pane its first line ends the row. A
  // write refused as stale says why in a few words either way (the agent gets the whole message).
  const error = entry.conflict ? ` — ${entry.conflict}` : inline && entry.error && entry.state !== "ok" ? ` — ${entry.error}` : "";
  return (
    <Text wrap="truncate-end" inverse={selected}>
      <Text color={stateColor}>{toolIcon(entry.state, frame)} </Text>
      <Text bold>{entry.name}</Text>
      {entry.summary ? <Text> {entry.summary}</Text> : null}
      <Text color={color("muted")}>{tail}</Text>
      {error ? <Text color={color(entry.state === "cancelled" ? "warn" : "error")}>{error}</Text> : null}
    </Text>
  );
}

interface RowProps {
  row: Row;
  frame: number;
  now: number;
  selected: boolean;
  /** The tool row shows its error's first line (panes); zoom draws it whole below. */
  inline: boolean;
}

function RowViewImpl({ row, frame, now, selected, inline }: RowProps): React.JSX.Element {
  const e = row.entry;
  // An empty Text has no height in Ink: a blank line must hold a space to keep its row.
  const text = row.text || " ";
  if (row.styled) return <Text wrap="truncate-end">{text}</Text>;
  if (e.kind === "tool") {
    if (!row.note) return <ToolRow entry={e} frame={frame} now={now} selected={selected} inline={inline} />;
    const noteRole = row.key.includes(":e") ? (e.state === "cancelled" ? "warn" : "error") : e.state === "waiting" ? "warn" : "muted";
    return <Text wrap="truncate-end" color={color(noteRole)}>{text}</Text>;
  }
  switch (e.kind) {
    case "user":
      return <Text color={color("user")} bold>{text}</Text>;
    case "thinking":
      return <Text color={color("muted")} italic>{text}</Text>;
    case "notice":
      return <Text color={color("muted")}>{text}</Text>;
    case "error":
      return <Text color={color("error")}>{text}</Text>;
    default:
      return <Text>{text}</Text>;
  }
}

/** Text rows never change once wrapped; only a running tool row follows the clock. */
function sameRow(a: RowProps, b: RowProps): boolean {
  if (a.row !== b.row || a.selected !== b.selected || a.inline !== b.inline) return false;
  const e = a.row.entry;
  return e.kind !== "tool" || e.state !== "running" || (a.frame === b.frame && Math.floor(a.now / 100) === Math.floor(b.now / 100));
}

export const RowView = memo(RowViewImpl, sameRow);

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
  const { icon, color: iconColor } = agentIcon(agent.status, frame);
  const tool = agent.currentTool;
  const elapsed = formatDuration((agent.finishedAt ?? now) - agent.startedAt);
  const tokens = agent.tokens.input + agent.tokens.output;
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={color(focused ? "focus" : "border")} overflowY="hidden">
      <Text wrap="truncate-end">
        <Text color={iconColor}>{icon} </Text>
        <Text bold color={focused ? color("focus") : undefined}>{agent.name}</Text>
        {agent.label ? <Text color={color("label")}> [{agent.label}]</Text> : null}
        <Text color={color("muted")}>
          {" "}
          {agent.status}
          {agent.background ? " · bg" : ""}
          {agent.status === "idle" ? "" : ` · ${elapsed}`}
          {agent.steps ? ` · step ${agent.steps}` : ""}
          {tokens ? ` · ${formatTokens(tokens)} tok` : ""}
        </Text>
        {tool && agent.status === "running" ? (
          <Text color={color("running")}>
            {" "}
            {SPINNER[frame % SPINNER.length]} {tool.name}
            {tool.summary ? ` ${tool.summary}` : ""}
          </Text>
        ) : null}
        {note ? <Text color={color("warn")}> {note}</Text> : null}
      </Text>
      {rows.map((row) => (
        <RowView key={row.key} row={row} frame={frame} now={now} selected={selected !== null && row.entry.seq === selected && !row.note} inline={!zoomed} />
      ))}
    </Box>
  );
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
  if (a.agent.status === "running" || a.rows.some((r) => r.entry.kind === "tool" && r.entry.state === "running")) return a.frame === b.frame;
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
      <Text bold>{agent.name}</Text>
      {agent.label ? <Text color={color("label")}> [{agent.label}]</Text> : null}
      <Text color={color("muted")}>
        {" "}
        {agent.status}
        {agent.background ? " · bg" : ""} · {agent.steps} step{agent.steps === 1 ? "" : "s"}
        {tokens ? ` · ${formatTokens(tokens)} tok` : ""}
        {took ? ` · ${took}` : ""}
      </Text>
    </Text>
  );
}
