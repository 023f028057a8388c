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

/**
 * orca against its floor, from samples taken in turns (orca's i-th beside the floor's i-th, so a
 * busier minute weighs on both): the spread of the paired ratios orca ÷ floor and of the paired
 * excesses orca − floor, and each side's own spread. Ratios of medians would let the two sides'
 * samples come from different moments of the run.
 */
export interface VsFloor {
  orca: Spread;
  floor: Spread;
  ratio: Spread;
  excess: Spread;
}

export function vsFloor(orca: readonly number[], floor: readonly number[], digits = 1): VsFloor {
  const n = Math.min(orca.length, floor.length);
  const pairs = Array.from({ length: n }, (_, i) => [orca[i]!, floor[i]!] as const);
  return {
    orca: spread(orca, digits),
    floor: spread(floor, digits),
    ratio: spread(pairs.map(([o, f]) => o / f), 2),
    excess: spread(pairs.map(([o, f]) => o - f), digits),
  };
}

/** "min / median / max". */
export function mmm(s: Spread): string {
  return `${s.min} / ${s.median} / ${s.max}`;
}
