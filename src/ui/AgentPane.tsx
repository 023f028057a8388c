import { Box, Text } from "ink";
import React from "react";
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
  else if (entry.state === "waiting") tail = ` waits for ${entry.waitsFor.join(", ")}`;
  else if (entry.state === "asking") tail = " awaiting permission";
  const error = entry.error && entry.state !== "ok" ? ` — ${entry.error}` : "";
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

export function RowView({ row, frame, now }: { row: Row; frame: number; now: number }): React.JSX.Element {
  const e = row.entry;
  if (e.kind === "tool") return <ToolRow entry={e} frame={frame} now={now} />;
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
export function AgentPane({ agent, rows, width, height, focused, frame, now, note }: AgentPaneProps): React.JSX.Element {
  const { icon, color } = agentIcon(agent.status, frame);
  const tool = agent.currentTool;
  const elapsed = formatDuration((agent.finishedAt ?? now) - agent.startedAt);
  const tokens = agent.tokens.input + agent.tokens.output;
  return (
    <Box flexDirection="column" width={width} height={height} borderStyle="round" borderColor={focused ? "cyan" : "gray"} overflow="hidden">
      <Text wrap="truncate-end">
        <Text color={color}>{icon} </Text>
        <Text bold color={focused ? "cyan" : undefined}>{agent.name}</Text>
        {agent.label ? <Text color="magenta"> [{agent.label}]</Text> : null}
        <Text color="gray">
          {" "}
          {agent.status}
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

/** A finished sub-agent folded to one line. */
export function CollapsedAgent({ agent, focused, frame }: { agent: AgentView; focused: boolean; frame: number }): React.JSX.Element {
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
        {agent.status} · {agent.steps} step{agent.steps === 1 ? "" : "s"}
        {tokens ? ` · ${formatTokens(tokens)} tok` : ""}
        {took ? ` · ${took}` : ""}
      </Text>
    </Text>
  );
}
