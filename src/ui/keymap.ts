import { canonicalKey, type KeysConfig } from "../config/keys.js";

/**
 * Every key the dashboard answers, in one table: which layer, which action, which keys, and what
 * it does. The key router, the hint line, `/help` and the key table of docs/dashboard.md are all derived from
 * it, and `keys:` in config.yaml rebinds actions by name.
 *
 * Adding a binding is one entry here plus its handler in the component that owns the layer
 * (`useKeyLayer(KeyPriority.X, { actions: { my_action: () => … } })`); TypeScript then checks the
 * handler's name against this table.
 */

/** Which layer sees a key first: a higher layer may consume it before the lower ones see it. */
export enum KeyPriority {
  Dashboard = 10,
  Input = 20,
  Zoom = 30,
  /** The full output of one tool call, or a document (/help, /cost…), over the body. */
  Viewer = 40,
  /** The review view (/review, R): agents' changes, hunk by hunk. */
  Review = 45,
  Dialog = 50,
}

export const LAYER_TITLE: Record<KeyPriority, string> = {
  [KeyPriority.Dialog]: "Permission dialog",
  [KeyPriority.Viewer]: "Output viewer (/help, /cost… too)",
  [KeyPriority.Review]: "Review view (/review, R)",
  [KeyPriority.Zoom]: "Zoomed pane",
  [KeyPriority.Input]: "Input box",
  [KeyPriority.Dashboard]: "Dashboard",
};

export interface Binding {
  readonly layer: KeyPriority;
  readonly action: string;
  /** Default keys, in the syntax of config/keys.ts. Empty: unbound unless `keys:` binds it. */
  readonly keys: readonly string[];
  /** What it does, for /help and docs/dashboard.md. */
  readonly help: string;
  /** A short word or two for the hint line. */
  readonly hint?: string;
}

const D = KeyPriority.Dashboard;
const I = KeyPriority.Input;
const Z = KeyPriority.Zoom;
const V = KeyPriority.Viewer;
const P = KeyPriority.Dialog;
const RV = KeyPriority.Review;

