import type { Key } from "ink";
import { DEFAULT_KEYMAP, type KeyPriority, type Action, type Keymap } from "./keymap.js";

export type KeyName =
  | "escape"
  | "return"
  | "tab"
  | "backtab"
  | "up"
  | "down"
  | "left"
  | "right"
  | "pageup"
  | "pagedown"
  | "home"
  | "end"
  | "backspace"
  | "ctrl"
  | "text"
  | "paste_start"
  | "paste_end";

export interface KeyPress {
  readonly name: KeyName;
  /** The typed or pasted text for "text", the letter for "ctrl". */
  readonly text: string;
  /** Alt/Option held (never set for a bare Esc). */
  readonly meta: boolean;
  /** Inside a bracketed paste, or several characters in one read: text, never a command. */
  readonly pasted?: boolean;
}

/** Turns Ink's key flags into one name. Esc is tested first: ink 6.8 also sets `meta` for it. */
export function normalizeKey(input: string, key: Key): KeyPress {
  const press = (name: KeyName, text = "", meta = false): KeyPress => ({ name, text, meta });
  if (key.escape) return press("escape");
  // Bracketed paste markers (ESC[200~ / ESC[201~) reach useInput with the ESC stripped.
  if (input === "[200~") return press("paste_start");
  if (input === "[201~") return press("paste_end");
  if (key.return) return press("return", "", key.meta);
  // Ctrl+J is a bare LF, which ink reports as text.
  if (input === "\n") return press("ctrl", "j");
  if (key.tab) return key.shift ? press("backtab") : press("tab");
  if (key.upArrow) return press("up");
  if (key.downArrow) return press("down");
  if (key.leftArrow) return press("left");
  if (key.rightArrow) return press("right");
  if (key.pageUp) return press("pageup");
  if (key.pageDown) return press("pagedown");
  if (key.home) return press("home");
  if (key.end) return press("end");
  // Most terminals send DEL (0x7f) for Backspace, which ink reports as `delete`.
  if (key.backspace || key.delete) return press("backspace");
  if (key.ctrl && input.length === 1) return press("ctrl", input.toLowerCase());
  return press("text", input, key.meta);
}

const NAMED: Partial<Record<KeyName, string>> = {
  escape: "esc",
  tab: "tab",
  backtab: "shift+tab",
  up: "up",
  down: "down",
  left: "left",
  right: "right",
  pageup: "pageup",
  pagedown: "pagedown",
  home: "home",
  end: "end",
  backspace: "backspace",
};

/** The key in the keymap's syntax ("ctrl+c", "alt+enter", "z"), or null for text that is no one key. */
export function keyOf(press: KeyPress): string | null {
  if (press.pasted) return null;
  if (press.name === "return") return press.meta ? "alt+enter" : "enter";
  if (press.name === "ctrl") return `ctrl+${press.text}`;
  if (press.name === "text") {
    if (press.text === " ") return press.meta ? "alt+space" : "space";
    if ([...press.text].length !== 1) return null;
    return press.meta ? `alt+${press.text}` : press.text;
  }
  return NAMED[press.name] ?? null;
}

/** What a layer does with keys: its actions' handlers, and what happens to the rest. */
export interface LayerHandlers {
  /** Return false when the action does not apply now: the key then goes on to the next binding or layer. */
  readonly actions: Partial<Record<Action, (press: KeyPress) => boolean | void>>;
  /** Keys no binding took (typing). Return true when consumed. */
  readonly text?: (press: KeyPress) => boolean;
  /**
   * A modal layer consumes every key it does not handle, except those it lets through (return
   * false here for them). Non-modal layers' `text` runs only after every layer's bindings.
   */
  readonly modal?: (press: KeyPress) => boolean;
  /** Sees every key that reaches this layer, before anything else (the dialog times typing). */
  readonly observe?: (press: KeyPress) => void;
}

interface Layer {
  priority: KeyPriority;
  handlers: { current: LayerHandlers };
  order: number;
}

/**
 * Routes each key through the layers by priority (dialog > viewer > zoom > input > dashboard):
 * the first binding whose handler accepts the key takes it; a modal layer stops the search; keys
 * nobody bound are then offered as text to the non-modal layers (the input box).
 */
export class KeyRouter {
  private layers: Layer[] = [];
  private counter = 0;
  private pasting = false;

  constructor(private keymap: Keymap = DEFAULT_KEYMAP) {}

  setKeymap(keymap: Keymap): void {
    this.keymap = keymap;
  }

  add(priority: KeyPriority, handlers: { current: LayerHandlers }): () => void {
    const layer = { priority, handlers, order: this.counter++ };
    this.layers = [...this.layers, layer].sort((a, b) => b.priority - a.priority || b.order - a.order);
    return () => {
      this.layers = this.layers.filter((l) => l !== layer);
    };
  }

  dispatch(key: KeyPress): void {
    if (key.name === "paste_start" || key.name === "paste_end") {
      this.pasting = key.name === "paste_start";
      return;
    }
    // Outside a bracketed paste, one line followed by CR in a single read is typing that outran the
    // terminal (or `tmux send-keys "text" Enter`): the text, then Enter. Several lines in one read
    // stay a paste from a terminal without bracketed paste.
    if (!this.pasting && key.name === "text" && /^[^\r\n]+\r$/.test(key.text)) {
      this.dispatch({ name: "text", text: key.text.slice(0, -1), meta: key.meta });
      this.dispatch({ name: "return", text: "", meta: false });
      return;
    }
    let routed = key;
    // Inside a bracketed paste, Enter and Tab are text, never commands.
    if (this.pasting && key.name === "return") routed = { name: "text", text: "\n", meta: false, pasted: true };
    else if (this.pasting && key.name === "tab") routed = { name: "text", text: "  ", meta: false, pasted: true };
    else if (this.pasting || (key.name === "text" && [...key.text].length > 1)) routed = { ...key, pasted: true };
    this.route(routed);
  }

  private route(press: KeyPress): void {
    const spec = keyOf(press);
    const layers = this.layers;
    for (const layer of layers) {
      const h = layer.handlers.current;
      h.observe?.(press);
      if (spec) {
        for (const action of this.keymap.match(layer.priority, spec)) {
          const handler = h.actions[action];
          if (handler && handler(press) !== false) return;
        }
      }
      if (h.modal) {
        if (h.text?.(press)) return;
        if (h.modal(press)) return;
      }
    }
    for (const layer of layers) {
      const h = layer.handlers.current;
      if (!h.modal && h.text?.(press)) return;
    }
  }
}
