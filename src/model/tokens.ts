import { bpe, bpeLoaded } from "./encoders.js";
import type { ChatMessage, ToolSpec } from "./model.js";
import { messageParts, partsStillOf } from "./message-parts.js";

/**
 * Token counting. OpenAI models get their real tokenizer (gpt-tokenizer); any other model gets
 * an estimate, because orca cannot know the tokenizer behind an arbitrary base_url. The API's
 * reported usage remains the authority after each request; these counts decide when to compact.
 */

export type Encoding = "o200k_base" | "cl100k_base" | "estimate";

/**
 * "openai/gpt-4o" (OpenRouter), "GPT-4o" → "gpt-4o". Providers that prefix a vendor path serve the
 * same model, so the last path segment names it.
 */
export function baseModelName(model: string): string {
  const lower = model.trim().toLowerCase();
  return lower.slice(lower.lastIndexOf("/") + 1);
}

const O200K = /^(gpt-5|gpt-4\.1|gpt-4\.5|gpt-4o|chatgpt-4o|o1|o3|o4|codex-|gpt-oss)/;
const CL100K = /^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada-002)/;

/** Which tokenizer orca uses for a model name. */
export function encodingFor(model: string): Encoding {
  const name = baseModelName(model);
  if (O200K.test(name)) return "o200k_base";
  if (CL100K.test(name)) return "cl100k_base";
  return "estimate";
}

/**
 * Tokens in `text` for `model`, in time linear in its length whatever the text holds (see
 * encoders.ts: beyond 64 K characters the count is a close estimate). For non-OpenAI models this
 * is an estimate: ASCII at 3.5 characters a token (English and code run 3.5–4.5 on the Llama 3, Qwen and DeepSeek tokenizers,
 * so the low end errs toward compacting a little early rather than overflowing), and every other
 * code point at one token (CJK text runs about one token a character; a plain chars/N rule
 * would undercount it three- to fourfold).
 */
export function countTokens(text: string, model: string): number {
  if (text.length === 0) return 0;
  const encoding = encodingFor(model);
  switch (encoding) {
    case "o200k_base":
    case "cl100k_base":
      return bpe(encoding).count(text);
    case "estimate":
      return estimateTokens(text);
  }
}

export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 128) ascii++;
    // A surrogate pair is one character: count its first half only.
    else if (code < 0xdc00 || code > 0xdfff) other++;
  }
  return Math.ceil(ascii / 3.5) + other;
}

/**
 * Chat framing, per OpenAI's token-counting guide: every message costs 3 tokens plus its role,
 * and the reply is primed with 3 more. Tools are counted as their JSON, which overcounts a little
 * (OpenAI renders them more compactly) — the safe side for deciding when to compact.
 */
const PER_MESSAGE = 4;
const REPLY_PRIMING = 3;
const PER_TOOL_CALL = 3;

// A message's count is reused across the steps of a run: histories grow by appending. `parts` are
// the strings the count was taken from, compared by identity (cheap) rather than re-joined each step.
interface Counted {
  encoding: Encoding;
  parts: readonly unknown[];
  tokens: number;
  /** False: an upper bound taken before the tokenizer was loaded. */
  exact: boolean;
}
const cache = new WeakMap<ChatMessage, Counted>();
// The tools offered are the same on most steps, though their list is built anew each time: the
// count is kept for the last few lists seen, compared spec by spec (a spec is one object for the
// life of its tool), so a step neither joins the tools' JSON nor hashes it to find its count.
interface ToolsCounted {
  specs: readonly ToolSpec[];
  encoding: Encoding;
  exact: boolean;
  tokens: number;
}
const toolCounts: ToolsCounted[] = [];
const TOOL_LISTS_KEPT = 8;

/** The exact count of a request's input (loads the model's tokenizer if it needs one). */
export function estimateRequestTokens(messages: ChatMessage[], tools: ToolSpec[], model: string): number {
  return requestTokens(messages, tools, model, true).tokens;
}

/**
 * The count of a request's input without counting anything new: the exact counts already made,
 * and for a message not counted yet an upper bound — every BPE token covers at least one UTF-8
 * byte. Exact counts cost ~1 µs a character (and the first one loads the tokenizer, ~200 ms), so
 * they are made while orca waits on the model (countPendingTokens), not between a response and
 * the next request; a decision the bound already settles (under the compaction threshold, within
 * the token budget) comes out the same, and one it does not settle counts exactly.
 */