export const BINDINGS = [
  // The permission dialog: modal, but Ctrl+C still reaches the dashboard.
  { layer: P, action: "allow_once", keys: ["y"], help: "allow this call once", hint: "once" },
  { layer: P, action: "allow_always", keys: ["a"], help: "allow for this session, every agent (a rule wider than this exact call asks for a second a)", hint: "always" },
  { layer: P, action: "allow_project", keys: ["p"], help: "as always, and save the rule in this project's .orca/config.yaml", hint: "always, project" },
  { layer: P, action: "allow_user", keys: ["u"], help: "as always, and save the rule in your ~/.config/orca/config.yaml", hint: "always, you" },
  { layer: P, action: "deny", keys: ["n"], help: "deny, then type an optional reason the model reads (Enter sends)", hint: "deny" },
  { layer: P, action: "deny_now", keys: ["esc"], help: "deny this call at once (the run goes on; Ctrl+C cancels the run)", hint: "deny this call" },
  { layer: P, action: "edit_rule", keys: ["e"], help: "edit the rule \"always\" saves before saving it", hint: "edit rule" },
  { layer: P, action: "line_up", keys: ["up"], help: "scroll a long request", hint: "scroll" },
  { layer: P, action: "line_down", keys: ["down"], help: "scroll a long request", hint: "scroll" },
  { layer: P, action: "page_up", keys: ["pageup"], help: "scroll a long request a page" },
  { layer: P, action: "page_down", keys: ["pagedown"], help: "scroll a long request a page" },
  // The output viewer: a tool call's whole output, a diff, or a document such as /help.
  { layer: V, action: "line_up", keys: ["up", "k"], help: "scroll up a line", hint: "scroll" },
  { layer: V, action: "line_down", keys: ["down", "j"], help: "scroll down a line", hint: "scroll" },
  { layer: V, action: "page_up", keys: ["pageup", "b"], help: "scroll up a page" },
  { layer: V, action: "page_down", keys: ["pagedown", "space"], help: "scroll down a page" },
  { layer: V, action: "top", keys: ["home", "g"], help: "go to the first line", hint: "top" },
  { layer: V, action: "bottom", keys: ["end", "G"], help: "go to the last line", hint: "end" },
  { layer: V, action: "search", keys: ["/"], help: "search (Enter to find, Esc to drop)", hint: "search" },
  { layer: V, action: "next_match", keys: ["n"], help: "next match", hint: "next" },
  { layer: V, action: "prev_match", keys: ["N"], help: "previous match" },
  { layer: V, action: "close", keys: ["esc", "q"], help: "close the viewer", hint: "back" },
  // The review view: agent → file → hunk; marks are sent together, so a slip costs nothing until s.
  { layer: RV, action: "review_next", keys: ["down", "j"], help: "next hunk, file or agent", hint: "move" },
  { layer: RV, action: "review_prev", keys: ["up", "k"], help: "previous hunk, file or agent" },
  { layer: RV, action: "next_file", keys: ["tab", "]"], help: "next file", hint: "file" },
  { layer: RV, action: "prev_file", keys: ["shift+tab", "["], help: "previous file" },
  { layer: RV, action: "page_down", keys: ["pagedown", "space"], help: "down a page" },
  { layer: RV, action: "page_up", keys: ["pageup", "b"], help: "up a page" },
  { layer: RV, action: "top", keys: ["home", "g"], help: "the first agent" },
  { layer: RV, action: "bottom", keys: ["end", "G"], help: "the last hunk" },
  { layer: RV, action: "fold", keys: ["enter"], help: "fold or unfold the file's diff (on an agent: all its files)" },
  { layer: RV, action: "accept", keys: ["a"], help: "mark the hunk or file accepted; on an agent, accept it now (a merge held by review: ask happens at once)", hint: "accept" },
  { layer: RV, action: "reject", keys: ["r"], help: "mark the hunk, file or agent's whole change rejected (again: unmark)", hint: "reject" },
  { layer: RV, action: "comment", keys: ["c"], help: "write a comment for the agent on this hunk, file or agent (Enter keeps it, Esc drops it)", hint: "comment" },
  { layer: RV, action: "send", keys: ["s"], help: "send: restore every rejected hunk and file, and tell each agent its rejections and comments (it revises)", hint: "send" },
  { layer: RV, action: "close", keys: ["esc", "q"], help: "close the review (with marks not sent: press again to drop them)", hint: "back" },
  // A zoomed pane: its whole transcript, scrollable; tool rows can be selected and opened.
  { layer: Z, action: "select_prev", keys: ["up"], help: "select the previous tool call (scrolls a line when there is none)", hint: "select" },
  { layer: Z, action: "select_next", keys: ["down"], help: "select the next tool call" },
  { layer: Z, action: "open", keys: ["enter"], help: "open the selected call's full output or diff", hint: "open" },
  { layer: Z, action: "page_up", keys: ["pageup"], help: "scroll up a page", hint: "scroll" },
  { layer: Z, action: "page_down", keys: ["pagedown"], help: "scroll down a page" },
  { layer: Z, action: "top", keys: ["home"], help: "go to the top" },
  { layer: Z, action: "bottom", keys: ["end"], help: "go to the end" },
  { layer: Z, action: "unzoom", keys: ["esc", "q", "z"], help: "leave the zoomed pane", hint: "back" },
  // The input box. Text goes in unless a binding below takes the key first.
  { layer: I, action: "submit", keys: ["enter"], help: "send; while a run goes on, queue the message for after it, or wake the coordinator with it while it waits for background sub-agents; with a running sub-agent's pane focused, a message for that sub-agent, read before its next step (/command runs a command)", hint: "send" },
  { layer: I, action: "newline", keys: ["alt+enter", "ctrl+j"], help: "new line (pasted newlines are kept)", hint: "newline" },
  { layer: I, action: "complete", keys: ["tab"], help: "complete the /command or @path in the popup" },
  { layer: I, action: "expand_paste", keys: ["ctrl+o"], help: "put the text of a collapsed [pasted …] back in the box" },
  { layer: I, action: "history_prev", keys: ["up"], help: "previous message (or the popup's previous command)", hint: "history" },
  { layer: I, action: "history_next", keys: ["down"], help: "next message (or the popup's next command)" },
  // Not Ctrl+B (readline's): on a focused running sub-agent it sends that agent to the background.
  { layer: I, action: "cursor_left", keys: ["left"], help: "cursor left" },
  { layer: I, action: "cursor_right", keys: ["right", "ctrl+f"], help: "cursor right" },
  { layer: I, action: "line_start", keys: ["home", "ctrl+a"], help: "start of line" },
  { layer: I, action: "line_end", keys: ["end", "ctrl+e"], help: "end of line" },
  { layer: I, action: "delete_back", keys: ["backspace"], help: "delete the character before the cursor" },
  { layer: I, action: "delete_forward", keys: ["ctrl+d"], help: "delete the character under the cursor" },
  { layer: I, action: "kill_line", keys: ["ctrl+u"], help: "delete to the start of the line" },
  // The dashboard: what is left when no layer above took the key.
  { layer: D, action: "interrupt", keys: ["ctrl+c"], help: "cancel the run and any !command; exit when idle (twice within 2 s: exit now)", hint: "cancel run" },
  { layer: D, action: "exit", keys: ["ctrl+d"], help: "exit (on an empty input, nothing running)" },
  { layer: D, action: "cancel", keys: ["esc"], help: "cancel the focused scope: the coordinator → the whole run, background sub-agents included, and any !command; a sub-agent pane → only it (its parent is told how to resume it); else back", hint: "cancel run" },
  { layer: D, action: "stop_pane", keys: ["x"], help: "on a focused running sub-agent pane, with an empty input: stop only that sub-agent (as Esc)", hint: "stop" },
  { layer: D, action: "background_pane", keys: ["ctrl+b"], help: "on a focused running sub-agent pane: send it to the background (its parent's delegate call returns at once, the result comes later as a message)", hint: "background" },
  { layer: D, action: "focus_next", keys: ["tab"], help: "focus the next pane (the coordinator, then each sub-agent)", hint: "focus a pane" },
  { layer: D, action: "focus_prev", keys: [], help: "focus the previous pane (unbound: Shift+Tab switches the permission mode)" },
  { layer: D, action: "cycle_mode", keys: ["shift+tab"], help: "next permission mode: default → accept-edits → plan → bypass", hint: "mode" },
  { layer: D, action: "select_prev", keys: ["up"], help: "in a focused sub-agent pane: select the previous tool call", hint: "select" },
  { layer: D, action: "select_next", keys: ["down"], help: "in a focused sub-agent pane: select the next tool call" },
  { layer: D, action: "open", keys: ["enter"], help: "open the selected tool call's full output or diff", hint: "open" },
  { layer: D, action: "zoom", keys: ["enter", "z"], help: "zoom the focused sub-agent pane to full size", hint: "zoom" },
  { layer: D, action: "scroll_back", keys: ["pageup"], help: "zoom the focused pane, one page up", hint: "scroll" },
  { layer: D, action: "review_pane", keys: ["R"], help: "on a focused pane, with an empty input: the review view at that agent's changes (accept or reject hunks, comment)", hint: "review" },
  { layer: D, action: "help", keys: ["?"], help: "keys and commands (on an empty input)", hint: "help" },
] as const satisfies readonly Binding[];

