/** What the user is looking at: focus, zoom, scroll, the selected call and the viewer. Kept apart from event state. */

/** A line of a document shown in the viewer: `text` is searched, `styled` (ANSI) is drawn when given. */
export interface DocLine {
  readonly text: string;
  readonly styled?: string;
}

export type ViewerTarget =
  | { readonly kind: "tool"; readonly agentId: string; readonly seq: number }
  | { readonly kind: "doc"; readonly title: string; readonly lines: readonly DocLine[] }
  /** The team's board, drawn live from the state (/tasks). */
  | { readonly kind: "tasks" }
  /** The review view (ReviewView.tsx), at an agent; `only`: that agent alone. */
  | { readonly kind: "review"; readonly agentId?: string; readonly only?: boolean };

export interface ViewState {
  /** The focused pane's agent id; null is the coordinator. */
  readonly focus: string | null;
  /** The zoomed pane's agent id (the coordinator's own id when it is zoomed), or null. */
  readonly zoom: string | null;
  /** Rows scrolled up from the bottom of the zoomed transcript (0 follows the tail). */
  readonly scroll: number;
  /** The selected tool call (its entry's seq) in the focused or zoomed pane. */
  readonly selected: number | null;
  /** Rows the focused (not zoomed) pane is scrolled up to show the selected call. */
  readonly paneScroll: number;
  /** The output viewer over the body, or null. */
  readonly viewer: ViewerTarget | null;
}

export type ViewAction =
  | { type: "focus_next"; ids: readonly string[] }
  | { type: "focus_prev"; ids: readonly string[] }
  | { type: "focus"; id: string | null }
  | { type: "zoom"; id: string; scroll?: number }
  | { type: "unzoom" }
  | { type: "scroll"; by: number; max: number }
  | { type: "scroll_to"; at: number; max: number }
  | { type: "select"; seq: number | null; scroll: number }
  | { type: "open"; target: ViewerTarget }
  | { type: "close" };

export const initialView: ViewState = { focus: null, zoom: null, scroll: 0, selected: null, paneScroll: 0, viewer: null };

function cycle(ids: readonly string[], focus: string | null, step: number): string | null {
  // The coordinator sits at position 0 of the ring, then each sub-agent.
  const ring: (string | null)[] = [null, ...ids];
  const at = Math.max(0, ring.indexOf(focus));
  return ring[(at + step + ring.length) % ring.length]!;
}

export function viewReducer(state: ViewState, action: ViewAction): ViewState {
  switch (action.type) {
    case "focus_next":
      return { ...state, focus: cycle(action.ids, state.focus, 1), selected: null, paneScroll: 0 };
    case "focus_prev":
      return { ...state, focus: cycle(action.ids, state.focus, -1), selected: null, paneScroll: 0 };
    case "focus":
      return { ...state, focus: action.id, selected: null, paneScroll: 0 };
    case "zoom":
      return { ...state, zoom: action.id, scroll: Math.max(0, action.scroll ?? 0) };
    case "unzoom":
      return { ...state, zoom: null, scroll: 0, selected: null, paneScroll: 0 };
    case "scroll":
      return { ...state, scroll: Math.min(action.max, Math.max(0, state.scroll + action.by)) };
    case "scroll_to":
      return { ...state, scroll: Math.min(action.max, Math.max(0, action.at)) };
    case "select":
      return state.zoom ? { ...state, selected: action.seq, scroll: action.scroll } : { ...state, selected: action.seq, paneScroll: action.scroll };
    case "open":
      return { ...state, viewer: action.target };
    case "close":
      return { ...state, viewer: null };
  }
}
