import { createRequire } from "node:module";
import { codePointBoundary } from "../util/text.js";

/**
 * The BPE tokenizers, loaded on first use, wrapped so that no input costs more than linear time.
 * Loading one costs ~200 ms (its rank table), which would otherwise sit between launching orca
 * and its first frame; the first count happens only when a first request or a long tool output
 * needs it.
 *
 * Why a wrapper: gpt-tokenizer's merge loop is quadratic in the length of one pre-token (the
 * pieces its split regex cuts text into: a word, a run of spaces or of punctuation). Normal text
 * has short pre-tokens, but a one-line DNA sequence or a long run of one character class is one
 * pre-token of any length: 100 K such characters took ~4.5 s, a megabyte minutes. So a pre-token
 * longer than MAX_PIECE characters is cut into MAX_PIECE slices before BPE. A slice boundary can
 * cost a token where a real merge would have spanned it (under 1 % on such text); on text without
 * long pre-tokens the counts are exactly the library's.
 */

/** gpt-tokenizer's own API, as far as orca uses it. */
interface Encoder {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
  encode(text: string, options?: { disallowedSpecial?: Set<string> }): number[];
  decode(tokens: number[]): string;
  clearMergeCache(): void;
}

export type BpeName = "o200k_base" | "cl100k_base";

/** The longest pre-token given to the BPE merge in one piece (its cost grows with the square). */
const MAX_PIECE = 256;
/** Ordinary text is handed to the library in stretches of about this many characters. */
const STRETCH = 2_048;
/** Up to this many characters a count is exact; beyond it, a sample of this many is counted. */
const EXACT_CHARS = 65_536;
/** 32 windows of 2 K characters: within 2 % of the exact count on this repository's mixed files. */
const SAMPLES = 32;

// Text such as "<|endoftext|>" in a file or tool output is text, never a special token (and the
// library would otherwise throw on it).
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * gpt-tokenizer caches the merges of up to 100 000 pre-tokens, evicting the oldest one by one
 * once full; on text it has not seen (base64, hashes, DNA) that eviction grows slower with every
 * entry (a 48 KB count went from 0.1 s to over 1 s within 25 counts). Cleared after this many
 * characters went through BPE, the cache never reaches its limit (a pre-token is at least a
 * character), and still serves the repeats of the text at hand.
 */
const CLEAR_CACHE_AFTER_CHARS = 90_000;

/** An unassigned code point, so no tokenizer merges its three bytes into one token. */
const MARKER = "\u0fff";

export class LinearBpe {
  private readonly marker: number[];
  private sinceClear = 0;

  constructor(
    private readonly encoder: Encoder,
    private readonly split: RegExp,
  ) {
    this.marker = encoder.encode(MARKER, AS_TEXT);
    if (this.marker.length < 2) throw new Error("gpt-tokenizer: the decode marker is a single token");
  }

  /**
   * Tokens in `text`. Exact (up to long pre-tokens, see above) for text of up to EXACT_CHARS;
   * longer text is estimated from SAMPLES windows spread evenly over it, whose tokens are counted
   * and scaled to the whole length. The tokenizer's own speed is ~1 µs a character on text it
   * has not seen (base64, hashes, DNA), so an exact count of megabytes would hold the event loop
   * for seconds, while a message this long is only ever compared against a budget. Within 2 % of
   * the exact count on this repository's files and on package READMEs; the API's reported usage
   * remains the authority.
   */
  count(text: string): number {
    if (text.length <= EXACT_CHARS) return this.countExact(text);
    const window = Math.floor(EXACT_CHARS / SAMPLES);
    const stride = text.length / SAMPLES;
    let tokens = 0;
    let chars = 0;
    for (let i = 0; i < SAMPLES; i++) {
      // Each window sits in the middle of its stretch, so a file's start and end weigh no more.
      const start = codePointBoundary(text, Math.floor(i * stride + (stride - window) / 2));
      const sample = text.slice(start, codePointBoundary(text, start + window));
      tokens += this.countExact(sample);
      chars += sample.length;
    }
    return Math.round((tokens * text.length) / chars);
  }

  /** Exact count (long pre-tokens sliced); linear in the length of `text`. */
  countExact(text: string): number {
    let n = 0;
    for (const piece of this.pieces(text)) n += this.bpe(piece).length;
    return n;
  }

