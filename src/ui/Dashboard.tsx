import { Box, Text } from "ink";
import type React from "react";
import { memo, type MutableRefObject } from "react";
import { useDashboardState } from "./hooks/use-external.js";
import { frameAt } from "./hooks/use-ticker.js";
import type { DashboardStore } from "./state/store.js";
import { AgentPane, CollapsedAgent } from "./AgentPane.js";
import type { Layout } from "./layout.js";
import { placeholder } from "./state/reducer.js";
import type { AgentView, DashboardState } from "./state/types.js";
import { windowRows } from "./selection.js";
import { color } from "./theme.js";
import { Welcome } from "./Welcome.js";
import { allRows, tailRows, type Row } from "./wrap.js";

export interface DashboardProps {
  state: DashboardState;
  layout: Layout;
  focus: string | null;
  frame: number;
  now: number;
  /** Whether a run is in progress: the coordinator's status follows it. */
  busy: boolean;
  /** The selected tool call in the focused pane, and how far that pane is scrolled to show it. */
  selected: number | null;
  paneScroll: number;
}

// The coordinator as drawn is derived from the state on every render of the body; kept by what it
// is made from, it is the same object while that does not change, so its memoised pane skips the
// frames in which only sub-agents streamed.
const placeholders = new WeakMap<DashboardState["session"], AgentView>();
const shownRunning = new WeakMap<AgentView, AgentView>();
const shownIdle = new WeakMap<AgentView, AgentView>();

function coordinatorOf(state: DashboardState): AgentView {
  const agent = state.agents[state.rootAgentId];
  if (agent) return agent;
  let shown = placeholders.get(state.session);
  if (!shown || shown.id !== state.rootAgentId) placeholders.set(state.session, (shown = placeholder(state, state.rootAgentId, state.session.startedAt ?? 0)));
  return shown;
}

function kept(cache: WeakMap<AgentView, AgentView>, agent: AgentView, make: () => AgentView): AgentView {
  let shown = cache.get(agent);
  if (!shown) cache.set(agent, (shown = make()));
  return shown;
}

/** Pane chunks of `columns` for the grid's rows. */
function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The coordinator as shown: its status follows the run, whatever events the core sends for it. */
export function coordinatorView(state: DashboardState, busy: boolean): AgentView {
  const agent = coordinatorOf(state);
  if (busy && agent.status !== "running") return kept(shownRunning, agent, () => ({ ...agent, status: "running", finishedAt: undefined }));
  if (!busy && agent.status === "running") return kept(shownIdle, agent, () => ({ ...agent, status: "idle" }));
  return agent;
}

/** A pane's rows: the tail, or — focused with a selection — the window that shows the selected call. */
export function paneRows(agent: AgentView, width: number, height: number, selected: number | null, scroll: number): Row[] {
  const inner = width - 2;
  const visible = height - 3;
  if (selected === null && scroll === 0) return tailRows(agent.entries, inner, visible);
  return windowRows(allRows(agent.entries, inner, "pane"), visible, scroll);
}

/** The body: the coordinator pane (or its line), the sub-agent grid, the folded finished sub-agents. */
export function Dashboard({ state, layout, focus, frame, now, busy, selected, paneScroll }: DashboardProps): React.JSX.Element {
  const coordinator = coordinatorView(state, busy);
  const { grid } = layout;
  const focusedSelection = (id: string | null) => (focus === id ? { selected, scroll: paneScroll } : { selected: null, scroll: 0 });
  const c = focusedSelection(null);
  const coordinatorRows = layout.coordinator.mode === "pane" ? paneRows(coordinator, layout.width, layout.coordinator.height, c.selected, c.scroll) : [];
  return (
    <Box flexDirection="column" height={layout.bodyHeight} overflowY="hidden">
      {layout.coordinator.mode === "pane" ? (
        <Welcome agent={coordinator} rows={coordinatorRows} width={layout.width} height={layout.coordinator.height} focused={focus === null} frame={frame} now={now}>
          <AgentPane
            agent={coordinator}
            rows={coordinatorRows}
            width={layout.width}
            height={layout.coordinator.height}
            focused={focus === null}
            frame={frame}
            now={now}
            selected={c.selected}
          />
        </Welcome>
      ) : (
        <CollapsedAgent agent={coordinator} focused={focus === null} frame={frame} />
      )}
      {chunk(grid.panes, grid.columns).map((ids) => (
        <Box key={ids.join(",")} flexDirection="row" height={grid.paneHeight}>
          {ids.map((id) => {
            const agent = state.agents[id];
            if (!agent) return null;
            const s = focusedSelection(id);
            return (
              <AgentPane
                key={id}
                agent={agent}
                rows={paneRows(agent, grid.paneWidth, grid.paneHeight, s.selected, s.scroll)}
                width={grid.paneWidth}
                height={grid.paneHeight}
                focused={focus === id}
                frame={frame}
                now={now}
                selected={s.selected}
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
        <Text color={color("muted")} wrap="truncate-end">
          +{grid.hidden} more sub-agent{grid.hidden === 1 ? "" : "s"} (Tab to reach, z to zoom)
        </Text>
      ) : null}
    </Box>
  );
}

/**
 * The body following the store itself: a streamed delta re-renders it (and, through their memo,
 * only the panes whose rows changed) without the App around it, whose props stay the same. It
 * draws with the time of its own render, later than the App's clock when a flush rendered it, so
 * spinners and clocks move with the flushes; `drawn` tells the App's clock it need not tick.
 */
export const LiveDashboard = memo(function LiveDashboard({ store, drawn, now: clock, ...props }: Omit<DashboardProps, "state" | "frame"> & { store: DashboardStore; drawn: MutableRefObject<number> }): React.JSX.Element {
  const state = useDashboardState(store);
  const now = Math.max(clock, Date.now());
  drawn.current = now;
  return <Dashboard state={state} {...props} now={now} frame={frameAt(now)} />;
});
