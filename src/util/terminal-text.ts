/**
 * The one sanitizer for text from outside — a model, a tool, an MCP server, a log, a file name —
 * on its way to a terminal. Printed raw, an escape sequence would act instead of showing: OSC 52
 * sets the clipboard, OSC 0/2 the window title, CSI moves the cursor under the dashboard's feet.
 * The dashboard's own styles are added after this, to text already clean, so they are kept.
 *
 * Control strings (OSC, DCS, SOS, PM, APC, 7-bit or C1) go with their content, terminated or not;
 * an unterminated one ends at the line's end, so a lone introducer cannot hide the lines after it;
 * CSI and other escapes go whole; any other control character goes. Newlines stay, CR LF becomes
 * LF and tabs two spaces. Each call stands alone: a sequence split across two texts loses its ESC
 * in the first, so the rest can only show as text.
 */

const STRING_CONTROL = /(?:\u001B[\]PX^_]|[\u0090\u0098\u009D\u009E\u009F])[^\u0007\u001B\u009C\n]*(?:\u0007|\u001B\\|\u009C)?/g;
const CSI = /(?:\u001B\[|\u009B)[0-?]*[ -/]*[@-~]/g;
const OTHER_ESCAPE = /\u001B[ -/]*[0-~]/g;
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
/** Anything the replacements would touch: most text has none and is returned as it is. */
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\t]/;

/**
 * Text made inert for a terminal; keeps newlines. `keepTabs`: for text that leaves the screen (the
 * clipboard), where a tab is data (a Makefile's, a TSV's) rather than a column to draw.
 */
export function terminalSafe(text: string, { keepTabs = false }: { keepTabs?: boolean } = {}): string {
  if (!UNSAFE.test(text)) return text;
  const clean = text.replace(/\r\n?/g, "\n").replace(STRING_CONTROL, "").replace(CSI, "").replace(OTHER_ESCAPE, "");
  return (keepTabs ? clean : clean.replace(/\t/g, "  ")).replace(CONTROL, "");
}

/**
 * A value with every string in it made terminal-safe (objects and arrays walked, anything else
 * kept). Returns the value itself when nothing needed cleaning, so the common case allocates
 * nothing.
 */
export function terminalSafeDeep<T>(value: T): T {
  return cleanValue(value, 0) as T;
}

function cleanValue(value: unknown, depth: number): unknown {
  if (typeof value === "string") return terminalSafe(value);
  if (value === null || typeof value !== "object" || depth > 32) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const clean = cleanValue(item, depth + 1);
      if (clean !== item) (out ??= [...value])[i] = clean;
    });
    return out ?? value;
  }
  let out: Record<string, unknown> | undefined;
  // A for-in over own keys, not Object.entries: every event the dashboard folds in passes here,
  // and the array of pairs was an allocation per event for what is nearly always nothing to clean.
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const item = record[key];
    const clean = cleanValue(item, depth + 1);
    if (clean !== item) (out ??= { ...record })[key] = clean;
  }
  return out ?? value;
}
