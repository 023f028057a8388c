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

/**
 * Whether `code` is a control character a terminal sends for one key: Ctrl+letter, Backspace (DEL,
 * Ctrl+H). Tab, LF and CR are not: several lines in one read stay a paste from a terminal without
 * bracketed paste (KeyRouter.dispatch), and ESC never reaches here (Ink splits a read at each ESC).
 */
const isKeyControl = (code: number): boolean => code === 0x7f || (code >= 0x01 && code <= 0x1a && code !== 0x09 && code !== 0x0a && code !== 0x0d);

/** One piece of a read as the key it is: a control character's key, or the text. */
export function pressOf(piece: string, meta = false): KeyPress {
  const code = piece.length === 1 ? piece.charCodeAt(0) : -1;
  if (!isKeyControl(code)) return { name: "text", text: piece, meta };
  if (code === 0x7f || code === 0x08) return { name: "backspace", text: "", meta: false };
  return { name: "ctrl", text: String.fromCharCode(code + 0x60), meta: false };
}

/** `text` cut before and after each key's control character: "hi\u0003x" → ["hi", "\u0003", "x"]. */
export function splitControls(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (!isKeyControl(text.charCodeAt(i))) continue;
    if (i > start) pieces.push(text.slice(start, i));
    pieces.push(text[i]!);
    start = i + 1;
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}

/**
 * Ink's `useInput` handler that hands on the presses of one read of the terminal together: Ink parses
 * a read into presses (split at each escape sequence) and calls the handler for each synchronously,
 * so what came before the next microtask came in one read. A "y" parsed apart from "\u001b[A" may
 * be a paste from a terminal without bracketed paste, and must not answer as a key would.
 */
export function readsOf(onRead: (presses: KeyPress[]) => void): (input: string, key: Key) => void {
  let read: KeyPress[] | undefined;
  return (input, key) => {
    if (!read) {
      const presses: KeyPress[] = (read = []);
      queueMicrotask(() => {
        read = undefined;
        onRead(presses);
      });
    }
    read.push(normalizeKey(input, key));
  };
}

/**
 * The keys typed, from what Ink hands over per read. Ink splits a read only at ESC, so keys that
 * came together — typed while nothing read them (orca starting, a busy moment), or faster than
 * orca read — arrive as one text: two Ctrl+C as the text "\u0003\u0003", "typo", Backspace, "ed" as
 * one text with a DEL in it. Each control character is split out as its key, in order. Inside a
 * bracketed paste everything is text, marked pasted.
 */
export class TypedKeys {
  private pasting = false;

  /** The keys of one read's presses (readsOf): with several, text is pasted text, never a command. */
  read(presses: readonly KeyPress[]): KeyPress[] {
    const keys = presses.flatMap((press) => this.split(press));
    return keys.length > 1 ? keys.map((key) => (key.name === "text" && !key.pasted ? { ...key, pasted: true } : key)) : keys;
  }

  split(press: KeyPress): KeyPress[] {
    if (press.name === "paste_start" || press.name === "paste_end") this.pasting = press.name === "paste_start";
    if (press.name !== "text") return [press];
    if (this.pasting) return [{ ...press, pasted: true }];
    const pieces = splitControls(press.text);
    if (pieces.length === 1) return [pressOf(pieces[0]!, press.meta)];
    // Text beside a control character in one read may be a paste from a terminal without bracketed
    // paste (or text echoed into it): its "y" must not answer a dialog, as the whole read would not.
    return pieces.map((piece) => {
      const key = pressOf(piece, press.meta);
      return key.name === "text" ? { ...key, pasted: true } : key;
    });
  }
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
    if (!this.pasting && key.name === "text" && !key.pasted && /^[^\r\n]+\r$/.test(key.text)) {
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