export type Action = (typeof BINDINGS)[number]["action"];
export type LayerAction<L extends KeyPriority> = Extract<(typeof BINDINGS)[number], { layer: L }>["action"];

export interface ResolvedBinding extends Binding {
  readonly action: Action;
  /** Canonical keys after `keys:` from config. */
  readonly keys: readonly string[];
}

export interface Keymap {
  readonly bindings: readonly ResolvedBinding[];
  /** The actions of `layer` bound to `key` (canonical), in table order. */
  match(layer: KeyPriority, key: string): readonly Action[];
  /** The keys of an action in a layer, as the user reads them: "Ctrl+C", "↑". */
  labels(layer: KeyPriority, action: Action): string[];
}

const ACTIONS: ReadonlySet<string> = new Set(BINDINGS.map((b) => b.action));

/**
 * The table with `keys:` from config applied: a rebound action takes its new keys in every layer
 * that has it. Unknown actions and unreadable keys are returned as one line each, naming the
 * config path (the dashboard refuses to start on them, as on any config error).
 */
export function resolveKeymap(overrides: KeysConfig = {}): { keymap: Keymap; errors: string[] } {
  const errors: string[] = [];
  const rebound = new Map<string, string[]>();
  for (const [action, value] of Object.entries(overrides)) {
    if (!ACTIONS.has(action)) {
      errors.push(`keys.${action}: no such action (known: ${[...ACTIONS].sort().join(", ")})`);
      continue;
    }
    const keys: string[] = [];
    for (const spec of Array.isArray(value) ? value : [value]) {
      const key = canonicalKey(spec);
      if (key) keys.push(key);
      else errors.push(`keys.${action}: "${spec}" is not a key`);
    }
    rebound.set(action, keys);
  }
  const bindings: ResolvedBinding[] = BINDINGS.map((b) => ({
    ...b,
    keys: rebound.get(b.action) ?? b.keys.map((k) => canonicalKey(k)!),
  }));
  return { keymap: buildKeymap(bindings), errors };
}

