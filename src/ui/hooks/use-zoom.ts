import type { Dispatch } from "react";
import { KeyPriority } from "../keymap.js";
import { scrollToShow, stepSelection, windowRows } from "../selection.js";
import type { AgentView, DashboardState } from "../state/types.js";
import type { ViewAction, ViewState } from "../state/ui.js";
import { allRows, type Row } from "../wrap.js";
import { useKeyLayer } from "./key-layers.js";

export interface Zoom {
  /** The zoomed agent, or undefined when no pane is zoomed. */
  readonly agent: AgentView | undefined;
  /** The transcript rows on screen, `scroll` rows up from the bottom. */
  readonly rows: Row[];
  readonly scroll: number;
  /** Rows a page moves: one fewer than the visible body, so a line stays for orientation. */
  readonly page: number;
}

/**
 * The zoomed transcript: every row of the agent's ring, wrapped to `width` with tool errors whole,
 * scrolled from the bottom within `height`. While zoomed its key layer takes ↑/↓ (select a tool
 * call), Enter (open it), the scroll keys and Esc/q/z.
 */
export function useZoom(state: DashboardState, view: ViewState, dispatchView: Dispatch<ViewAction>, width: number, height: number): Zoom {
  const agent = view.zoom ? state.agents[view.zoom] : undefined;
  const body = Math.max(1, height - 3);
  const all = agent ? allRows(agent.entries, width - 2, "zoom") : [];
  const maxScroll = Math.max(0, all.length - body);
  const scroll = Math.min(view.scroll, maxScroll);

  const select = (dir: -1 | 1): void => {
    if (!agent) return;
    const seq = stepSelection(agent.entries, view.selected, dir);
    if (seq === null) {
      // Nothing to select: the arrows scroll a line.
      dispatchView({ type: "scroll", by: -dir, max: maxScroll });
      return;
    }
    dispatchView({ type: "select", seq, scroll: scrollToShow(all, body, seq, scroll) });
  };

  useKeyLayer(
    KeyPriority.Zoom,
    {
      actions: {
        select_prev: () => select(-1),
        select_next: () => select(1),
        open: () => {
          if (!agent || view.selected === null) return false;
          dispatchView({ type: "open", target: { kind: "tool", agentId: agent.id, seq: view.selected } });
        },
        page_up: () => dispatchView({ type: "scroll", by: body - 1, max: maxScroll }),
        page_down: () => dispatchView({ type: "scroll", by: -(body - 1), max: maxScroll }),
        top: () => dispatchView({ type: "scroll_to", at: maxScroll, max: maxScroll }),
        bottom: () => dispatchView({ type: "scroll_to", at: 0, max: maxScroll }),
        unzoom: () => dispatchView({ type: "unzoom" }),
      },
      // Modal: typing does not reach the input box behind the zoomed pane; Ctrl+C still does its job.
      modal: (press) => !(press.name === "ctrl" && press.text === "c"),
    },
    Boolean(agent),
  );

  return { agent, rows: windowRows(all, body, scroll), scroll, page: body - 1 };
}
