import type { Node } from "web-tree-sitter";

/** One word of a command, as bash will pass it on. */
export interface ShellWord {
  /**
   * The word with quotes and escapes removed (`'r'm` and `r\m` are both `rm`), or null when it is
   * only known at run time: a variable, a substitution, a glob or brace expansion.
   */
  value: string | null;
  /** As written. */
  text: string;
  /** Some of it was quoted or backslash-escaped. */
  quoted: boolean;
}

/** Node types whose value bash computes at run time. */
const DYNAMIC = new Set([
  "simple_expansion",
  "expansion",
  "command_substitution",
  "process_substitution",
  "arithmetic_expansion",
  "brace_expression",
  "translated_string",
  "array",
]);

/** The word a node of an argument, a command name or a redirect target stands for. */
export function wordOf(node: Node): ShellWord {
  const text = node.text;
  const part = partOf(node);
  let value = part.value;
  // An unquoted `*`, `?` or `[…]` is a file-name pattern, `{a,b}` / `{1..3}` a brace expansion:
  // what runs depends on the files present, or is several words.
  if (value !== null && (/[*?[]/.test(part.unquoted) || /\{[^{}]*(,|\.\.)[^{}]*\}/.test(part.unquoted))) value = null;
  return { value, text, quoted: part.quoted };
}

interface Part {
  value: string | null;
  /** The unquoted characters only, to look for glob and brace characters. */
  unquoted: string;
  quoted: boolean;
}

function partOf(node: Node): Part {
  switch (node.type) {
    case "word":
    case "command_name": {
      if (node.type === "command_name") {
        const inner = node.namedChildren[0];
        return inner ? partOf(inner) : { value: null, unquoted: "", quoted: false };
      }
      return unquotedWord(node.text);
    }
    case "number":
      return node.namedChildCount > 0 ? { value: null, unquoted: "", quoted: false } : { value: node.text, unquoted: node.text, quoted: false };
    case "raw_string":
      return { value: node.text.slice(1, -1), unquoted: "", quoted: true };
    case "ansi_c_string":
      return { value: decodeAnsiC(node.text.slice(2, -1)), unquoted: "", quoted: true };
    case "string":
      return doubleQuoted(node);
    case "concatenation": {
      let value: string | null = "";
      let unquoted = "";
      let quoted = false;
      for (const child of node.namedChildren) {
        if (!child) continue;
        const p = partOf(child);
        if (p.value === null || value === null) value = null;
        else value += p.value;
        unquoted += p.unquoted;
        quoted ||= p.quoted;
      }
      // Pieces the grammar leaves unnamed (a bare `{` or `}`) still count for brace expansion.
      if (node.namedChildren.map((c) => c?.text ?? "").join("") !== node.text) return { value: null, unquoted, quoted };
      return { value, unquoted, quoted };
    }
    default:
      // An expansion, a substitution, or a node this reading does not know: only run time can tell.
      return { value: null, unquoted: "", quoted: !DYNAMIC.has(node.type) };
  }
}

/** An unquoted word: a backslash escapes the next character. */
function unquotedWord(text: string): Part {
  let value = "";
  let unquoted = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\\" && i + 1 < text.length) {
      quoted = true;
      value += text[++i];
      continue;
    }
    if (ch === "$" && i + 1 < text.length) return { value: null, unquoted, quoted };
    value += ch;
    unquoted += ch;
  }
  return { value, unquoted, quoted };
}

/** `"…"`: literal unless it holds an expansion; a backslash escapes only $ ` " \ there. */
function doubleQuoted(node: Node): Part {
  for (const child of node.namedChildren) if (child && child.type !== "string_content") return { value: null, unquoted: "", quoted: true };
  const inner = node.text.slice(1, -1);
  let value = "";
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i]!;
    if (ch === "\\" && i + 1 < inner.length && '$`"\\'.includes(inner[i + 1]!)) {
      value += inner[++i];
      continue;
    }
    if (ch === "$" || ch === "`") return { value: null, unquoted: "", quoted: true };
    value += ch;
  }
  return { value, unquoted: "", quoted: true };
}

const SIMPLE_ESCAPES: Record<string, string> = { a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?" };

/** bash's `$'…'`: C escapes decoded; a NUL ends the string, as it does for bash. */
export function decodeAnsiC(body: string): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== "\\" || i + 1 >= body.length) {
      out += ch;
      continue;
    }
    const next = body[++i]!;
    const simple = SIMPLE_ESCAPES[next];
    let code: number | null = null;
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    const take = (re: RegExp, max: number, base: number): number | null => {
      const m = re.exec(body.slice(i, i + max));
      if (!m) return null;
      i += m[0].length - 1;
      return parseInt(m[0], base);
    };
    if (/[0-7]/.test(next)) code = take(/^[0-7]{1,3}/, 3, 8);
    else if (next === "x") {
      i++;
      code = take(/^[0-9a-fA-F]{1,2}/, 2, 16);
      if (code === null) {
        i--;
        out += "\\x";
        continue;
      }
    } else if (next === "u" || next === "U") {
      i++;
      code = take(/^[0-9a-fA-F]+/, next === "u" ? 4 : 8, 16);
      if (code === null) {
        i--;
        out += `\\${next}`;
        continue;
      }
    } else if (next === "c" && i + 1 < body.length) {
      code = body.charCodeAt(++i) & 0x1f;
    } else {
      out += `\\${next}`;
      continue;
    }
    if (code === 0) return out;
    out += code !== null && code <= 0x10ffff ? String.fromCodePoint(code) : "";
  }
  return out;
}
