import type { TokenCounter } from "../util/token-counter.js";
import { bpe, type BpeName, type LinearBpe } from "./encoders.js";
import { codePointBoundary } from "../util/text.js";

/**
 * The TokenCounter tools measure their output with. Tools run for agents of any model, so their
 * budget is in o200k tokens (the current OpenAI tokenizer): near enough for other tokenizers,
 * which only need output that fits comfortably, not an exact fit.
 */
export function bpeTokenCounter(name: BpeName = "o200k_base"): TokenCounter {
  return {
    count: (text) => (text.length === 0 ? 0 : bpe(name).count(text)),
    head: (text, max) => prefixWithin(bpe(name), text, Math.floor(max)),
    tail: (text, max) => suffixWithin(bpe(name), text, Math.floor(max)),
  };
}

// A token rarely spans more than a few dozen characters; looking further is wasted work, and the
// window is what keeps a cut of a megabyte as cheap as a cut of a page.
const MAX_CHARS_PER_TOKEN = 32;

function prefixWithin(t: LinearBpe, text: string, max: number): string {
  if (max <= 0 || text === "") return "";
  const window = text.slice(0, codePointBoundary(text, max * MAX_CHARS_PER_TOKEN));
  const tokens = t.encodeHead(window, max);
  if (tokens.length <= max) return window;
  // Re-encoding a prefix can take a token or two more than it took inside the longer text (its
  // last word is cut): give tokens back until it fits. Usually the first try does.
  for (let keep = max; keep > 0; keep--) {
    const decoded = t.decode(tokens.slice(0, keep));
    // A cut inside a multi-byte character decodes to U+FFFD: keep only what matches the text.
    const prefix = decoded.slice(0, commonPrefixLength(text, decoded));
    if (t.countExact(prefix) <= max) return prefix;
  }
  return "";
}

function suffixWithin(t: LinearBpe, text: string, max: number): string {
  if (max <= 0 || text === "") return "";
  const window = text.slice(codePointBoundary(text, text.length - max * MAX_CHARS_PER_TOKEN));
  const tokens = t.encodeTail(window, max);
  if (tokens.length <= max) return window;
  for (let keep = max; keep > 0; keep--) {
    const decoded = t.decode(tokens.slice(tokens.length - keep));
    const suffix = decoded.slice(decoded.length - commonSuffixLength(text, decoded));
    if (t.countExact(suffix) <= max) return suffix;
  }
  return "";
}

function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  // Never end between the halves of a surrogate pair.
  if (i > 0 && isHighSurrogate(a.charCodeAt(i - 1))) i--;
  return i;
}

function commonSuffixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  if (i > 0 && isLowSurrogate(a.charCodeAt(a.length - i))) i--;
  return i;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
