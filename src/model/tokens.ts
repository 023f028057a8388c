import { bpe } from "./encoders.js";
import type { ChatMessage, ToolSpec } from "./model.js";

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

// A message's count is reused across the steps of a run: histories grow by appending.
const cache = new WeakMap<ChatMessage, { encoding: Encoding; text: string; tokens: number }>();

export function estimateRequestTokens(messages: ChatMessage[], tools: ToolSpec[], model: string): number {
  const encoding = encodingFor(model);
  let total = REPLY_PRIMING;
  for (const message of messages) total += messageTokens(message, encoding, model);
  if (tools.length > 0) total += countTokens(JSON.stringify(tools.map((t) => ({ type: "function", function: t }))), model);
  return total;
}

/** How long counting may hold the event loop before it lets signals and I/O through. */
const SLICE_MS = 20;

/**
 * Counts every message of `messages` not counted yet, yielding to the event loop between them,
 * so a history holding megabytes (a huge prompt on stdin, a resumed session) never holds off a
 * Ctrl+C or a SIGTERM for long; one message costs at most tens of milliseconds (encoders.ts).
 * The synchronous estimates that follow (compaction, the budget, the request event) then find
 * every count cached.
 */
export async function prepareRequestTokens(messages: ChatMessage[], model: string, signal?: AbortSignal): Promise<void> {
  const encoding = encodingFor(model);
  let since = performance.now();
  for (const message of messages) {
    if (signal?.aborted) return;
    messageTokens(message, encoding, model);
    if (performance.now() - since >= SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
}

function messageTokens(message: ChatMessage, encoding: Encoding, model: string): number {
  const text = messageText(message);
  const hit = cache.get(message);
  if (hit && hit.encoding === encoding && hit.text === text) return hit.tokens;
  let tokens = PER_MESSAGE + countTokens(text, model);
  if (message.role === "assistant") tokens += message.toolCalls.length * PER_TOOL_CALL;
  cache.set(message, { encoding, text, tokens });
  return tokens;
}

/** Everything of a message that the model reads, as one string. */
function messageText(message: ChatMessage): string {
  switch (message.role) {
    case "system":
    case "user":
      return message.content;
    case "tool":
      return `${message.toolCallId}\n${message.content}`;
    case "assistant":
      return [message.content, ...message.toolCalls.flatMap((c) => [c.id, c.name, c.raw])].join("\n");
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
