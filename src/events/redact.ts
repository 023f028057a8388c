/**
 * Replaces secret values (API keys, header values, MCP tokens) with [redacted] in serialised
 * events, wherever they went: the session log and the stream-json output both pass through it.
 *
 * A command's output rarely shows a key whole and plain: `grep --color` wraps the match in colour
 * codes, `grep -o 'KEY=.{10}'` or `cut` print pieces of it. So lines are read with ANSI escape
 * sequences skipped, and for a key-like secret any run of 8 or more of its characters in a row is
 * redacted, found with a rolling hash over 8-character windows: one pass over each line.
 */
const GRAM = 8;
const BASE = 0x01000193;
/** BASE^(GRAM-1) mod 2^32: what the character leaving the window contributed. */
const BASE_OUT = (() => {
  let p = 1;
  for (let i = 1; i < GRAM; i++) p = Math.imul(p, BASE);
  return p >>> 0;
})();

/** An escape sequence as it appears in a JSON string (\u001b) or raw: CSI (colours, erase) or a two-character one. */
const ANSI = /(?:\u001b|\\u001[bB])(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])/g;
const ANSI_START = /\u001b|\\u001[bB]/;
/** The bitmap of window hashes: 2^20 bits (128 KB a redactor) keep a line's false hits rare. */
const HASH_BITS = 1 << 20;
const HASH_MASK = HASH_BITS - 1;

export class Redactor {
  private readonly secrets: string[] = [];
  /** Each secret as it appears inside a JSON string, or null where that is the secret itself (made once, not per line). */
  private readonly escaped: (string | null)[] = [];
  /**
   * Hashes of every 8-character window of the key-like secrets, as a bitmap of their low bits (the
   * scan looks every character up in it: a typed array read where a Set lookup cost ~40 % of
   * writing a log line), and the windows themselves, which a hit is checked against.
   */
  private readonly gramBits = new Uint8Array(HASH_BITS / 8);
  private readonly grams = new Set<string>();

  /** Short values would redact ordinary words; real keys and tokens are long. */
  add(value: string | undefined): void {
    if (!value || value.length < GRAM || this.secrets.includes(value)) return;
    this.secrets.push(value);
    const escaped = JSON.stringify(value).slice(1, -1);
    this.escaped.push(escaped === value ? null : escaped);
    if (!looksLikeKey(value)) return;
    for (const form of new Set([value, escaped])) {
      for (let i = 0; i + GRAM <= form.length; i++) {
        const gram = form.slice(i, i + GRAM);
        this.grams.add(gram);
        const h = hashOf(gram) & HASH_MASK;
        this.gramBits[h >>> 3]! |= 1 << (h & 7);
      }
    }
  }

  /** Redacts a JSON-serialised line (a secret may appear JSON-escaped there). */
  redactJson(line: string): string {
    if (this.secrets.length === 0) return line;
    for (let i = 0; i < this.secrets.length; i++) {
      const secret = this.secrets[i]!;
      if (line.includes(secret)) line = line.split(secret).join("[redacted]");
      const escaped = this.escaped[i];
      if (escaped && line.includes(escaped)) line = line.split(escaped).join("[redacted]");
    }
    return this.grams.size ? this.redactPieces(line) : line;
  }

  /** Redacts every run of 8+ characters of a key, reading through colour codes. */
  private redactPieces(line: string): string {
    const { text, origin } = withoutAnsi(line);
    if (text.length < GRAM) return line;
    const ranges: Array<[number, number]> = [];
    const bits = this.gramBits;
    let h = 0;
    for (let i = 0; i < text.length; i++) {
      if (i >= GRAM) h = (h - Math.imul(text.charCodeAt(i - GRAM), BASE_OUT)) >>> 0;
      h = (Math.imul(h, BASE) + text.charCodeAt(i)) >>> 0;
      const low = h & HASH_MASK;
      if (i < GRAM - 1 || (bits[low >>> 3]! & (1 << (low & 7))) === 0) continue;
      const start = i - GRAM + 1;
      if (!this.grams.has(text.slice(start, i + 1))) continue;
      const from = origin ? origin[start]! : start;
      const to = origin ? origin[i]! + 1 : i + 1;
      const last = ranges[ranges.length - 1];
      if (last && from <= last[1]) last[1] = Math.max(last[1], to);
      else ranges.push([from, to]);
    }
    if (ranges.length === 0) return line;
    let out = "";
    let at = 0;
    for (const [from, to] of ranges) {
      out += `${line.slice(at, from)}[redacted]`;
      at = to;
    }
    return out + line.slice(at);
  }
}

/**
 * Keys and tokens: one long word of letters and digits. Paths, URLs and phrases are redacted only
 * whole: their pieces ("/home/us") are everywhere in a log, and blanking them would break resume.
 */
function looksLikeKey(value: string): boolean {
  return value.length >= 16 && !/[\s/]/.test(value) && /\d/.test(value) && /[A-Za-z]/.test(value);
}

function hashOf(gram: string): number {
  let h = 0;
  for (let i = 0; i < gram.length; i++) h = (Math.imul(h, BASE) + gram.charCodeAt(i)) >>> 0;
  return h;
}

/** The line without escape sequences, and for each of its characters the index it came from (null: none removed). */
function withoutAnsi(line: string): { text: string; origin: number[] | null } {
  if (!ANSI_START.test(line)) return { text: line, origin: null };
  let text = "";
  const origin: number[] = [];
  let at = 0;
  const keep = (to: number) => {
    for (let i = at; i < to; i++) origin.push(i);
    text += line.slice(at, to);
  };
  for (const m of line.matchAll(ANSI)) {
    keep(m.index);
    at = m.index + m[0].length;
  }
  keep(line.length);
  return { text, origin };
}
