import type { Dispatch } from "react";
import type { SessionApi } from "../../orchestrator/types.js";
import { KeyPriority } from "../keymap.js";
import type { Layout } from "../layout.js";
import { scrollToShow, stepSelection } from "../selection.js";
import type { DashboardState } from "../state/types.js";
import type { ViewAction, ViewState } from "../state/ui.js";
import { allRows } from "../wrap.js";
import { useKeyLayer } from "./key-layers.js";

export interface DashboardKeysOptions {
  session: SessionApi;
  state: DashboardState;
  view: ViewState;
  dispatchView: Dispatch<ViewAction>;
  layout: Layout;
  /** The focused sub-agent, or null for the coordinator. */
  focus: string | null;
  zoomPage: number;
  inputText(): string;
  clearInput(): void;
  running(): boolean;
  onInterrupt(): void;
  onExit(): void;
  cancelRun(): void;
  /** Stops the person's `!command`s still running; false when none was. */
  cancelShell(): boolean;
  stopAgent(id: string, name: string): void;
  /** Sends a running sub-agent to the background (its parent's delegate call returns at once). */
  backgroundAgent(id: string, name: string): void;
  cycleMode(): void;
  help(): void;
  /** Opens an agent's changes in the review document. */
  review?(agentId: string): void;
}

/**
 * The dashboard's key layer: what no layer above took (focus, cancel, stop or background a
 * sub-agent, zoom, select, mode, help).
 */
export function useDashboardKeys(o: DashboardKeysOptions): void {
  const { state, view, dispatchView, layout, focus } = o;
  const focusAgent = focus ? state.agents[focus] : undefined;
  const empty = (): boolean => o.inputText() === "";
  /** The focused sub-agent while it runs: the one x stops and Ctrl+B sends to the background. */
  const running = focus !== null && focusAgent?.status === "running" ? focusAgent : undefined;
  const ids = state.order;

  const select = (dir: -1 | 1): boolean => {
    const place = layout.placed.find((p) => p.id === focus);
    if (!focusAgent || !place) return false;
    const seq = stepSelection(focusAgent.entries, view.selected, dir);
    if (seq === null) return false;
    const rows = allRows(focusAgent.entries, place.width - 2, "pane");
    dispatchView({ type: "select", seq, scroll: scrollToShow(rows, place.height - 3, seq, view.paneScroll) });
    return true;
  };

  useKeyLayer(KeyPriority.Dashboard, {
    actions: {
      interrupt: o.onInterrupt,
      exit: () => {
        if (!empty() || o.running()) return false;
        o.onExit();
      },
      cancel: () => {
        if (focus === null) {
          const shell = o.cancelShell();
          if (o.running()) o.cancelRun();
          else if (shell) return;
          else if (!empty()) o.clearInput();
          else return false;
        } else if (view.selected !== null) dispatchView({ type: "select", seq: null, scroll: 0 });
        else if (running) o.stopAgent(running.id, running.name);
        else dispatchView({ type: "focus", id: null });
      },
      // Only on an empty input: with text, x is a letter of the message for that sub-agent.
      stop_pane: () => {
        if (!running || !empty()) return false;
        o.stopAgent(running.id, running.name);
      },
      background_pane: () => {
        if (!running || running.background) return false;
        o.backgroundAgent(running.id, running.name);
      },
      focus_next: () => dispatchView({ type: "focus_next", ids }),
      focus_prev: () => dispatchView({ type: "focus_prev", ids }),
      cycle_mode: o.cycleMode,
      select_prev: () => select(-1),
      select_next: () => select(1),
      open: () => {
        if (!empty() || focus === null || view.selected === null) return false;
        dispatchView({ type: "open", target: { kind: "tool", agentId: focus, seq: view.selected } });
      },
      zoom: () => {
        if (!empty() || focus === null) return false;
        dispatchView({ type: "zoom", id: focus });
      },
      scroll_back: () => dispatchView({ type: "zoom", id: focus ?? o.session.rootAgentId, scroll: o.zoomPage }),
      help: () => {
        if (!empty()) return false;
        o.help();
      },
      review_pane: () => {
        if (!empty() || !o.review) return false;
        o.review(focus ?? o.session.rootAgentId);
      },
    },
  });
}
