/**
 * Where each region goes, as a pure function of the terminal size, the sub-agents, the focus, the
 * dialog and the zoom — so that no two regions can overlap and a property test can say so. From
 * the top: header, body (the panes, or one zoomed pane / viewer), the permission dialog, the
 * command popup, the queue line, the input box, the key hints. The regions add up to `rows - 1`:
 * a frame as tall as the terminal makes ink 6.8 clear the screen on every render.
 */
export interface LayoutInput {
  columns: number;
  rows: number;
  /** Lines of text in the input box. */
  inputLines: number;
  /** Sub-agents in start order. */
  agents: readonly { id: string; running: boolean }[];
  /** The focused sub-agent's id; null is the coordinator. */
  focus: string | null;
  /** The body is one full pane (a zoomed pane or the output viewer). */
  zoomed?: boolean;
  /** Rows the permission dialog would like (its whole content); absent when none is open. */
  dialogRows?: number;
  /** Lines of the slash-command popup (0 when closed). */
  popupRows?: number;
}

/** A bordered pane: the coordinator's or a sub-agent's. */
export interface PanePlace {
  readonly id: string | null;
  readonly top: number;
  readonly left: number;
  readonly width: number;
  readonly height: number;
}

export interface Layout {
  width: number;
  /** rows - 1. */
  height: number;
  headerHeight: 1;
  bodyHeight: number;
  dialogHeight: number;
  popupHeight: number;
  inputHeight: number;
  /** The queue line and the hints line, one row each. */
  footerHeight: 2;
  /** Body rows from the top: the coordinator pane (or its one-line form), then the grid. */
  coordinator: { mode: "pane" | "line"; height: number };
  grid: {
    columns: number;
    paneWidth: number;
    paneHeight: number;
    /** Sub-agents drawn as panes (running ones, and the focused one). */
    panes: string[];
    /** Finished sub-agents drawn as one line each. */
    collapsed: string[];
    /** Sub-agents not drawn for lack of room (reachable with Tab and zoom). */
    hidden: number;
  };
  /** Every bordered pane with its place in the body (for tests, and the zoomed pane). */
  placed: PanePlace[];
}

const MAX_INPUT_LINES = 6;
/** Border, title and one transcript row. */
export const MIN_PANE_HEIGHT = 4;
const MIN_PANE_WIDTH = 36;
/** The dialog's frame: border, title, rule, one line of the request, its status and answer lines. */
export const MIN_DIALOG_HEIGHT = 7;
/** The body always holds a focused pane beside the coordinator's line and a "+N more" line. */
const MIN_BODY = MIN_PANE_HEIGHT + 2;
const MIN_WIDTH = 20;

/** The window of `n` items from `ids` that contains `focus` when it can. */
function windowAround(ids: readonly string[], n: number, focus: string | null): string[] {
  if (n <= 0) return [];
  if (ids.length <= n) return [...ids];
  const at = focus ? ids.indexOf(focus) : -1;
  const start = at < 0 ? 0 : Math.min(Math.max(0, at - n + 1), ids.length - n);
  return ids.slice(start, start + n);
}

export function computeLayout(input: LayoutInput): Layout {
  const width = Math.max(MIN_WIDTH, input.columns);
  const height = Math.max(MIN_DIALOG_HEIGHT + MIN_BODY + 6, input.rows - 1);
  // header + queue line + hints
  const fixed = 3;
  let free = height - fixed;
  const dialogWanted = input.dialogRows === undefined ? 0 : Math.max(MIN_DIALOG_HEIGHT, input.dialogRows);
  const dialogMin = input.dialogRows === undefined ? 0 : MIN_DIALOG_HEIGHT;
  // The input box grows with its text, but never into the room the body and the dialog need.
  const inputRoom = Math.max(1, free - MIN_BODY - dialogMin - 2);
  const inputHeight = Math.min(MAX_INPUT_LINES, inputRoom, Math.max(1, input.inputLines)) + 2;
  free -= inputHeight;
  const popupHeight = Math.max(0, Math.min(input.popupRows ?? 0, free - MIN_BODY - dialogMin));
  free -= popupHeight;
  // The dialog takes what it needs up to 60% of what is left, and never less than its frame.
  const dialogHeight = dialogWanted ? Math.max(dialogMin, Math.min(dialogWanted, Math.floor(free * 0.6), free - MIN_BODY)) : 0;
  const bodyHeight = free - dialogHeight;
  const body = layoutBody(width, bodyHeight, input);
  return { width, height, headerHeight: 1, bodyHeight, dialogHeight, popupHeight, inputHeight, footerHeight: 2, ...body };
}

type Body = Pick<Layout, "coordinator" | "grid" | "placed">;