export function quickRequestTokens(messages: ChatMessage[], tools: ToolSpec[], model: string): { tokens: number; exact: boolean } {
  const encoding = encodingFor(model);
  return requestTokens(messages, tools, model, encoding === "estimate");
}

/**
 * Below this share of the context window, no decision this run is near needs an exact count
 * (compaction starts at `compact_at` of it, 0.8 by default; the window check at all of it).
 */
const EXACT_COUNTS_FROM = 0.25;

/**
 * Whether a request whose input is at most `bound` tokens is near enough a limit for the tokenizer
 * to be worth loading ahead. Loading it costs 0.2–0.4 s of the main thread's CPU: loaded while the
 * model answers, it holds off every answer that arrives meanwhile (every sub-agent's, in a fan-out),
 * so a short run leaves it unloaded. A decision the bound does not settle still loads it then.
 */
export function tokenizerWorthLoading(bound: number, contextWindow: number | undefined): boolean {
  return contextWindow === undefined || bound >= contextWindow * EXACT_COUNTS_FROM;
}

/** Loads the model's tokenizer if it has one: orca calls this while it waits for the model. */
export function warmTokenizer(model: string): void {
  const encoding = encodingFor(model);
  if (encoding !== "estimate") bpe(encoding);
}

/** The request's count from exact counts (made now if `exact`) and bounds; `exact` says whether every part was exact. */
function requestTokens(messages: ChatMessage[], tools: ToolSpec[], model: string, exact: boolean): { tokens: number; exact: boolean } {
  const encoding = encodingFor(model);
  let tokens = REPLY_PRIMING;
  let allExact = true;
  for (const message of messages) {
    const counted = messageTokens(message, encoding, model, exact);
    tokens += counted.tokens;
    allExact &&= counted.exact;
  }
  if (tools.length > 0) {
    const counted = toolTokens(tools, encoding, model, exact);
    tokens += counted.tokens;
    allExact &&= counted.exact;
  }
  return { tokens, exact: allExact };
}

// A tool's spec is one object for the life of its tool (the registry caches it), so its JSON is
// made once rather than on every step's estimates.
const specJson = new WeakMap<ToolSpec, string>();

/** JSON.stringify(tools.map((t) => ({ type: "function", function: t }))), from each spec's cached JSON. */
function toolsJson(tools: readonly ToolSpec[]): string {
  const parts = tools.map((t) => {
    let json = specJson.get(t);
    if (json === undefined) {
      json = JSON.stringify({ type: "function", function: t });
      specJson.set(t, json);
    }
    return json;
  });
  return `[${parts.join(",")}]`;
}

function toolTokens(tools: readonly ToolSpec[], encoding: Encoding, model: string, exact: boolean): { exact: boolean; tokens: number } {
  const hit = toolCounts.find((c) => c.encoding === encoding && sameSpecs(c.specs, tools));
  if (hit && (hit.exact || !exact)) return hit;
  const json = toolsJson(tools);
  const counted: ToolsCounted = { specs: [...tools], encoding, exact, tokens: exact ? countTokens(json, model) : Buffer.byteLength(json, "utf8") };
  if (hit) toolCounts.splice(toolCounts.indexOf(hit), 1);
  if (toolCounts.length >= TOOL_LISTS_KEPT) toolCounts.shift();
  toolCounts.push(counted);
  return counted;
}

