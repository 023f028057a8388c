/** Text on one line: every run of white space (newlines included) becomes one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The first line of a thrown value's message: errors reach the model and the UI as one line. */
export function errorLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
}

/** At most `max` characters, the last one an ellipsis when cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `index` clamped to the text, and moved off the middle of a surrogate pair so no character is split. */
export function codePointBoundary(text: string, index: number): number {
  if (index <= 0) return 0;
  if (index >= text.length) return text.length;
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index + 1 : index;
}
