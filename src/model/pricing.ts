import { baseModelName } from "./tokens.js";

/**
 * USD per one million tokens. `cached` is the price of prompt tokens read from the cache,
 * `cacheWrite` of those written to it (Anthropic charges 1.25× input for a 5-minute entry).
 * Either one unset costs what an input token costs.
 */
export interface Price {
  input: number;
  output: number;
  cached?: number;
  cacheWrite?: number;
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

/** Claude list prices with their 5-minute cache-write and cache-read rates (platform.claude.com/docs/en/about-claude/pricing). */
const claude = (input: number, output: number, cacheWrite: number, cached: number): Price => ({ input, output, cacheWrite, cached });
const CLAUDE_PRICES: Record<string, Price> = {
  "claude-fable-5-1": claude(10, 50, 12.5, 0.25),
  "claude-mythos-5-1": claude(10, 50, 12.5, 0.25),
  "claude-fable-5": claude(10, 50, 12.5, 1),
  "claude-mythos-5": claude(10, 50, 12.5, 1),
  "claude-opus-5": claude(5, 25, 6.25, 0.5),
  "claude-opus-4-8": claude(5, 25, 6.25, 0.5),
  "claude-opus-4-7": claude(5, 25, 6.25, 0.5),
  "claude-opus-4-6": claude(5, 25, 6.25, 0.5),
  "claude-opus-4-5": claude(5, 25, 6.25, 0.5),
  "claude-opus-4-1": claude(15, 75, 18.75, 1.5),
  "claude-opus-4": claude(15, 75, 18.75, 1.5),
  "claude-sonnet-5-5": claude(2, 10, 2.5, 0.2),
  "claude-sonnet-5": claude(2, 10, 2.5, 0.2),
  "claude-sonnet-4-6": claude(3, 15, 3.75, 0.3),
  "claude-sonnet-4-5": claude(3, 15, 3.75, 0.3),
  "claude-sonnet-4": claude(3, 15, 3.75, 0.3),
  "claude-3-7-sonnet": claude(3, 15, 3.75, 0.3),
  "claude-3-5-sonnet": claude(3, 15, 3.75, 0.3),
  "claude-haiku-4-5": claude(1, 5, 1.25, 0.1),
  "claude-3-5-haiku": claude(0.8, 4, 1, 0.08),
  "claude-3-opus": claude(15, 75, 18.75, 1.5),
  "claude-3-haiku": claude(0.25, 1.25, 0.3, 0.03),
};

/** Dated snapshots ("gpt-4o-2024-08-06", "claude-haiku-4-5-20251001", "…-latest") cost what their alias costs. */
const SNAPSHOT_SUFFIX = /-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/** The list price of a well-known OpenAI or Claude model, or undefined when orca does not know it. */
export function priceFor(model: string): Price | undefined {
  let name = baseModelName(model).replace(SNAPSHOT_SUFFIX, "");
  // OpenRouter writes Claude versions with dots: anthropic/claude-sonnet-4.5.
  if (name.startsWith("claude-")) name = name.replace(/\./g, "-");
  const price = PRICES[name] ?? CLAUDE_PRICES[name];
  return price ? { ...price } : undefined;
}

/**
 * The price a request of `model` is charged at: the configured one, never below the model's list
 * price where orca knows it. A config file may come from a repository (a trusted folder's
 * `.orca/config.yaml` replaces yours), and a made-up $0 would disarm every money limit; a discount
 * you do get only makes the real bill lower than what a limit counts.
 */
export function chargedPrice(model: string, configured: Price | undefined): Price | undefined {
  const list = priceFor(model);
  if (!configured || !list) return configured ?? list;
  const at = (mine: number | undefined, theirs: number | undefined, base: number, listBase: number) => Math.max(mine ?? base, theirs ?? listBase);
  const price: Price = { input: Math.max(configured.input, list.input), output: Math.max(configured.output, list.output) };
  if (configured.cached !== undefined || list.cached !== undefined) price.cached = at(configured.cached, list.cached, configured.input, list.input);
  if (configured.cacheWrite !== undefined || list.cacheWrite !== undefined) price.cacheWrite = at(configured.cacheWrite, list.cacheWrite, configured.input, list.input);
  return price;
}

/**
 * The cost in USD of one request's usage. `input` counts all prompt tokens, cached and
 * cache-written ones included (orca's providers report it so), so those are billed at their own
 * rates instead of the input rate.
 */
export function costOf(usage: { input: number; output: number; cached: number; cacheWrite?: number }, price?: Price): number | undefined {
  if (!price) return undefined;
  const cached = Math.min(Math.max(usage.cached, 0), usage.input);
  const written = Math.min(Math.max(usage.cacheWrite ?? 0, 0), usage.input - cached);
  const fresh = usage.input - cached - written;
  return (
    (fresh * price.input +
      cached * (price.cached ?? price.input) +
      written * (price.cacheWrite ?? price.input) +
      usage.output * price.output) /
    1_000_000
  );
}

/**
 * The most an input token of a request may be billed, USD per million: the cache-write rate where
 * it is above the input rate (Anthropic writes the fresh part of a prompt to its cache at 1.25×).
 * The budget's check before a request counts on no cache hit, so a read from the cache only makes
 * the real charge lower than what was set aside.
 */
export function worstInputRate(price: Price): number {
  return Math.max(price.input, price.cacheWrite ?? price.input);
}

/**
 * The most output tokens a request to a well-known model may ask for (its documented output
 * limit). A request that carries max_tokens above it is refused by the provider; unknown models
 * get 8 192, Anthropic's default here, unless `max_output_tokens` is configured.
 */
export function outputLimitFor(model: string): number {
  const name = baseModelName(model).replace(SNAPSHOT_SUFFIX, "").replace(/\./g, "-");
  for (const [pattern, limit] of OUTPUT_LIMITS) if (pattern.test(name)) return limit;
  return 8_192;
}

const OUTPUT_LIMITS: Array<[RegExp, number]> = [
  [/^gpt-5/, 128_000],
  [/^gpt-4-1(-|$)/, 32_768],
  [/^(gpt-4o|chatgpt-4o)/, 16_384],
  [/^o1-mini/, 65_536],
  [/^(o1|o3|o4)/, 100_000],
  [/^gpt-4-turbo/, 4_096],
  [/^gpt-4/, 8_192],
  [/^gpt-3-5-turbo/, 4_096],
  [/^claude-(opus-4-1|opus-4)$/, 32_000],
  [/^claude-(3-opus|3-haiku)/, 4_096],
  [/^claude-3-5/, 8_192],
  [/^claude/, 64_000],
];