function layoutBody(width: number, bodyHeight: number, input: LayoutInput): Body {
  const emptyGrid = { columns: 1, paneWidth: width, paneHeight: 0, panes: [], collapsed: [], hidden: 0 };
  if (input.zoomed) {
    return { coordinator: { mode: "pane", height: 0 }, grid: emptyGrid, placed: [{ id: input.focus, top: 0, left: 0, width, height: bodyHeight }] };
  }
  const focus = input.focus !== null && input.agents.some((a) => a.id === input.focus) ? input.focus : null;
  // The focused sub-agent is a pane even when it has finished, so its rows can be selected.
  const paneIds = input.agents.filter((a) => a.running || a.id === focus).map((a) => a.id);
  const finished = input.agents.filter((a) => !a.running && a.id !== focus).map((a) => a.id);

  // Finished sub-agents take a line each, up to a fifth of the body (one of them for "+N more").
  const lineBudget = Math.max(1, Math.floor(bodyHeight / 5));
  let collapsed = finished;
  let hidden = 0;
  if (finished.length > lineBudget) {
    collapsed = finished.slice(finished.length - Math.max(0, lineBudget - 1));
    hidden = finished.length - collapsed.length;
  }
  const lines = (): number => collapsed.length + (hidden > 0 ? 1 : 0);

  if (paneIds.length === 0) {
    const coordinatorHeight = bodyHeight - lines();
    return {
      coordinator: { mode: "pane", height: coordinatorHeight },
      grid: { ...emptyGrid, collapsed, hidden },
      placed: [{ id: null, top: 0, left: 0, width, height: coordinatorHeight }],
    };
  }

  const columns = Math.max(1, Math.min(paneIds.length, Math.floor(width / MIN_PANE_WIDTH)));
  const paneWidth = Math.floor(width / columns);
  const needed = (): number => MIN_PANE_HEIGHT * 2 + (paneIds.length > columns || hidden > 0 ? 1 : 0);
  let remaining = bodyHeight - lines();
  // Short of room: finished lines go first (counted in "+N more"), then whatever is not focused.
  while (collapsed.length && remaining < needed()) {
    collapsed = collapsed.slice(1);
    hidden++;
    remaining = bodyHeight - lines();
  }
  let coordinatorMode: "pane" | "line" = "pane";
  let coordinatorHeight: number;
  let panes = paneIds;
  if (remaining < needed()) {
    if (focus === null) {
      // The coordinator has focus: it keeps its pane, the sub-agents are counted on one line.
      hidden += paneIds.length;
      const height = bodyHeight - collapsed.length - 1;
      return {
        coordinator: { mode: "pane", height },
        grid: { ...emptyGrid, collapsed, hidden },
        placed: [{ id: null, top: 0, left: 0, width, height }],
      };
    }
    coordinatorMode = "line";
    coordinatorHeight = 1;
  } else {
    coordinatorHeight = Math.max(MIN_PANE_HEIGHT, Math.min(Math.floor(remaining * 0.4), remaining - MIN_PANE_HEIGHT));
  }
  let gridHeight = remaining - coordinatorHeight;
  let paneRows = Math.ceil(panes.length / columns);
  let paneHeight = Math.floor(gridHeight / paneRows);
  if (paneHeight < MIN_PANE_HEIGHT) {
    // Not every pane fits: keep a window around the focused one and a "+N more" line.
    gridHeight -= hidden > 0 ? 0 : 1;
    paneRows = Math.max(1, Math.floor(gridHeight / MIN_PANE_HEIGHT));
    paneHeight = Math.floor(gridHeight / paneRows);
    panes = windowAround(paneIds, paneRows * columns, focus);
    hidden += paneIds.length - panes.length;
    paneRows = Math.ceil(panes.length / columns);
  }
  // Rows that rounding left over go to the coordinator's pane.
  const spare = bodyHeight - (coordinatorHeight + paneRows * paneHeight + lines());
  if (coordinatorMode === "pane") coordinatorHeight += Math.max(0, spare);

  const placed: PanePlace[] = [];
  if (coordinatorMode === "pane") placed.push({ id: null, top: 0, left: 0, width, height: coordinatorHeight });
  panes.forEach((id, i) => {
    placed.push({ id, top: coordinatorHeight + Math.floor(i / columns) * paneHeight, left: (i % columns) * paneWidth, width: paneWidth, height: paneHeight });
  });
  return {
    coordinator: { mode: coordinatorMode, height: coordinatorHeight },
    grid: { columns, paneWidth, paneHeight, panes, collapsed, hidden },
    placed,
  };
}

/** Rows the body's parts take: the property test checks this equals bodyHeight or less. */
export function bodyRowsUsed(layout: Layout): number {
  const { grid, coordinator } = layout;
  const gridRows = Math.ceil(grid.panes.length / grid.columns) * grid.paneHeight;
  return coordinator.height + gridRows + grid.collapsed.length + (grid.hidden > 0 ? 1 : 0);
}
