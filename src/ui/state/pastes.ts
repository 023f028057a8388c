/**
 * Long pastes in the input box: the box shows `[pasted 6,000 chars]` where the text was pasted and
 * keeps the text here; what is sent is the whole text (expandPastes), and Ctrl+O in the box puts
 * it back in place to edit.
 */

/** A paste longer than this many lines, or chars, is shown as a token. */
export const PASTE_MAX_LINES = 3;
export const PASTE_MAX_CHARS = 500;

export interface Paste {
  readonly token: string;
  readonly text: string;
}

export function isLongPaste(text: string): boolean {
  return text.length > PASTE_MAX_CHARS || text.split("\n").length > PASTE_MAX_LINES;
}

/** The token for the `n`th paste (1-based) of a prompt: numbered from the second on, so each is unique. */
export function pasteToken(text: string, n: number): string {
  const lines = text.split("\n").length;
  const size = `${text.length.toLocaleString("en-US")} chars${lines > 1 ? `, ${lines} lines` : ""}`;
  return n > 1 ? `[pasted #${n} ${size}]` : `[pasted ${size}]`;
}

/** The prompt with every token still in it replaced by its text. */
export function expandPastes(text: string, pastes: readonly Paste[]): string {
  let out = text;
  for (const p of pastes) out = out.split(p.token).join(p.text);
  return out;
}

/** The paste whose token ends exactly at `cursor` (Backspace there removes the whole token). */
export function pasteEndingAt(text: string, cursor: number, pastes: readonly Paste[]): Paste | undefined {
  return pastes.find((p) => cursor >= p.token.length && text.slice(cursor - p.token.length, cursor) === p.token);
}
