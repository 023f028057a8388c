import stringWidth from "string-width";

/**
 * Word-wrapping for the dashboard's own styled text (markdown, diffs, the dialog), fast. wrap-ansi
 * measures every word with string-width (Intl.Segmenter per character): ~2 ms for two lines, which
 * made markdown the most expensive thing on screen. Here printable ASCII counts one column a
 * character, and only other text is measured. Each row is self-contained: the SGR styles and the
 * OSC 8 link open at a break are closed at the row's end and opened again on the next row.
 */

// SGR (ESC [ … m) and OSC 8 (ESC ] 8 ; ; url BEL); sanitised text carries no other escapes.
const ESCAPE = /\u001B\[[0-9;]*m|\u001B\]8;;[^\u0007]*\u0007/y;
const ASCII = /^[\x20-\x7e]*$/;

/** Columns of a styled string. */
export function textWidth(text: string): number {
  const plain = text.includes("\u001B") ? text.replace(/\u001B\[[0-9;]*m|\u001B\]8;;[^\u0007]*\u0007/g, "") : text;
  return ASCII.test(plain) ? plain.length : stringWidth(plain);
}

type Group = "bold" | "dim" | "italic" | "underline" | "blink" | "inverse" | "hidden" | "strike" | "fg" | "bg";

/** What an SGR attribute code sets, and the code that clears it (22 clears bold and dim). */
const ATTRIBUTES = new Map<number, Group>([
  [1, "bold"],
  [2, "dim"],
  [3, "italic"],
  [4, "underline"],
  [21, "underline"],
  [5, "blink"],
  [6, "blink"],
  [7, "inverse"],
  [8, "hidden"],
  [9, "strike"],
]);
const CLEARS = new Map<number, readonly Group[]>([
  [22, ["bold", "dim"]],
  [23, ["italic"]],
  [24, ["underline"]],
  [25, ["blink"]],
  [27, ["inverse"]],
  [28, ["hidden"]],
  [29, ["strike"]],
  [39, ["fg"]],
  [49, ["bg"]],
]);

/** The styles in force, by attribute: applying an SGR sequence updates them. */
export class Styles {
  private open = new Map<Group, string>();
  link: string | null = null;
  /** A code this does not model was applied: `reopen()` may not restore everything. */
  unknown = false;

  apply(seq: string): void {
    if (seq.startsWith("\u001B]8;;")) {
      const url = seq.slice(5, -1);
      this.link = url ? seq : null;
      return;
    }
    const params = seq.slice(2, -1).split(";");
    for (let i = 0; i < params.length; i++) {
      const code = Number(params[i] || "0");
      if (code === 38 || code === 48) {
        // 38;5;n and 38;2;r;g;b: the colour takes the numbers after it.
        const take = params[i + 1] === "5" ? 3 : params[i + 1] === "2" ? 5 : 0;
        if (take === 0 || i + take > params.length) {
          this.unknown = true;
          return;
        }
        this.open.set(code === 38 ? "fg" : "bg", `\u001B[${params.slice(i, i + take).join(";")}m`);
        i += take - 1;
      } else if (code === 0) this.open.clear();
      else if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97)) this.open.set("fg", `\u001B[${code}m`);
      else if ((code >= 40 && code <= 47) || (code >= 100 && code <= 107)) this.open.set("bg", `\u001B[${code}m`);
      else if (ATTRIBUTES.has(code)) this.open.set(ATTRIBUTES.get(code)!, `\u001B[${code}m`);
      else if (CLEARS.has(code)) for (const group of CLEARS.get(code)!) this.open.delete(group);
      else this.unknown = true;
    }
  }

  /** What ends the row: every style reset, the link closed. */
  close(): string {
    return (this.open.size ? "\u001B[0m" : "") + (this.link ? "\u001B]8;;\u0007" : "");
  }

  /** What starts the next row: the same styles and link again. */
  reopen(): string {
    return [...this.open.values()].join("") + (this.link ?? "");
  }
}

interface Token {
  /** Text or an escape sequence. */
  text: string;
  escape: boolean;
  width: number;
}

function tokens(line: string): Token[] {
  const out: Token[] = [];
  const words = (plain: string): void => {
    // Words and the spaces between them, so a row can end at a space.
    for (const part of plain.split(/( +)/)) if (part) out.push({ text: part, escape: false, width: ASCII.test(part) ? part.length : stringWidth(part) });
  };
  // The text between escapes is taken in slices: built a character at a time, it was most of
  // the cost of wrapping a paragraph.
  let from = 0;
  let at = line.indexOf("\u001B");
  while (at !== -1) {
    ESCAPE.lastIndex = at;
    const m = ESCAPE.exec(line);
    if (m) {
      if (at > from) words(line.slice(from, at));
      out.push({ text: m[0], escape: true, width: 0 });
      from = at + m[0].length;
      at = line.indexOf("\u001B", from);
    } else at = line.indexOf("\u001B", at + 1);
  }
  if (from < line.length) words(line.slice(from));
  return out;
}

/** Splits a word wider than a row into pieces of at most `width` columns. */
function pieces(word: string, width: number): string[] {
  if (ASCII.test(word)) {
    const out: string[] = [];
    for (let i = 0; i < word.length; i += width) out.push(word.slice(i, i + width));
    return out;
  }
  const out: string[] = [];
  let cur = "";
  let w = 0;
  for (const ch of word) {
    const cw = stringWidth(ch);
    if (w + cw > width && cur) {
      out.push(cur);
      cur = "";
      w = 0;
    }
    cur += ch;
    w += cw;
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * `text` (which may hold newlines) as rows of at most `width` columns: broken at spaces, words
 * longer than a row broken hard. `trim`: no spaces at the start or end of a wrapped row.
 */
export function wrapStyled(text: string, width: number, trim = true): string[] {
  const w = Math.max(1, width);
  const rows: string[] = [];
  for (const line of text.split("\n")) {
    if (textWidth(line) <= w) {
      // Most lines fit and are kept as they are; chalk closes its styles at each newline.
      rows.push(line);
      continue;
    }
    const styles = new Styles();
    let row = "";
    let rowWidth = 0;
    let prefix = "";
    let wrapped = false;
    const breakRow = (): void => {
      const out = trim ? row.replace(/ +((?:\u001B\[[0-9;]*m)*)$/, "$1") : row;
      rows.push(prefix + out + styles.close());
      prefix = styles.reopen();
      row = "";
      rowWidth = 0;
      wrapped = true;
    };
    for (const t of tokens(line)) {
      if (t.escape) {
        styles.apply(t.text);
        row += t.text;
        continue;
      }
      const space = t.text.startsWith(" ");
      // A wrapped row does not start with the spaces it broke at.
      if (space && trim && wrapped && rowWidth === 0) continue;
      if (rowWidth + t.width <= w) {
        row += t.text;
        rowWidth += t.width;
        continue;
      }
      if (space) {
        breakRow();
        continue;
      }
      if (rowWidth > 0) breakRow();
      const parts = t.width > w ? pieces(t.text, w) : [t.text];
      parts.forEach((part, i) => {
        if (i > 0) breakRow();
        row += part;
        rowWidth += textWidth(part);
      });
    }
    rows.push(prefix + row);
  }
  return rows;
}
