import { Lexer, type Token, type Tokens } from "marked";
import { highlightLines } from "./highlight.js";
import { paint } from "./theme.js";
import { textWidth as stringWidth, wrapStyled } from "./wrap-styled.js";

/**
 * The assistant's markdown as terminal rows: marked's lexer gives the tokens (GFM: tables,
 * strikethrough), this renders them to ANSI-styled lines no wider than `width`. Raw HTML is shown
 * as text. The source is already free of escape sequences (the reducer sanitises it), so every
 * escape in the output is one of ours.
 */

export interface MarkdownOptions {
  /** Emit OSC 8 hyperlinks (the terminal makes them clickable); else "text (url)". */
  hyperlinks?: boolean;
}

/** Terminals known to draw OSC 8 links; tmux only passes them on when told to, so not inside it. */
export function supportsHyperlinks(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_HYPERLINK !== undefined) return env.FORCE_HYPERLINK !== "0";
  if (env.TMUX || env.STY || env.CI) return false;
  if (env.TERM_PROGRAM && ["iTerm.app", "WezTerm", "vscode", "ghostty"].includes(env.TERM_PROGRAM)) return true;
  if (env.KITTY_WINDOW_ID || env.WT_SESSION || env.TERM === "xterm-kitty" || env.TERM === "foot") return true;
  return Number(env.VTE_VERSION ?? 0) >= 5000;
}

const defaultHyperlinks = supportsHyperlinks();

function link(text: string, url: string, opts: MarkdownOptions): string {
  const shown = paint("link", text, { underline: true });
  if (opts.hyperlinks ?? defaultHyperlinks) return `\u001B]8;;${url}\u0007${shown}\u001B]8;;\u0007`;
  return text === url || text === `<${url}>` ? shown : `${shown} ${paint("muted", `(${url})`)}`;
}

function inline(tokens: readonly Token[] | undefined, opts: MarkdownOptions): string {
  if (!tokens) return "";
  let out = "";
  for (const t of tokens) {
    switch (t.type) {
      case "strong":
        out += paint(null, inline((t as Tokens.Strong).tokens, opts), { bold: true });
        break;
      case "em":
        out += paint(null, inline((t as Tokens.Em).tokens, opts), { italic: true });
        break;
      case "del":
        out += paint(null, inline((t as Tokens.Del).tokens, opts), { strikethrough: true });
        break;
      case "codespan":
        out += paint("code", (t as Tokens.Codespan).text);
        break;
      case "link": {
        const l = t as Tokens.Link;
        out += link(inline(l.tokens, opts) || l.href, l.href, opts);
        break;
      }
      case "image": {
        const img = t as Tokens.Image;
        out += `${paint("muted", "[image: ")}${img.text}${paint("muted", "]")} ${paint("muted", `(${img.href})`)}`;
        break;
      }
      case "br":
        out += "\n";
        break;
      case "text": {
        const text = t as Tokens.Text;
        out += text.tokens ? inline(text.tokens, opts) : unescape(text.text);
        break;
      }
      case "escape":
        out += (t as Tokens.Escape).text;
        break;
      default:
        out += "raw" in t ? unescape(String(t.raw)) : "";
    }
  }
  return out;
}

/** marked escapes &, <, >, " and ' in text tokens for HTML; a terminal wants them back. */
function unescape(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!);
}

function wrap(text: string, width: number): string[] {
  return wrapStyled(text, Math.max(1, width));
}

/** Prefixes the first line with `first` and the rest with spaces of its width. */
function hang(lines: string[], first: string, rest = " ".repeat(stringWidth(first))): string[] {
  return lines.map((l, i) => (i === 0 ? first : rest) + l);
}

function list(token: Tokens.List, width: number, depth: number, opts: MarkdownOptions): string[] {
  const out: string[] = [];
  const start = typeof token.start === "number" ? token.start : 1;
  const numberWidth = String(start + token.items.length - 1).length;
  token.items.forEach((item, i) => {
    const bullet = token.ordered ? `${String(start + i).padStart(numberWidth)}. ` : depth % 2 === 0 ? "• " : "◦ ";
    const marker = item.task ? `${bullet}${item.checked ? "☑" : "☐"} ` : bullet;
    const inner = Math.max(1, width - stringWidth(marker));
    const body = blocks(item.tokens, inner, depth + 1, opts, true);
    out.push(...hang(body.length ? body : [""], paint("muted", marker), " ".repeat(stringWidth(marker))));
  });
  return out;
}