  /** Tokens of `text`, long pre-tokens sliced; `decode(encode(t)) === t` for valid UTF-16. */
  encode(text: string): number[] {
    const out: number[] = [];
    for (const piece of this.pieces(text)) for (const token of this.bpe(piece)) out.push(token);
    return out;
  }

  /**
   * The first tokens of `encode(text)`: more than `max` of them, or all there are. Stops encoding
   * once it has enough, so cutting the start of a long text costs what the cut keeps.
   */
  encodeHead(text: string, max: number): number[] {
    const out: number[] = [];
    for (const piece of this.pieces(text)) {
      for (const token of this.bpe(piece)) out.push(token);
      if (out.length > max) break;
    }
    return out;
  }

  /** The last tokens of `encode(text)`: more than `max` of them, or all there are. */
  encodeTail(text: string, max: number): number[] {
    const pieces = this.pieces(text);
    const parts: number[][] = [];
    let n = 0;
    for (let i = pieces.length - 1; i >= 0 && n <= max; i--) {
      const tokens = this.bpe(pieces[i]!);
      parts.push(tokens);
      n += tokens.length;
    }
    return parts.reverse().flat();
  }

  /**
   * The text of `tokens`; a cut inside a character shows as U+FFFD at the end.
   *
   * gpt-tokenizer decodes through one shared streaming TextDecoder: tokens that end inside a
   * character leave its first bytes in it, to be prepended to whatever is decoded next. So the
   * tokens go between two copies of a marker character the tokenizer spells byte by byte: its
   * lead byte ends any sequence left pending before or after, and the decoder is left clean.
   */
  decode(tokens: number[]): string {
    const text = this.encoder.decode([...this.marker, ...tokens, ...this.marker]);
    return text.slice(text.indexOf(MARKER) + MARKER.length, text.lastIndexOf(MARKER));
  }

  private bpe(piece: string): number[] {
    this.sinceClear += piece.length;
    if (this.sinceClear > CLEAR_CACHE_AFTER_CHARS) {
      this.encoder.clearMergeCache();
      this.sinceClear = piece.length;
    }
    return this.encoder.encode(piece, AS_TEXT);
  }

  /**
   * `text` cut into pieces the library encodes in linear time, each as it would be encoded in
   * place: stretches of ordinary pre-tokens, cut at a pre-token boundary every STRETCH characters
   * or so (so a cut can stop early), and each long pre-token as MAX_PIECE slices.
   */
  private pieces(text: string): string[] {
    const out: string[] = [];
    let from = 0;
    for (const match of text.matchAll(this.split)) {
      const start = match.index;
      const pre = match[0];
      if (pre.length <= MAX_PIECE) {
        if (start - from >= STRETCH) {
          out.push(text.slice(from, start));
          from = start;
        }
        continue;
      }
      if (start > from) out.push(text.slice(from, start));
      for (let i = 0; i < pre.length; ) {
        const end = codePointBoundary(pre, i + MAX_PIECE);
        out.push(pre.slice(i, end));
        i = end;
      }
      from = start + pre.length;
    }
    if (from < text.length) out.push(from === 0 ? text : text.slice(from));
    return out;
  }
}

const require = createRequire(import.meta.url);
const loaded = new Map<BpeName, LinearBpe>();

/** Whether `name` is loaded already: counting with it then costs no start-up time. */
export function bpeLoaded(name: BpeName): boolean {
  return loaded.has(name);
}

export function bpe(name: BpeName): LinearBpe {
  let tokenizer = loaded.get(name);
  if (!tokenizer) {
    // The package's CommonJS build, so a lazy load can stay synchronous.
    const encoder = require(`gpt-tokenizer/encoding/${name}`) as Encoder;
    // The split regex is the library's own (tiktoken's pattern), so the pre-tokens orca measures
    // are the ones the library then encodes.
    const constants = require("gpt-tokenizer/encodingParams/constants") as Record<string, RegExp>;
    const split = name === "o200k_base" ? constants.O200K_TOKEN_SPLIT_REGEX : constants.CL100K_TOKEN_SPLIT_REGEX;
    if (!(split instanceof RegExp)) throw new Error(`gpt-tokenizer: no split pattern for ${name}`);
    tokenizer = new LinearBpe(encoder, split);
    loaded.set(name, tokenizer);
  }
  return tokenizer;
}

export const o200k = (): LinearBpe => bpe("o200k_base");
export const cl100k = (): LinearBpe => bpe("cl100k_base");
