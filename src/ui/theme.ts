import chalk from "chalk";

/**
 * Every colour the dashboard uses, by what it means. Components ask for a role (`color("muted")`),
 * never for a colour name, so the palette is changed here and the no-colour mode is one switch:
 * with `NO_COLOR` set (https://no-color.org) roles give no colour, and bold, italic, underline and
 * inverse carry the structure alone (every state also has its own glyph: ✓ ✗ ⊘ ◌).
 */
export type Role =
  | "brand"
  | "text"
  | "muted"
  | "accent"
  | "user"
  | "label"
  | "ok"
  | "warn"
  | "error"
  | "running"
  | "focus"
  | "border"
  | "dialog"
  | "diffAdd"
  | "diffDel"
  | "diffHunk"
  | "diffMeta"
  | "code"
  | "link"
  | "heading"
  | "match"
  | "badgeText"
  | "badge"
  | "keyword"
  | "string"
  | "number"
  | "comment"
  | "title"
  | "type";

const PALETTE: Record<Role, string | undefined> = {
  brand: "cyan",
  text: undefined,
  muted: "gray",
  accent: "cyan",
  user: "cyan",
  label: "magenta",
  ok: "green",
  warn: "yellow",
  error: "red",
  running: "cyan",
  focus: "cyan",
  border: "gray",
  dialog: "yellow",
  diffAdd: "green",
  diffDel: "red",
  diffHunk: "cyan",
  diffMeta: "gray",
  code: "yellow",
  link: "blue",
  heading: "cyan",
  match: "yellow",
  badgeText: "black",
  badge: "yellow",
  keyword: "magenta",
  string: "green",
  number: "yellow",
  comment: "gray",
  title: "blue",
  type: "cyan",
};

export interface Theme {
  readonly noColor: boolean;
  /** The colour of a role for Ink's `color` / `borderColor` props; undefined in no-colour mode. */
  color(role: Role): string | undefined;
}

export function createTheme(env: NodeJS.ProcessEnv = process.env): Theme {
  // no-color.org: present and not empty disables colour.
  const noColor = Boolean(env.NO_COLOR);
  return { noColor, color: (role) => (noColor ? undefined : PALETTE[role]) };
}

let current = createTheme();

/** Tests (and the NO_COLOR check) swap the theme; components read it at render time. */
export function setTheme(theme: Theme): void {
  current = theme;
}

export function theme(): Theme {
  return current;
}

/** Shorthand for `theme().color(role)`. */
export function color(role: Role): string | undefined {
  return current.color(role);
}

export interface Modifiers {
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strikethrough?: boolean;
  inverse?: boolean;
  dim?: boolean;
}

/**
 * `text` as an ANSI string in a role's colour (for rows that are pre-styled: markdown, diffs,
 * code). Modifiers stay in no-colour mode; colours do not.
 */
export function paint(role: Role | null, text: string, mods: Modifiers = {}): string {
  if (!text) return text;
  let c = chalk;
  const name = role ? current.color(role) : undefined;
  if (name) c = (c as unknown as Record<string, typeof chalk>)[name] ?? c;
  if (mods.bold) c = c.bold;
  if (mods.italic) c = c.italic;
  if (mods.underline) c = c.underline;
  if (mods.strikethrough) c = c.strikethrough;
  if (mods.inverse) c = c.inverse;
  if (mods.dim) c = c.dim;
  return c === chalk ? text : c(text);
}
