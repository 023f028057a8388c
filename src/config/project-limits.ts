import type { Config } from "./schema.js";

/**
 * A trusted folder's `.orca/config.yaml` replaces your own config, and a repository is written by
 * someone else: it may tighten what you spend, never loosen it. So, against `yours` (the config
 * orca would read without the project's: your ~/.config/orca/config.yaml, else the package's, with
 * --max-cost), in place: each `budget.*` limit is the lower of the two (one the project leaves
 * unset is yours), and `agents.confirm_fanout` and `agents.confirm_cost_usd` likewise — the fan-out
 * guard can be made stricter, not switched off. (A price below a known model's list price is
 * refused for every config, where models are priced: model/pricing.ts.)
 */
export function holdYourLimits(project: Config, yours: Config): void {
  for (const key of ["max_cost_usd", "max_tokens", "max_tool_calls", "max_duration"] as const) project.budget[key] = lower(project.budget[key], yours.budget[key]);
  project.agents.confirm_cost_usd = lower(project.agents.confirm_cost_usd, yours.agents.confirm_cost_usd);
  const fanout = yours.agents.confirm_fanout;
  if (fanout !== false) project.agents.confirm_fanout = project.agents.confirm_fanout === false ? fanout : Math.min(project.agents.confirm_fanout, fanout);
}

function lower(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}
