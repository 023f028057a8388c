import { textWidth as stringWidth } from "./wrap-styled.js";

/** A piece of a status line: dropped whole (never cut) when the line is too narrow. */
export interface Field {
  readonly text: string;
  /** Lower stays longer: fields go highest first. */
  readonly drop: number;
}

/**
 * The fields that fit in `width` columns joined by `separator`, in their own order: when they do
 * not all fit, whole fields are dropped, the highest `drop` first (the last of equals first).
 */
export function fitFields<F extends Field>(fields: readonly F[], width: number, separator = " · "): F[] {
  const sep = stringWidth(separator);
  let kept = [...fields];
  const total = (list: readonly F[]): number => list.reduce((n, f, i) => n + stringWidth(f.text) + (i ? sep : 0), 0);
  while (kept.length > 1 && total(kept) > width) {
    let worst = 0;
    for (let i = 1; i < kept.length; i++) if (kept[i]!.drop >= kept[worst]!.drop) worst = i;
    kept = kept.filter((_, i) => i !== worst);
  }
  return kept;
}
