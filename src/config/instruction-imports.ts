/**
 * Claude Code's `@path` imports in a CLAUDE.md: `@docs/style.md`, `@~/notes.md`, `@README` —
 * an `@` at the start of a line or after white space, outside code spans and fenced code blocks
 * (where `@` is code, as in decorators or `npm i @scope/pkg`). Returns the paths in order.
 */
export function importsOf(markdown: string): string[] {
  const found: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split(/\r?\n/)) {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (opener) {
      if (fence === null) fence = opener;
      else if (opener[0] === fence[0] && opener.length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    // Code spans out: text between matching runs of backticks.
    const prose = line.replace(/(`+)[^`]*?\1/g, " ");
    for (const match of prose.matchAll(/(?:^|\s)@((?:~\/|\.{0,2}\/)?[^\s`@]+)/g)) {
      // Trailing sentence punctuation is not part of a path.
      const target = match[1]!.replace(/[.,;:!?)\]]+$/, "");
      if (target && !/^[a-z][a-z0-9+.-]*:/i.test(target)) found.push(target);
    }
  }
  return found;
}
