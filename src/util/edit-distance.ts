/**
 * Edit distance with adjacent transpositions (optimal string alignment): "mpc" is one edit from
 * "mcp", as a typist would count it, where plain Levenshtein says two.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  // Three rolling rows: the one before last is needed for a transposition.
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      current[j] = best;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}

/** The candidate nearest to `word` within `maxDistance` (ties: the first listed), or undefined. */
export function closest(word: string, candidates: readonly string[], maxDistance: (candidate: string) => number): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(word, candidate);
    if (d <= maxDistance(candidate) && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
