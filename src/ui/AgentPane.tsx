import { Box, Text } from "ink";
import type React from "react";
import { memo } from "react";
import { formatDuration, formatTokens, SPINNER, toolColor, toolIcon } from "./format.js";
import type { AgentState, AgentView, ToolEntry } from "./state/types.js";
import type { Row } from "./wrap.js";

export function agentIcon(status: AgentState, frame: number): { icon: string; color: string } {
  switch (status) {
    case "running":
      return { icon: SPINNER[frame % SPINNER.length], color: "cyan" };
    case "idle":
      return { icon: "●", color: "gray" };
    case "done":
      return { icon: "✓", color: "green" };
    case "failed":
      return { icon: "✗", color: "red" };
    case "cancelled":
      return { icon: "⊘", color: "yellow" };
    default:
      return { icon: "■", color: "yellow" };
  }
}

function ToolRow({ entry, frame, now }: { entry: ToolEntry; frame: number; now: number }): React.JSX.Element {
  const color = toolColor(entry.state);
  let tail = "";
  if (entry.durationMs !== undefined) tail = ` ${formatDuration(entry.durationMs)}`;
  else if (entry.state === "running" && entry.startedAt !== undefined) tail = ` ${formatDuration(now - entry.startedAt)}`;
  else if (entry.state === "waiting") tail = " waiting";
  else if (entry.state === "asking") tail = " awaiting permission";
  // A write refused as stale says why in a few words (the agent gets the whole message).
  const error = entry.conflict ? ` — ${entry.conflict}` : entry.error && entry.state !== "ok" ? ` — ${entry.error}` : "";
  return (
    <Text wrap="truncate-end">
      <Text color={color}>{toolIcon(entry.state, frame)} </Text>
      <Text bold>{entry.name}</Text>
      {entry.summary ? <Text> {entry.summary}</Text> : null}
      <Text color="gray">{tail}</Text>
      {error ? <Text color={entry.state === "cancelled" ? "yellow" : "red"}>{error}</Text> : null}
    </Text>
  );
}

interface RowProps {
  row: Row;
  frame: number;
  now: number;
}

function RowViewImpl({ row, frame, now }: RowProps): React.JSX.Element {
  const e = row.entry;
  if (e.kind === "tool") return row.note ? <Text color={e.state === "waiting" ? "yellow" : "gray"}>{row.text}</Text> : <ToolRow entry={e} frame={frame} now={now} />;
  switch (e.kind) {
    case "user":
      return <Text color="cyan" bold>{row.text}</Text>;
    case "thinking":
      return <Text color="gray" italic>{row.text}</Text>;
    case "notice":
      return <Text color="gray">{row.text}</Text>;
    case "error":
      return <Text color="red">{row.text}</Text>;
    default:
      return <Text>{row.text}</Text>;
  }
}

/** Text rows never change once wrapped; only a running tool row follows the clock. */
function sameRow(a: RowProps, b: RowProps): boolean {
  if (a.row !== b.row) return false;
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
}

/** A bordered pane: title row (icon, name, label, state, current tool), then its transcript rows. */
function AgentPaneImpl({ agent, rows, width, height, focused, frame, now, note }: AgentPaneProps): React.JSX.Element {
  const { icon, color } = agentIcon(agent.status, frame);
  const tool = agent.currentTool;
  const elapsed = formatDuration((agent.finishedAt ?? now) - agent.startedAt);
  const tokens = agent.tokens.input + agent.tokens.output;
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={focused ? "cyan" : "gray"} overflowY="hidden">
      <Text wrap="truncate-end">
        <Text color={color}>{icon} </Text>
        <Text bold color={focused ? "cyan" : undefined}>{agent.name}</Text>
        {agent.label ? <Text color="magenta"> [{agent.label}]</Text> : null}
        <Text color="gray">
          {" "}
          {agent.status}
          {agent.background ? " · bg" : ""}
          {agent.status === "idle" ? "" : ` · ${elapsed}`}
          {agent.steps ? ` · step ${agent.steps}` : ""}
          {tokens ? ` · ${formatTokens(tokens)} tok` : ""}
        </Text>
        {tool && agent.status === "running" ? (
          <Text color="cyan">
            {" "}
            {SPINNER[frame % SPINNER.length]} {tool.name}
            {tool.summary ? ` ${tool.summary}` : ""}
          </Text>
        ) : null}
        {note ? <Text color="yellow"> {note}</Text> : null}
      </Text>
      {rows.map((row) => (
        <RowView key={row.key} row={row} frame={frame} now={now} />
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
  if (a.agent !== b.agent || a.width !== b.width || a.height !== b.height || a.focused !== b.focused || a.note !== b.note) return false;
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
  const { icon, color } = agentIcon(agent.status, frame);
  const took = agent.finishedAt !== undefined ? formatDuration(agent.finishedAt - agent.startedAt) : "";
  const tokens = agent.tokens.input + agent.tokens.output;
  return (
    <Text wrap="truncate-end" inverse={focused}>
      <Text color={color}>{icon} </Text>
      <Text bold>{agent.name}</Text>
      {agent.label ? <Text color="magenta"> [{agent.label}]</Text> : null}
      <Text color="gray">
        {" "}
        {agent.status}
        {agent.background ? " · bg" : ""} · {agent.steps} step{agent.steps === 1 ? "" : "s"}
        {tokens ? ` · ${formatTokens(tokens)} tok` : ""}
        {took ? ` · ${took}` : ""}
      </Text>
    </Text>
  );
}
