/** Where each region goes for a terminal size and a set of sub-agents. Pure, so it is testable. */
export interface LayoutInput {
  columns: number;
  rows: number;
  /** Lines of text in the input box. */
  inputLines: number;
  /** Sub-agents in start order. */
  agents: readonly { id: string; running: boolean }[];
  focus: string | null;
  /** Rows taken from the body by something drawn beside the dashboard (the permission dialog). */
  reservedRows?: number;
}

export interface Layout {
  width: number;
  /** rows - 1: a frame as tall as the terminal makes ink 6.8 clear the screen on every render. */
  height: number;
  inputHeight: number;
  bodyHeight: number;
  coordinatorHeight: number;
  grid: {
    columns: number;
    paneWidth: number;
    paneHeight: number;
    /** Running sub-agents drawn as panes. */
    panes: string[];
    /** Finished sub-agents drawn as one line each. */
    collapsed: string[];
    /** Sub-agents not drawn for lack of room (reachable with Tab and zoom). */
    hidden: number;
  };
}

const MAX_INPUT_LINES = 6;
const MIN_PANE_HEIGHT = 4;
const MIN_PANE_WIDTH = 36;
const MIN_COORDINATOR = 4;

/** The window of `n` items from `ids` that contains `focus` when it can. */
function windowAround(ids: readonly string[], n: number, focus: string | null): string[] {
  if (ids.length <= n) return [...ids];
  const at = focus ? ids.indexOf(focus) : -1;
  const start = at < 0 ? 0 : Math.min(Math.max(0, at - n + 1), ids.length - n);
  return ids.slice(start, start + n);
}

export function computeLayout(input: LayoutInput): Layout {
  const width = Math.max(20, input.columns);
  const height = Math.max(10, input.rows - 1);
  const inputHeight = Math.min(MAX_INPUT_LINES, Math.max(1, input.inputLines)) + 2;
  // header, queue line and key hints take a row each
  const bodyHeight = Math.max(3, height - 3 - inputHeight - (input.reservedRows ?? 0));

  const running = input.agents.filter((a) => a.running).map((a) => a.id);
  const finished = input.agents.filter((a) => !a.running).map((a) => a.id);

  const collapsedBudget = Math.max(1, Math.floor(bodyHeight / 5));
  let collapsed = finished;
  let hidden = 0;
  if (finished.length > collapsedBudget) {
    // One row is kept for the "+N more" line.
    collapsed = windowAround(finished.slice().reverse(), Math.max(1, collapsedBudget - 1), input.focus).reverse();
    hidden += finished.length - collapsed.length;
  }
  const collapsedRows = collapsed.length + (hidden > 0 ? 1 : 0);
  const remaining = Math.max(MIN_COORDINATOR, bodyHeight - collapsedRows);

  if (running.length === 0) {
    return { width, height, inputHeight, bodyHeight, coordinatorHeight: remaining, grid: { columns: 1, paneWidth: width, paneHeight: 0, panes: [], collapsed, hidden } };
  }

  const coordinatorHeight = Math.max(MIN_COORDINATOR, Math.min(Math.floor(remaining * 0.4), remaining - MIN_PANE_HEIGHT));
  const gridHeight = Math.max(MIN_PANE_HEIGHT, remaining - coordinatorHeight);
  const maxColumns = Math.max(1, Math.floor(width / MIN_PANE_WIDTH));
  const columns = Math.min(running.length, maxColumns);
  let paneRows = Math.ceil(running.length / columns);
  let paneHeight = Math.floor(gridHeight / paneRows);
  let panes = running;
  if (paneHeight < MIN_PANE_HEIGHT) {
    // Reserve the "+N more" row unless the finished list already has one.
    const room = gridHeight - (hidden > 0 ? 0 : 1);
    paneRows = Math.max(1, Math.floor(room / MIN_PANE_HEIGHT));
    paneHeight = Math.max(MIN_PANE_HEIGHT - 1, Math.floor(room / paneRows));
    panes = windowAround(running, paneRows * columns, input.focus);
    hidden += running.length - panes.length;
  }
  return {
    width,
    height,
    inputHeight,
    bodyHeight,
    coordinatorHeight,
    grid: { columns, paneWidth: Math.floor(width / columns), paneHeight, panes, collapsed, hidden },
  };
}
