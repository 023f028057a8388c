import { Box, Text } from "ink";
import type React from "react";
import { AgentPane, CollapsedAgent } from "./AgentPane.js";
import type { Layout } from "./layout.js";
import { placeholder } from "./state/reducer.js";
import type { AgentView, DashboardState } from "./state/types.js";
import { Welcome } from "./Welcome.js";
import { tailRows } from "./wrap.js";

export interface DashboardProps {
  state: DashboardState;
  layout: Layout;
  focus: string | null;
  frame: number;
  now: number;
  /** Whether a run is in progress: the coordinator's status follows it. */
  busy: boolean;
}

function coordinatorOf(state: DashboardState): AgentView {
  return state.agents[state.rootAgentId] ?? placeholder(state, state.rootAgentId, state.session.startedAt ?? 0);
}

/** Pane chunks of `columns` for the grid's rows. */
function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The body: the coordinator pane, the sub-agent grid, the folded finished sub-agents. */
/** The coordinator as shown: its status follows the run, whatever events the core sends for it. */
export function coordinatorView(state: DashboardState, busy: boolean): AgentView {
  const agent = coordinatorOf(state);
  if (busy && agent.status !== "running") return { ...agent, status: "running", finishedAt: undefined };
  if (!busy && agent.status === "running") return { ...agent, status: "idle" };
  return agent;
}

export function Dashboard({ state, layout, focus, frame, now, busy }: DashboardProps): React.JSX.Element {
  const coordinator = coordinatorView(state, busy);
  const inner = layout.width - 2;
  const coordinatorRows = tailRows(coordinator.entries, inner, layout.coordinatorHeight - 3);
  const { grid } = layout;
  const paneInner = grid.paneWidth - 2;
  return (
    <Box flexDirection="column" height={layout.bodyHeight} overflowY="hidden">
      <Welcome agent={coordinator} rows={coordinatorRows} width={layout.width} height={layout.coordinatorHeight} focused={focus === null} frame={frame} now={now}>
        <AgentPane
          agent={coordinator}
          rows={coordinatorRows}
          width={layout.width}
          height={layout.coordinatorHeight}
          focused={focus === null}
          frame={frame}
          now={now}
        />
      </Welcome>
      {chunk(grid.panes, grid.columns).map((ids) => (
        <Box key={ids.join(",")} flexDirection="row" height={grid.paneHeight}>
          {ids.map((id) => {
            const agent = state.agents[id];
            if (!agent) return null;
            return (
              <AgentPane
                key={id}
                agent={agent}
                rows={tailRows(agent.entries, paneInner, grid.paneHeight - 3)}
                width={grid.paneWidth}
                height={grid.paneHeight}
                focused={focus === id}
                frame={frame}
                now={now}
              />
            );
          })}
        </Box>
      ))}
      {grid.collapsed.map((id) => {
        const agent = state.agents[id];
        return agent ? <CollapsedAgent key={id} agent={agent} focused={focus === id} frame={frame} /> : null;
      })}
      {grid.hidden > 0 ? (
        <Text color="gray">
          +{grid.hidden} more sub-agent{grid.hidden === 1 ? "" : "s"} (Tab to reach, z to zoom)
        </Text>
      ) : null}
    </Box>
  );
}
