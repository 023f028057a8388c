/** What the bottom line says the keys do, from what the dashboard shows. Pure: tested without Ink. */
export interface HintState {
  /** Permission requests waiting, the one on screen included. */
  pending: number;
  zoomed: boolean;
  /** The focused sub-agent, or undefined when the coordinator has focus. */
  focused?: { name: string; running: boolean; background?: boolean };
  /** A run is in progress. */
  busy: boolean;
}

export function keyHints(s: HintState): string {
  // The dialog shows its own answer keys; this line only adds what the dialog does not say.
  if (s.pending > 0) return s.pending > 1 ? `${s.pending - 1} more request${s.pending === 2 ? "" : "s"} after this one · Ctrl+C cancel run` : "Ctrl+C cancel run";
  if (s.zoomed) return "PgUp/PgDn ↑/↓ scroll · Home/End · Esc back";
  if (s.focused?.running) {
    // Typing addresses the running agent (the input box says so); x and z act only on an empty box.
    return `x/Esc stop ${s.focused.name} · ${s.focused.background ? "" : "Ctrl+B background · "}Enter/z zoom · Tab next · ${s.busy ? "Ctrl+C cancel run" : "Ctrl+C exit"}`;
  }
  if (s.focused) return `Esc back · Enter/z zoom · Tab next pane · ${s.busy ? "Ctrl+C cancel run" : "Ctrl+C exit"}`;
  // Short enough for 80 columns; what Enter does while running is said in the input box.
  if (s.busy) return "Esc cancel run · Tab focus a pane · PgUp scroll · Ctrl+C cancel run";
  return "Enter send · Alt+Enter newline · ↑↓ history · Tab focus a pane · PgUp scroll · Ctrl+C exit";
}

/** "2 messages queued · ", or nothing. */
export function queueNote(queued: number): string {
  return queued ? `${queued} message${queued === 1 ? "" : "s"} queued · ` : "";
}
