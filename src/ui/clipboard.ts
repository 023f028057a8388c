/**
 * `/copy`: the clipboard through OSC 52, the escape a terminal (and tmux, ssh, mosh) carries to the
 * machine the person sits at. Inside tmux the sequence goes through tmux's passthrough so it reaches
 * the outer terminal even where tmux's own `set-clipboard` is off.
 */
import { terminalSafe } from "../util/terminal-text.js";

/** The code blocks of a Markdown answer, fences removed, in order. */
export function codeBlocks(markdown: string): string[] {
  const out: string[] = [];
  for (const m of markdown.matchAll(/^ {0,3}(`{3,}|~{3,})[^\n]*\n([\s\S]*?)\n? {0,3}\1[ \t]*$/gm)) out.push(m[2]!);
  return out;
}

/**
 * What `/copy ARG` copies of an answer: all of it, or its Nth code block (1-based); else why not.
 * The answer is a model's, so it is made terminal-safe first: it will be pasted into a terminal,
 * where `ESC[201~` ends a shell's bracketed paste (the rest then runs as if typed) and any other
 * escape acts. Newlines and tabs stay (they are the text); CR becomes LF as on screen.
 */
export function copySelection(answer: string, arg: string): { text: string; what: string } | { error: string } {
  if (!answer.trim()) return { error: "nothing to copy yet: no answer in this session" };
  if (!arg) return safe(answer, "the last answer");
  const n = Number(arg);
  if (!Number.isInteger(n) || n < 1) return { error: `"${arg}" is not a block number: /copy N copies the Nth code block of the last answer` };
  const blocks = codeBlocks(answer);
  if (!blocks.length) return { error: "the last answer has no code block: /copy copies all of it" };
  if (n > blocks.length) return { error: `the last answer has ${blocks.length} code block${blocks.length === 1 ? "" : "s"}` };
  return safe(blocks[n - 1]!, `code block ${n} of ${blocks.length}`);
}

function safe(text: string, what: string): { text: string; what: string } {
  const clean = terminalSafe(text, { keepTabs: true });
  return { text: clean, what: clean === text ? what : `${what} without its escape sequences and control characters` };
}

/** Terminals commonly cap an OSC 52 payload (xterm: 100,000 bytes of base64 by default). */
export const OSC52_MAX_BASE64 = 100_000;

/** The escape that sets the clipboard to `text`, wrapped for tmux's passthrough when `tmux`. */
export function osc52(text: string, tmux: boolean): string {
  const seq = `\x1b]52;c;${Buffer.from(text, "utf8").toString("base64")}\x07`;
  // tmux passes a DCS "tmux;" payload through with every ESC doubled.
  return tmux ? `\x1bPtmux;${seq.replace(/\x1b/g, "\x1b\x1b")}\x1b\\` : seq;
}

/** What to tell the person: the copy is a request the terminal may ignore, and some do. */
export function copyNotice(what: string, text: string, env: NodeJS.ProcessEnv): string {
  const chars = text.length;
  const base64 = Math.ceil(Buffer.byteLength(text, "utf8") / 3) * 4;
  const caveats: string[] = [];
  if (base64 > OSC52_MAX_BASE64) caveats.push("it is large: some terminals drop a clipboard write this big");
  if (env.TMUX) caveats.push("inside tmux it needs `set -g allow-passthrough on` (or set-clipboard on)");
  const term = `${env.TERM_PROGRAM ?? ""} ${env.TERM ?? ""}`;
  if (/Apple_Terminal|gnome|vte|konsole/i.test(term) || env.VTE_VERSION) caveats.push("this terminal may not support OSC 52 clipboard writes");
  return `copied ${what} (${chars.toLocaleString("en-US")} chars) through OSC 52${caveats.length ? ` — ${caveats.join("; ")}` : ""}`;
}
