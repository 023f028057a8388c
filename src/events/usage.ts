import type { Usage } from "./types.js";

/** Token counts that add up: per step, per agent, per run, per session. */
export function zeroUsage(): Usage {
  return { input: 0, output: 0, cached: 0 };
}

/** Adds `more` into `total` in place (cost is not summed: it is priced once, at the end). */
export function addUsage(total: Usage, more: Pick<Usage, "input" | "output" | "cached">): Usage {
  total.input += more.input;
  total.output += more.output;
  total.cached += more.cached;
  return total;
}