function sameSpecs(a: readonly ToolSpec[], b: readonly ToolSpec[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Text not counted yet, above this many bytes, is counted before the request, in slices. */
const PREPARE_ABOVE_BYTES = 64 * 1024;

/** How long counting may hold the event loop before it lets signals and I/O through. */
const SLICE_MS = 20;

/**
 * Before a request: counts exactly what is not counted yet only when that is a lot of text (a huge
 * prompt on stdin, a resumed session, a large tool output), in slices that yield to the event
 * loop, so the synchronous exact count a decision may need never holds off a Ctrl+C or a SIGTERM
 * for long. Less than that stays a bound until countPendingTokens counts it. `needsExact(bound)`
 * says whether any decision may ask for an exact count of a request of at most `bound` tokens:
 * when none can, nothing is counted (counting here sits between a response and the next request,
 * and its first use loads the tokenizer, 0.2–0.4 s, which a short run never needs).
 */
export async function prepareRequestTokens(messages: ChatMessage[], model: string, signal?: AbortSignal, needsExact?: (bound: number) => boolean): Promise<void> {
  const encoding = encodingFor(model);
  if (encoding === "estimate") return;
  let pending = 0;
  let bound = REPLY_PRIMING;
  for (const message of messages) {
    if (signal?.aborted) return;
    const counted = messageTokens(message, encoding, model, false);
    bound += counted.tokens;
    if (!counted.exact) pending += counted.tokens;
  }
  if (pending >= PREPARE_ABOVE_BYTES && (needsExact?.(bound) ?? true)) await countInSlices(messages, encoding, model, signal);
}

/**
 * While orca waits on the model: counts exactly every message not counted yet, in slices, with a
 * tokenizer that is already loaded (loading it is warmTokenizer's call). The next request's
 * estimates then find the counts made.
 */
export async function countPendingTokens(messages: readonly ChatMessage[], model: string, signal?: AbortSignal): Promise<void> {
  const encoding = encodingFor(model);
  if (encoding !== "estimate" && !bpeLoaded(encoding)) return;
  await countInSlices(messages, encoding, model, signal);
}

async function countInSlices(messages: readonly ChatMessage[], encoding: Encoding, model: string, signal?: AbortSignal): Promise<void> {
  let since = performance.now();
  // A copy: the history may grow while this waits between slices.
  for (const message of [...messages]) {
    if (signal?.aborted) return;
    messageTokens(message, encoding, model, true);
    if (performance.now() - since >= SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
}

/** A message's count: the cached one when it still fits (exact, or a bound when one is enough), else taken now. */
function messageTokens(message: ChatMessage, encoding: Encoding, model: string, exact: boolean): Counted {
  const hit = cache.get(message);
  // Every step checks every message of the history: a hit builds nothing.
  if (hit && hit.encoding === encoding && (hit.exact || !exact) && partsStillOf(hit.parts, message)) return hit;
  const parts = messageParts(message);
  const text = textOf(parts);
  let tokens = PER_MESSAGE + (exact ? countTokens(text, model) : Buffer.byteLength(text, "utf8"));
  if (message.role === "assistant") tokens += message.toolCalls.length * PER_TOOL_CALL;
  const counted = { encoding, parts, tokens, exact };
  cache.set(message, counted);
  return counted;
}

/**
 * The text of a message that is counted, from its parts (messageParts): what the model reads of it
 * (its content, a result's call id, each call's id, name and arguments), joined with newlines.
 */
function textOf(parts: readonly unknown[]): string {
  switch (parts[0]) {
    case "system":
    case "user":
      return parts[1] as string;
    case "tool":
      return `${parts[1] as string}\n${parts[2] as string}`;
    default:
      return [parts[1], ...parts.slice(4)].join("\n");
  }
}

/**
 * The most tokens a request's input may take, by model family; `configured` (model.context_window)
 * wins. For the gpt-5 family this is the input limit (272k of a 400k window that reserves 128k for
 * output), because that is what compaction must stay under. Unknown models get 128k, the common
 * window of current open-weight models.
 */
export function contextWindowFor(model: string, configured?: number): number {
  if (configured !== undefined && configured > 0) return configured;
  const name = baseModelName(model);
  for (const [pattern, window] of WINDOWS) if (pattern.test(name)) return window;
  return 128_000;
}

const WINDOWS: Array<[RegExp, number]> = [
  [/^gpt-5(\.\d+)?-chat/, 128_000],
  [/^gpt-5/, 272_000],
  [/^gpt-4\.1/, 1_047_576],
  [/^(gpt-4o|chatgpt-4o|gpt-4\.5)/, 128_000],
  [/^(o1-mini|o1-preview)/, 128_000],
  [/^(o1|o3|o4)/, 200_000],
  [/^gpt-4-(turbo|\d{4}-preview|1106|0125)/, 128_000],
  [/^gpt-4-32k/, 32_768],
  [/^gpt-4/, 8_192],
  [/^gpt-3\.5-turbo/, 16_385],
  [/^gpt-oss/, 131_072],
  [/^claude/, 200_000],
  [/^gemini/, 1_048_576],
  [/^deepseek/, 128_000],
];
