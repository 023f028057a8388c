import { z } from "zod";
import { builtOnUse } from "../util/built-on-use.js";

/**
 * The syntax of `keys:` in config.yaml: an action name (the dashboard's keymap says which exist)
 * bound to one key or a list. A key is a named key or one printable character, with modifiers:
 * `ctrl+c`, `shift+tab`, `alt+enter`, `esc`, `pageup`, `z`, `?`. Which actions exist is the
 * dashboard's business (ui/keymap.ts checks the names when it starts); this floor only checks that
 * every key can be typed.
 */

export const NAMED_KEYS = ["esc", "enter", "tab", "up", "down", "left", "right", "pageup", "pagedown", "home", "end", "backspace", "space"] as const;

const KEY_SPEC = new RegExp(`^(?:(?:ctrl|alt|shift)\\+)*(?:${NAMED_KEYS.join("|")}|[a-z]|[!-~])$`, "i");

/** A key spec in canonical form (modifiers and named keys lower case, ctrl letters lower case), or null. */
export function canonicalKey(spec: string): string | null {
  const trimmed = spec.trim();
  if (!KEY_SPEC.test(trimmed)) return null;
  const parts = trimmed.split("+");
  // "+" itself is a printable key: "ctrl++" splits into an empty last part.
  let key = parts.pop()!;
  if (key === "" && trimmed.endsWith("+")) {
    parts.pop();
    key = "+";
  }
  const mods = new Set(parts.map((p) => p.toLowerCase()));
  const named = (NAMED_KEYS as readonly string[]).includes(key.toLowerCase());
  if (named) key = key.toLowerCase();
  else if (mods.has("ctrl")) key = key.toLowerCase();
  // shift+a is the key that types "A".
  if (mods.has("shift") && !mods.has("ctrl") && !mods.has("alt") && /^[a-z]$/i.test(key)) {
    mods.delete("shift");
    key = key.toUpperCase();
  }
  const order = ["ctrl", "alt", "shift"].filter((m) => mods.has(m));
  return [...order, key].join("+");
}

const keySpec = builtOnUse(() => z.string().refine((s) => canonicalKey(s) !== null, {
  message: `expected a key like ctrl+c, shift+tab, alt+enter, esc, pageup or one character`,
}));

// Made on first use, as the rest of the config's schema is (config/schema.ts).
export const keysConfigSchema = builtOnUse(() => z.record(
  z.string().regex(/^[a-z][a-z_]*$/, "an action name in snake_case (see /help in the dashboard)"),
  z.union([keySpec, z.array(keySpec)]),
));
export type KeysConfig = z.infer<typeof keysConfigSchema>;