function table(token: Tokens.Table, width: number, opts: MarkdownOptions): string[] {
  const head = token.header.map((c) => paint(null, inline(c.tokens, opts), { bold: true }));
  const rows = token.rows.map((r) => r.map((c) => inline(c.tokens, opts)));
  const widths = head.map((h, i) => Math.max(stringWidth(h), ...rows.map((r) => stringWidth(r[i] ?? ""))));
  const total = widths.reduce((a, b) => a + b, 0) + 3 * widths.length + 1;
  if (total > width || [...head, ...rows.flat()].some((c) => c.includes("\n"))) {
    // Too wide for the pane: each row as "header: value" lines, nothing cut.
    const out: string[] = [];
    rows.forEach((r, n) => {
      if (n > 0) out.push(paint("muted", "─".repeat(Math.min(width, 20))));
      r.forEach((cell, i) => out.push(...wrap(`${head[i] ?? ""}: ${cell}`, width)));
    });
    return out;
  }
  const pad = (cell: string, i: number): string => {
    const space = widths[i]! - stringWidth(cell);
    const align = token.align[i];
    if (align === "right") return " ".repeat(space) + cell;
    if (align === "center") return " ".repeat(Math.floor(space / 2)) + cell + " ".repeat(Math.ceil(space / 2));
    return cell + " ".repeat(space);
  };
  const bar = paint("muted", "│");
  const line = (cells: string[]): string => `${bar} ${cells.map(pad).join(` ${bar} `)} ${bar}`;
  const rule = (l: string, m: string, r: string): string => paint("muted", l + widths.map((w) => "─".repeat(w + 2)).join(m) + r);
  return [rule("┌", "┬", "┐"), line(head), rule("├", "┼", "┤"), ...rows.map(line), rule("└", "┴", "┘")];
}

function code(token: Tokens.Code, width: number): string[] {
  const gutter = paint("muted", "│ ");
  const inner = Math.max(1, width - 2);
  const out: string[] = [];
  if (token.lang) out.push(paint("muted", `╭ ${token.lang}`));
  for (const line of highlightLines(token.text.replace(/\t/g, "  "), token.lang)) {
    const rows = stringWidth(line) > inner ? wrapStyled(line, inner, false) : [line];
    for (const row of rows) out.push(gutter + row);
  }
  return out;
}

function blocks(tokens: readonly Token[], width: number, depth: number, opts: MarkdownOptions, tight = false): string[] {
  const out: string[] = [];
  const gap = (): void => {
    if (!tight && out.length && out[out.length - 1] !== "") out.push("");
  };
  for (const t of tokens) {
    switch (t.type) {
      case "space":
        break;
      case "heading": {
        const h = t as Tokens.Heading;
        gap();
        const text = inline(h.tokens, opts);
        out.push(...wrap(paint("heading", text, { bold: true, underline: h.depth === 1 }), width));
        break;
      }
      case "paragraph":
        gap();
        out.push(...wrap(inline((t as Tokens.Paragraph).tokens, opts), width));
        break;
      case "text": {
        // A tight list item's text (no paragraph around it).
        const text = t as Tokens.Text;
        out.push(...wrap(text.tokens ? inline(text.tokens, opts) : unescape(text.text), width));
        break;
      }
      case "code":
        gap();
        out.push(...code(t as Tokens.Code, width));
        break;
      case "list":
        gap();
        out.push(...list(t as Tokens.List, width, depth, opts));
        break;
      case "blockquote": {
        gap();
        const inner = blocks((t as Tokens.Blockquote).tokens, Math.max(1, width - 2), depth, opts);
        out.push(...inner.map((l) => paint("muted", "▌ ") + paint(null, l, { italic: true })));
        break;
      }
      case "table":
        gap();
        out.push(...table(t as Tokens.Table, width, opts));
        break;
      case "hr":
        gap();
        out.push(paint("muted", "─".repeat(Math.max(1, Math.min(width, 60)))));
        break;
      case "html":
      case "def":
      default:
        if ("raw" in t && String(t.raw).trim()) {
          gap();
          out.push(...String(t.raw).trimEnd().split("\n").flatMap((l) => wrap(l, width)));
        }
    }
  }
  return out;
}

/** One block of markdown as rows of at most `width` columns. */
export function renderMarkdown(source: string, width: number, opts: MarkdownOptions = {}): string[] {
  let tokens: Token[];
  try {
    // A single newline stays a line break: agents write lists and logs one item a line.
    tokens = Lexer.lex(source, { gfm: true, breaks: true });
  } catch {
    return source.split("\n").flatMap((l) => wrap(l, width));
  }
  const lines = blocks(tokens, Math.max(1, width), 0, opts);
  return lines.length ? lines : [""];
}

/**
 * The first block a session draws costs ~20 ms more than the next (marked's lexer and our
 * renderer run cold, a code block's grammar compiles on first use): a frame stalls just as the
 * first answer streams in. Rendering a small sample of the common forms once, while the dashboard
 * waits for input, takes that off the first answer.
 */
export function warmMarkdown(): void {
  renderMarkdown("# Plan\n\nA **bold** word, *emphasis*, `code` and a [link](https://example.com).\n\n- one\n- two\n\n```ts\nconst x: number = 1;\n```\n\n```bash\nnpm test\n```", 60);
}
