/** `@path` mentions in the input box's text: the one being typed, and all of them on submit. */

/** The `@word` that ends at the cursor (after a space or at the start), or null. */
export function mentionAt(text: string, cursor: number): { start: number; typed: string } | null {
  const before = text.slice(0, cursor);
  const m = /(^|\s)@([^\s@]*)$/.exec(before);
  if (!m) return null;
  // The rest of the word after the cursor belongs to it too: completing replaces the whole word.
  if (/^[^\s]/.test(text.slice(cursor))) return null;
  return { start: cursor - m[2]!.length - 1, typed: m[2]! };
}

/** Every `@path` of a prompt, in order, without repeats ("@" alone and `a@b` are not mentions). */
export function mentionsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\s)@([^\s@]+)/g)) {
    // Trailing punctuation is the sentence's, not the path's: "look at @src/a.ts."
    const p = m[1]!.replace(/[.,;:!?)\]]+$/, "");
    if (p && !out.includes(p)) out.push(p);
  }
  return out;
}

/** The text with the mention at `start` (as mentionAt found it) replaced by `@completed`. */
export function completeMention(text: string, start: number, cursor: number, completed: string): { text: string; cursor: number } {
  // A finished file name gets a space after it; a folder waits for more.
  const insert = `@${completed}${completed.endsWith("/") ? "" : " "}`;
  return { text: text.slice(0, start) + insert + text.slice(cursor), cursor: start + insert.length };
}
