import { useCallback, useMemo, useRef, useState } from "react";
import { KeyPriority } from "../keymap.js";
import { completeMention, mentionAt } from "../mentions.js";
import { slashCompletions, type CustomSlash, type PopupItem } from "../slash.js";
import { editorReducer, emptyEditor, type EditorAction, type EditorState } from "../state/editor.js";
import { expandPastes, isLongPaste, pasteEndingAt, pasteToken, type Paste } from "../state/pastes.js";
import { useKeyLayer } from "./key-layers.js";

export interface InputBox {
  readonly editor: EditorState;
  /** The popup's entries (empty when closed): /commands, or paths for an `@` being typed. */
  readonly popup: readonly PopupItem[];
  readonly popupIndex: number;
  /** The text as of the last key (keys in one read see each other's edits before React renders). */
  text(): string;
  clear(): void;
  /** Puts a prompt that could not be sent back in the box. */
  restore(text: string): void;
}

export interface InputOptions {
  /**
   * Sends the text (a prompt, a message for a sub-agent, or a /command). False: not sent, the text
   * stays. `shown`: how the box showed it, when shorter (long pastes as their tokens).
   */
  submit(text: string, shown?: string): boolean | void;
  /** A sub-agent pane has focus: ↑/↓ select its tool calls instead of browsing history. */
  paneFocused: boolean;
  /** The project's and user's own commands, offered after the built-in ones. */
  custom?: readonly CustomSlash[];
  /** What `@typed` completes to (absent: no completion). */
  mentions?(typed: string): string[];
  /** Any key the box sees (before it is handled): the status line clears on the next action. */
  onKey?(): void;
}