function buildKeymap(bindings: readonly ResolvedBinding[]): Keymap {
  const index = new Map<string, Action[]>();
  for (const b of bindings) {
    for (const key of b.keys) {
      const k = `${b.layer}:${key}`;
      const list = index.get(k) ?? [];
      if (!list.includes(b.action)) list.push(b.action);
      index.set(k, list);
    }
  }
  const byAction = new Map(bindings.map((b) => [`${b.layer}:${b.action}`, b]));
  return {
    bindings,
    match: (layer, key) => index.get(`${layer}:${key}`) ?? [],
    labels: (layer, action) => (byAction.get(`${layer}:${action}`)?.keys ?? []).map(keyLabel),
  };
}

export const DEFAULT_KEYMAP: Keymap = resolveKeymap().keymap;

const LABELS: Record<string, string> = {
  esc: "Esc",
  enter: "Enter",
  tab: "Tab",
  up: "↑",
  down: "↓",
  left: "←",
  right: "→",
  pageup: "PgUp",
  pagedown: "PgDn",
  home: "Home",
  end: "End",
  backspace: "Backspace",
  space: "Space",
};

/** "ctrl+c" → "Ctrl+C", "shift+tab" → "Shift+Tab", "up" → "↑". */
export function keyLabel(key: string): string {
  const parts = key.split("+");
  let last = parts.pop()!;
  if (last === "" && key.endsWith("+")) {
    parts.pop();
    last = "+";
  }
  const mods = parts.map((m) => m[0]!.toUpperCase() + m.slice(1));
  const name = LABELS[last] ?? (parts.includes("ctrl") ? last.toUpperCase() : last);
  return [...mods, name].join("+");
}

/** The keys of an action joined for reading: "Esc/q/z". */
export function keysText(keymap: Keymap, layer: KeyPriority, action: Action): string {
  return keymap.labels(layer, action).join("/");
}

/** The rows of /help and the docs' key table: layer, keys, what they do. */
export function helpRows(keymap: Keymap): { layer: string; keys: string; help: string }[] {
  const order = [KeyPriority.Input, KeyPriority.Dashboard, KeyPriority.Zoom, KeyPriority.Viewer, KeyPriority.Review, KeyPriority.Dialog];
  return order.flatMap((layer) =>
    keymap.bindings
      .filter((b) => b.layer === layer)
      .map((b) => ({ layer: LAYER_TITLE[layer], keys: b.keys.map(keyLabel).join(" / ") || "(unbound)", help: b.help })),
  );
}
