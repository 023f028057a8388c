import type { Key } from "ink";

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
}

/** Turns Ink's key flags into one name. Esc is tested first: ink 6.8 also sets `meta` for it. */
export function normalizeKey(input: string, key: Key): KeyPress {
  const press = (name: KeyName, text = "", meta = false): KeyPress => ({ name, text, meta });
  if (key.escape) return press("escape");
  // Bracketed paste markers (ESC[200~ / ESC[201~) reach useInput with the ESC stripped.
  if (input === "[200~") return press("paste_start");
  if (input === "[201~") return press("paste_end");
  if (key.return) return press("return", "", key.meta);
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

/** Returns true when it consumed the key; otherwise the next lower layer sees it. */
export type KeyHandler = (key: KeyPress) => boolean;

interface Layer {
  priority: number;
  handler: { current: KeyHandler };
  order: number;
}

/** Routes each key to the highest-priority layer first: dialog > zoomed pane > dashboard > input. */
export class KeyRouter {
  private layers: Layer[] = [];
  private counter = 0;
  private pasting = false;

  add(priority: number, handler: { current: KeyHandler }): () => void {
    const layer = { priority, handler, order: this.counter++ };
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
    // Inside a bracketed paste, Enter and Tab are text, never commands.
    let routed = key;
    if (this.pasting && key.name === "return") routed = { name: "text", text: "\n", meta: false };
    else if (this.pasting && key.name === "tab") routed = { name: "text", text: "  ", meta: false };
    for (const layer of this.layers) if (layer.handler.current(routed)) return;
  }
}

