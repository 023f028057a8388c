/** The benches' summaries of repeated timings: one definition, so every table reads the same way. */

/** The middle value (the upper one of an even count), unrounded. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export interface Spread {
  min: number;
  median: number;
  max: number;
  n: number;
}

/** Min, median and max, each rounded to `digits` decimals. */
export function spread(values: readonly number[], digits = 1): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const scale = 10 ** digits;
  const round = (v: number) => Math.round(v * scale) / scale;
  return { min: round(sorted[0]!), median: round(median(sorted)), max: round(sorted.at(-1)!), n: sorted.length };
}
