import type { Dispatch } from "react";
import type { KeyPress } from "../keys.js";
import type { AgentView, DashboardState } from "../state/types.js";
import type { ViewAction, ViewState } from "../state/ui.js";
import { allRows, type Row } from "../wrap.js";
import { useKeyLayer, ZOOM_LAYER } from "./key-layers.js";

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
 * The zoomed transcript: every row of the agent's ring, wrapped to `width`, scrolled from the
 * bottom within `height`; while zoomed, its key layer takes the scroll keys and Esc/q/z.
 */
export function useZoom(state: DashboardState, view: ViewState, dispatchView: Dispatch<ViewAction>, width: number, height: number): Zoom {
  const agent = view.zoom ? state.agents[view.zoom] : undefined;
  const body = Math.max(1, height - 3);
  const all = agent ? allRows(agent.entries, width - 2) : [];
  const maxScroll = Math.max(0, all.length - body);
  const scroll = Math.min(view.scroll, maxScroll);

  useKeyLayer(
    ZOOM_LAYER,
    (key: KeyPress) => {
      const by = (rows: number): void => dispatchView({ type: "scroll", by: rows, max: maxScroll });
      const to = (at: number): void => dispatchView({ type: "scroll_to", at, max: maxScroll });
      switch (key.name) {
        case "escape":
          dispatchView({ type: "unzoom" });
          return true;
        case "pageup":
          by(body - 1);
          return true;
        case "pagedown":
          by(-(body - 1));
          return true;
        case "up":
          by(1);
          return true;
        case "down":
          by(-1);
          return true;
        case "home":
          to(maxScroll);
          return true;
        case "end":
          to(0);
          return true;
        case "ctrl":
          return key.text !== "c";
        case "text":
          if (key.text === "q" || key.text === "z") dispatchView({ type: "unzoom" });
          return true;
        default:
          return true;
      }
    },
    Boolean(agent),
  );

  return { agent, rows: all.slice(Math.max(0, all.length - body - scroll), all.length - scroll), scroll, page: body - 1 };
}
