import type { Field } from "./fit.js";
import { KeyPriority, keysText, type Action, type Keymap } from "./keymap.js";

/** What the bottom line says the keys do, from what the dashboard shows. Pure: tested without Ink. */
export interface HintState {
  /** Permission requests waiting, the one on screen included. */
  pending: number;
  /** The output viewer is open. */
  viewing?: boolean;
  /** The review view is open (it shows its own keys). */
  reviewing?: boolean;
  zoomed: boolean;
  /** The focused sub-agent, or undefined when the coordinator has focus. */
  focused?: { name: string; running: boolean; background?: boolean };
  /** A tool call is selected in the focused or zoomed pane. */
  selected?: boolean;
  /** A run is in progress. */
  busy: boolean;
}

/**
 * The hints for a state, each a field the line may drop when narrow (highest `drop` first). The
 * keys come from the keymap, so a rebinding shows here too.
 */
export function keyHints(s: HintState, keymap: Keymap): Field[] {
  const key = (layer: KeyPriority, action: Action): string => keysText(keymap, layer, action);
  const hint = (layer: KeyPriority, action: Action, what: string, drop: number): Field[] => {
    const keys = key(layer, action);
    return keys ? [{ text: `${keys} ${what}`, drop }] : [];
  };
  const D = KeyPriority.Dashboard;
  const interrupt = hint(D, "interrupt", s.busy ? "cancel run" : "exit", 0);
  // The dialog shows its own answer keys; this line only adds what the dialog does not say.
  if (s.pending > 0) {
    const more = s.pending > 1 ? [{ text: `${s.pending - 1} more request${s.pending === 2 ? "" : "s"} after this one`, drop: 1 }] : [];
    return [...more, ...interrupt];
  }
  if (s.reviewing) return [...hint(KeyPriority.Review, "send", "send marks", 2), ...hint(KeyPriority.Review, "close", "back", 1), ...interrupt];
  if (s.viewing) return [...hint(KeyPriority.Viewer, "close", "back", 1), ...hint(KeyPriority.Viewer, "search", "search", 2), ...interrupt];
  if (s.zoomed) {
    const Z = KeyPriority.Zoom;
    return [
      ...hint(Z, "select_prev", "select", 2),
      ...hint(Z, "open", "open", s.selected ? 1 : 3),
      ...hint(Z, "page_up", "scroll", 3),
      ...hint(Z, "unzoom", "back", 1),
      ...interrupt,
    ];
  }
  if (s.focused) {
    // Running, typing addresses it (the input box says so); x acts only on an empty box.
    const stop = s.focused.running ? [key(D, "stop_pane"), key(D, "cancel")].filter(Boolean).join("/") : "";
    return [
      s.focused.running ? { text: `${stop} stop ${s.focused.name}`, drop: 1 } : { text: `${key(D, "cancel")} back`, drop: 1 },
      ...(s.focused.running && !s.focused.background ? hint(D, "background_pane", "background", 2) : []),
      ...hint(D, "select_prev", "select", 3),
      ...(s.selected ? hint(D, "open", "open", 2) : hint(D, "zoom", "zoom", 2)),
      ...hint(D, "focus_next", "next pane", 4),
      ...interrupt,
    ];
  }
  if (s.busy) {
    return [
      ...hint(D, "cancel", "cancel run", 1),
      ...hint(D, "focus_next", "focus a pane", 3),
      ...hint(D, "cycle_mode", "mode", 4),
      ...hint(D, "scroll_back", "scroll", 5),
      ...hint(D, "help", "help", 2),
      ...interrupt,
    ];
  }
  return [
    ...hint(KeyPriority.Input, "submit", "send", 2),
    ...hint(KeyPriority.Input, "newline", "newline", 6),
    ...hint(KeyPriority.Input, "history_prev", "history", 7),
    ...hint(D, "focus_next", "focus a pane", 4),
    ...hint(D, "cycle_mode", "mode", 5),
    { text: "/ commands", drop: 3 },
    ...hint(D, "help", "help", 1),
    ...interrupt,
  ];
}

/** "2 messages queued · ", or nothing. */
export function queueNote(queued: number): string {
  return queued ? `${queued} message${queued === 1 ? "" : "s"} queued · ` : "";
}
