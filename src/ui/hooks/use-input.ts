import { useCallback, useRef, useState } from "react";
import { KeyPriority } from "../keymap.js";
import { slashCompletions, type SLASH_COMMANDS } from "../slash.js";
import { editorReducer, emptyEditor, type EditorAction, type EditorState } from "../state/editor.js";
import { useKeyLayer } from "./key-layers.js";

export interface InputBox {
  readonly editor: EditorState;
  /** The slash-command popup's entries (empty when closed) and the highlighted one. */
  readonly popup: readonly (typeof SLASH_COMMANDS)[number][];
  readonly popupIndex: number;
  /** The text as of the last key (keys in one read see each other's edits before React renders). */
  text(): string;
  clear(): void;
}

export interface InputOptions {
  /** Sends the text (a prompt, a message for a sub-agent, or a /command). False: not sent, the text stays. */
  submit(text: string): boolean | void;
  /** A sub-agent pane has focus: ↑/↓ select its tool calls instead of browsing history. */
  paneFocused: boolean;
}

/** The input box's key layer: editing, history, and the /command popup. Text keys land here last. */
export function useInput({ submit, paneFocused }: InputOptions): InputBox {
  // The ref is the truth between renders: keys that arrive in one read (a line and its Enter) are
  // handled before React re-renders, and must see each other's edits.
  const editorRef = useRef(emptyEditor);
  const [editor, setEditor] = useState(emptyEditor);
  const [popupIndex, setPopupIndex] = useState(0);
  const edit = useCallback((action: EditorAction) => {
    editorRef.current = editorReducer(editorRef.current, action);
    setEditor(editorRef.current);
  }, []);
  const popup = slashCompletions(editor.text);
  const index = Math.min(popupIndex, Math.max(0, popup.length - 1));
  const selectedCommand = (): (typeof SLASH_COMMANDS)[number] | undefined => slashCompletions(editorRef.current.text)[index];
  const replace = (text: string): void => {
    edit({ type: "clear" });
    edit({ type: "insert", text });
  };

  useKeyLayer(KeyPriority.Input, {
    actions: {
      submit: () => {
        const text = editorRef.current.text;
        if (!text.trim()) return false;
        // "/mo" + Enter runs the highlighted command; one that takes an argument waits for it.
        const pick = selectedCommand();
        if (pick && text !== `/${pick.name}` && pick.args) {
          replace(`/${pick.name} `);
          return;
        }
        if (submit(pick ? `/${pick.name}` : text) === false) return;
        edit({ type: "submitted" });
        setPopupIndex(0);
      },
      newline: () => edit({ type: "insert", text: "\n" }),
      complete: () => {
        const pick = selectedCommand();
        if (!pick) return false;
        replace(`/${pick.name}${pick.args ? " " : ""}`);
      },
      history_prev: () => {
        if (slashCompletions(editorRef.current.text).length) return setPopupIndex(Math.max(0, index - 1));
        if (paneFocused) return false;
        edit({ type: "history_prev" });
      },
      history_next: () => {
        const n = slashCompletions(editorRef.current.text).length;
        if (n) return setPopupIndex(Math.min(n - 1, index + 1));
        if (paneFocused) return false;
        edit({ type: "history_next" });
      },
      cursor_left: () => edit({ type: "left" }),
      cursor_right: () => edit({ type: "right" }),
      line_start: () => edit({ type: "home" }),
      line_end: () => edit({ type: "end" }),
      delete_back: () => edit({ type: "backspace" }),
      // On an empty box Ctrl+D is the dashboard's (exit).
      delete_forward: () => (editorRef.current.text === "" ? false : edit({ type: "delete" })),
      kill_line: () => edit({ type: "kill_line" }),
    },
    text: (press) => {
      if (press.name !== "text" || !press.text) return false;
      edit({ type: "insert", text: press.text });
      setPopupIndex(0);
      return true;
    },
  });

  return {
    editor,
    popup,
    popupIndex: index,
    text: () => editorRef.current.text,
    clear: () => edit({ type: "clear" }),
  };
}
