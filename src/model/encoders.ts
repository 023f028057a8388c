import { createRequire } from "node:module";

/**
 * The BPE tokenizers, loaded on first use. Loading one costs ~200 ms (its rank table), which
 * would otherwise sit between launching orca and its first frame; the first count happens only
 * when a first request or a long tool output needs it.
 */

export interface Encoder {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
  encode(text: string, options?: { disallowedSpecial?: Set<string> }): number[];
  decode(tokens: number[]): string;
}

const require = createRequire(import.meta.url);
const loaded = new Map<string, Encoder>();

function load(name: "o200k_base" | "cl100k_base"): Encoder {
  let encoder = loaded.get(name);
  if (!encoder) {
    // The package's CommonJS build, so a lazy load can stay synchronous.
    encoder = require(`gpt-tokenizer/encoding/${name}`) as Encoder;
    loaded.set(name, encoder);
  }
  return encoder;
}

export const o200k = (): Encoder => load("o200k_base");
export const cl100k = (): Encoder => load("cl100k_base");
