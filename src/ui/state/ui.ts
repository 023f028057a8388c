/** What the user is looking at: focus, zoom and scroll. Kept apart from event state. */
export interface ViewState {
  /** The focused pane's agent id; null is the coordinator. */
  readonly focus: string | null;
  /** The zoomed pane's agent id (the coordinator's own id when it is zoomed), or null. */
  readonly zoom: string | null;
  /** Rows scrolled up from the bottom of the zoomed transcript (0 follows the tail). */
  readonly scroll: number;
}

export type ViewAction =
  | { type: "focus_next"; ids: readonly string[] }
  | { type: "focus_prev"; ids: readonly string[] }
  | { type: "focus"; id: string | null }
  | { type: "zoom"; id: string; scroll?: number }
  | { type: "unzoom" }
  | { type: "scroll"; by: number; max: number }
  | { type: "scroll_to"; at: number; max: number };

export const initialView: ViewState = { focus: null, zoom: null, scroll: 0 };

function cycle(ids: readonly string[], focus: string | null, step: number): string | null {
  // The coordinator sits at position 0 of the ring, then each sub-agent.
  const ring: (string | null)[] = [null, ...ids];
  const at = Math.max(0, ring.indexOf(focus));
  return ring[(at + step + ring.length) % ring.length];
}

export function viewReducer(state: ViewState, action: ViewAction): ViewState {
  switch (action.type) {
    case "focus_next":
      return { ...state, focus: cycle(action.ids, state.focus, 1) };
    case "focus_prev":
      return { ...state, focus: cycle(action.ids, state.focus, -1) };
    case "focus":
      return { ...state, focus: action.id };
    case "zoom":
      return { ...state, zoom: action.id, scroll: Math.max(0, action.scroll ?? 0) };
    case "unzoom":
      return { ...state, zoom: null, scroll: 0 };
    case "scroll":
      return { ...state, scroll: Math.min(action.max, Math.max(0, state.scroll + action.by)) };
    case "scroll_to":
      return { ...state, scroll: Math.min(action.max, Math.max(0, action.at)) };
  }
}
