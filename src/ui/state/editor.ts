/** The input box's text, cursor and history, as a pure reducer. */
export interface EditorState {
  readonly text: string;
  /** Cursor offset in UTF-16 code units. */
  readonly cursor: number;
  readonly history: readonly string[];
  /** Index into history while browsing it; history.length means "the draft". */
  readonly historyIndex: number;
  /** What was being typed before browsing history. */
  readonly draft: string;
}

export type EditorAction =
  | { type: "insert"; text: string }
  | { type: "backspace" }
  | { type: "delete" }
  | { type: "left" }
  | { type: "right" }
  | { type: "home" }
  | { type: "end" }
  | { type: "history_prev" }
  | { type: "history_next" }
  | { type: "clear" }
  | { type: "kill_line" }
  /** Replaces text[start, end) with `text`; the cursor goes after it (a completion, a collapsed paste). */
  | { type: "splice"; start: number; end: number; text: string }
  /** Records the current text in history and empties the box. */
  | { type: "submitted" };

const MAX_HISTORY = 200;

export const emptyEditor: EditorState = { text: "", cursor: 0, history: [], historyIndex: 0, draft: "" };

function codePointBefore(text: string, at: number): number {
  if (at <= 0) return 0;
  const low = text.charCodeAt(at - 1);
  return at >= 2 && low >= 0xdc00 && low <= 0xdfff ? 2 : 1;
}

function codePointAt(text: string, at: number): number {
  if (at >= text.length) return 0;
  const high = text.charCodeAt(at);
  return high >= 0xd800 && high <= 0xdbff && at + 1 < text.length ? 2 : 1;
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

function lineEnd(text: string, at: number): number {
  const i = text.indexOf("\n", at);
  return i < 0 ? text.length : i;
}

function recall(state: EditorState, index: number): EditorState {
  const text = index >= state.history.length ? state.draft : state.history[index];
  return { ...state, historyIndex: index, text, cursor: text.length };
}

export function editorReducer(state: EditorState, action: EditorAction): EditorState {
  const { text, cursor } = state;
  switch (action.type) {
    case "insert": {
      // Terminals send pasted newlines as CR; keep them as line breaks in the text.
      const add = action.text.replace(/\r\n?/g, "\n");
      return { ...state, text: text.slice(0, cursor) + add + text.slice(cursor), cursor: cursor + add.length };
    }
    case "backspace": {
      const n = codePointBefore(text, cursor);
      return n ? { ...state, text: text.slice(0, cursor - n) + text.slice(cursor), cursor: cursor - n } : state;
    }
    case "delete": {
      const n = codePointAt(text, cursor);
      return n ? { ...state, text: text.slice(0, cursor) + text.slice(cursor + n) } : state;
    }
    case "left":
      return { ...state, cursor: cursor - codePointBefore(text, cursor) };
    case "right":
      return { ...state, cursor: cursor + codePointAt(text, cursor) };
    case "home":
      return { ...state, cursor: lineStart(text, cursor) };
    case "end":
      return { ...state, cursor: lineEnd(text, cursor) };
    case "kill_line":
      return { ...state, text: text.slice(0, lineStart(text, cursor)) + text.slice(cursor), cursor: lineStart(text, cursor) };
    case "splice": {
      const add = action.text.replace(/\r\n?/g, "\n");
      return { ...state, text: text.slice(0, action.start) + add + text.slice(action.end), cursor: action.start + add.length };
    }
    case "history_prev": {
      if (state.historyIndex <= 0) return state;
      const saved = state.historyIndex >= state.history.length ? { ...state, draft: text } : state;
      return recall(saved, state.historyIndex - 1);
    }
    case "history_next":
      if (state.historyIndex >= state.history.length) return state;
      return recall(state, state.historyIndex + 1);
    case "clear":
      return { ...state, text: "", cursor: 0, historyIndex: state.history.length, draft: "" };
    case "submitted": {
      const entry = text.trim() ? text : undefined;
      const history = entry && state.history[state.history.length - 1] !== entry ? [...state.history, entry].slice(-MAX_HISTORY) : state.history;
      return { text: "", cursor: 0, history, historyIndex: history.length, draft: "" };
    }
  }
}
