import { baseModelName } from "./tokens.js";

/** USD per one million tokens. `cached` is the price of prompt tokens served from the cache. */
export interface Price {
  input: number;
  output: number;
  cached?: number;
}

/**
 * Standard-tier list prices of well-known OpenAI chat models (openai.com/api/pricing). Kept here
 * rather than taken from gpt-tokenizer's model data because that data prices e.g. gpt-4o and gpt-5
 * at $10/$30, which is wrong. A model not listed has no price: set `model.price` in the config.
 */
const PRICES: Record<string, Price> = {
  "gpt-5": { input: 1.25, output: 10, cached: 0.125 },
  "gpt-5-mini": { input: 0.25, output: 2, cached: 0.025 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cached: 0.005 },
  "gpt-5.1": { input: 1.25, output: 10, cached: 0.125 },
  "gpt-4.1": { input: 2, output: 8, cached: 0.5 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cached: 0.1 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4, cached: 0.025 },
  "gpt-4o": { input: 2.5, output: 10, cached: 1.25 },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cached: 0.075 },
  o1: { input: 15, output: 60, cached: 7.5 },
  "o1-mini": { input: 1.1, output: 4.4, cached: 0.55 },
  o3: { input: 2, output: 8, cached: 0.5 },
  "o3-mini": { input: 1.1, output: 4.4, cached: 0.55 },
  "o4-mini": { input: 1.1, output: 4.4, cached: 0.275 },
  "gpt-4-turbo": { input: 10, output: 30 },
  "gpt-4": { input: 30, output: 60 },
  "gpt-3.5-turbo": { input: 0.5, output: 1.5 },
};

/** Dated snapshots ("gpt-4o-2024-08-06") cost what their alias costs. */
const SNAPSHOT_SUFFIX = /-\d{4}-\d{2}-\d{2}$/;

/** The list price of a well-known OpenAI model, or undefined when orca does not know it. */
export function priceFor(model: string): Price | undefined {
  const name = baseModelName(model).replace(SNAPSHOT_SUFFIX, "");
  const price = PRICES[name];
  return price ? { ...price } : undefined;
}

/**
 * The cost in USD of one request's usage. `input` counts all prompt tokens, cached ones included
 * (as the OpenAI API reports them), so cached tokens are billed at the cached rate instead.
 */
export function costOf(usage: { input: number; output: number; cached: number }, price?: Price): number | undefined {
  if (!price) return undefined;
  const cached = Math.min(Math.max(usage.cached, 0), usage.input);
  const fresh = usage.input - cached;
  return (fresh * price.input + cached * (price.cached ?? price.input) + usage.output * price.output) / 1_000_000;
}