/** The input box's key layer: editing, history, pastes, and the popup (/commands, @paths). Text keys land here last. */
export function useInput({ submit, paneFocused, custom = [], mentions, onKey }: InputOptions): InputBox {
  // The ref is the truth between renders: keys that arrive in one read (a line and its Enter) are
  // handled before React re-renders, and must see each other's edits.
  const editorRef = useRef(emptyEditor);
  const [editor, setEditor] = useState(emptyEditor);
  const [popupIndex, setPopupIndex] = useState(0);
  /** Long pastes of the text being typed, shown as their tokens. */
  const pastes = useRef<Paste[]>([]);
  /** The paste arriving now: where it started, and its token once it is long. */
  const pasting = useRef<{ start: number; index?: number } | null>(null);
  const edit = useCallback((action: EditorAction) => {
    editorRef.current = editorReducer(editorRef.current, action);
    setEditor(editorRef.current);
  }, []);

  const mentionOf = (e: EditorState) => (mentions ? mentionAt(e.text, e.cursor) : null);
  const mention = mentionOf(editor);
  const mentionItems = useMemo(() => (mention && mentions ? mentions(mention.typed) : []), [mention?.typed, mentions]);
  const itemsOf = (e: EditorState): PopupItem[] => {
    if (e.text.startsWith("/")) return slashCompletions(e.text, custom);
    const m = mentionOf(e);
    if (!m) return [];
    const list = m.typed === mention?.typed ? mentionItems : (mentions?.(m.typed) ?? []);
    return list.map((p) => ({ label: `@${p}`, args: "", help: "" }));
  };
  const popup = itemsOf(editor);
  const index = Math.min(popupIndex, Math.max(0, popup.length - 1));
  const selected = (): PopupItem | undefined => itemsOf(editorRef.current)[index];
  const replace = (text: string): void => {
    edit({ type: "clear" });
    edit({ type: "insert", text });
  };
  /** Completes the highlighted entry; false when the popup is closed. */
  const completeSelected = (): boolean => {
    const pick = selected();
    if (!pick) return false;
    const e = editorRef.current;
    if (pick.label.startsWith("@")) {
      const m = mentionOf(e)!;
      const done = completeMention(e.text, m.start, e.cursor, pick.label.slice(1));
      edit({ type: "splice", start: 0, end: e.text.length, text: done.text });
      // Completing a folder opens it: its first entry is highlighted next.
      setPopupIndex(0);
      return true;
    }
    replace(`${pick.label}${pick.args ? " " : ""}`);
    return true;
  };

  const insertPasted = (chunk: string): void => {
    const e = editorRef.current;
    const run = pasting.current;
    const current = run?.index === undefined ? undefined : pastes.current[run.index];
    if (run && current && pasteEndingAt(e.text, e.cursor, [current])) {
      // The paste goes on arriving (a big one comes in several reads): its token grows.
      const text = current.text + chunk.replace(/\r\n?/g, "\n");
      const next = { token: pasteToken(text, run.index! + 1), text };
      pastes.current[run.index!] = next;
      edit({ type: "splice", start: e.cursor - current.token.length, end: e.cursor, text: next.token });
      return;
    }
    if (!run) pasting.current = { start: e.cursor };
    edit({ type: "insert", text: chunk });
    const start = pasting.current!.start;
    const after = editorRef.current;
    const piece = after.text.slice(start, after.cursor);
    if (isLongPaste(piece)) {
      const paste = { token: pasteToken(piece, pastes.current.length + 1), text: piece };
      pastes.current.push(paste);
      pasting.current = { start, index: pastes.current.length - 1 };
      edit({ type: "splice", start, end: after.cursor, text: paste.token });
    }
  };

  useKeyLayer(KeyPriority.Input, {
    observe: (press) => {
      if (!press.pasted) pasting.current = null;
      onKey?.();
    },
    actions: {
      submit: () => {
        const text = editorRef.current.text;
        if (!text.trim()) return false;
        const pick = selected();
        if (pick?.label.startsWith("@")) {
          // Enter on a path being typed takes the completion; on a finished one it sends.
          if (`@${mentionOf(editorRef.current)?.typed}` !== pick.label) return void completeSelected();
        } else if (pick && text !== pick.label && text !== `${pick.label} `) {
          // "/mo" + Enter runs the highlighted command; one that takes an argument waits for it.
          if (pick.args) return void replace(`${pick.label} `);
          if (submit(pick.label) === false) return;
          return void done();
        }
        const full = expandPastes(text, pastes.current);
        if (submit(full, full === text ? undefined : text) === false) return;
        done();
      },
      newline: () => edit({ type: "insert", text: "\n" }),
      complete: () => completeSelected() || false,
      expand_paste: () => {
        const e = editorRef.current;
        if (!pastes.current.some((p) => e.text.includes(p.token))) return false;
        edit({ type: "splice", start: 0, end: e.text.length, text: expandPastes(e.text, pastes.current) });
        pastes.current = [];
      },
      history_prev: () => {
        if (itemsOf(editorRef.current).length) return setPopupIndex(Math.max(0, index - 1));
        if (paneFocused) return false;
        edit({ type: "history_prev" });
      },
      history_next: () => {
        const n = itemsOf(editorRef.current).length;
        if (n) return setPopupIndex(Math.min(n - 1, index + 1));
        if (paneFocused) return false;
        edit({ type: "history_next" });
      },
      cursor_left: () => edit({ type: "left" }),
      cursor_right: () => edit({ type: "right" }),
      line_start: () => edit({ type: "home" }),
      line_end: () => edit({ type: "end" }),
      delete_back: () => {
        const e = editorRef.current;
        // A collapsed paste goes as a whole: half a token would send neither the text nor the token.
        const paste = pasteEndingAt(e.text, e.cursor, pastes.current);
        if (paste) return edit({ type: "splice", start: e.cursor - paste.token.length, end: e.cursor, text: "" });
        edit({ type: "backspace" });
      },
      // On an empty box Ctrl+D is the dashboard's (exit).
      delete_forward: () => (editorRef.current.text === "" ? false : edit({ type: "delete" })),
      kill_line: () => edit({ type: "kill_line" }),
    },
    text: (press) => {
      if (press.name !== "text" || !press.text) return false;
      if (press.pasted) insertPasted(press.text);
      else edit({ type: "insert", text: press.text });
      setPopupIndex(0);
      return true;
    },
  });

  function done(): void {
    edit({ type: "submitted" });
    pastes.current = [];
    pasting.current = null;
    setPopupIndex(0);
  }

  return {
    editor,
    popup,
    popupIndex: index,
    text: () => editorRef.current.text,
    clear: () => {
      pastes.current = [];
      edit({ type: "clear" });
    },
    restore: (text) => replace(text),
  };
}
