import { STATUS_CODES } from "node:http";
import type * as AnthropicSdk from "@anthropic-ai/sdk";
import type { Anthropic as AnthropicClient } from "@anthropic-ai/sdk";
import type { Stream } from "@anthropic-ai/sdk/core/streaming";
import type { MessageCreateParamsStreaming, MessageParam, ThinkingConfigParam } from "@anthropic-ai/sdk/resources/messages";
import { addCacheBreakpoints } from "./anthropic-cache.js";
import { toAnthropicMessages, toAnthropicTools } from "./anthropic-history.js";
import { AnthropicAssembler, type AnthropicWireEvent } from "./anthropic-stream.js";
import { type Model, type ModelEvent, type ModelRequest } from "./model.js";
import { ModelError } from "../util/errors.js";
import { causeText, displayURL, loadFetch } from "./openai.js";

type Sdk = typeof AnthropicSdk;

export interface AnthropicModelOptions {
  name: string;
  /** The provider's name in the config, for messages. */
  provider?: string;
  baseURL?: string;
  apiKey?: string;
  /** Per attempt: until the response starts, and then the longest silence allowed mid-stream. */
  timeoutMs?: number;
  /** Retries of a failed request before any of its response was read (the SDK's, honouring Retry-After). */
  maxRetries?: number;
  maxOutputTokens?: number;
  /** Extended thinking: a token budget (≥ 1024), "adaptive" (the model decides), or off when unset. */
  thinking?: number | "adaptive";
  /** cache_control breakpoints on tools, system and the conversation (default true). */
  promptCache?: boolean;
  defaultHeaders?: Record<string, string>;
}

const DEFAULT_TIMEOUT_MS = 600_000;
const DEFAULT_MAX_RETRIES = 3;
/** The Messages API requires max_tokens; this is what a response may use when the config names no cap. */
const DEFAULT_MAX_TOKENS = 8_192;
/** A server tool still working pauses the turn; orca sends it back this many times at most. */
const MAX_CONTINUATIONS = 8;
const PLACEHOLDER_KEY = "orca-no-key";
const ANTHROPIC_BASE_URL = "https://api.anthropic.com";

// Loaded on the first request: a run that never talks to Anthropic never pays for the SDK.
let sdk: Promise<Sdk> | undefined;
const loadSdk = () => (sdk ??= import("@anthropic-ai/sdk"));

/**
 * A Model over the Anthropic Messages API (or any server that speaks it), through the official
 * SDK: streamed text, thinking and tool uses, prompt-cache breakpoints, usage with cache reads and
 * writes, and every failure turned into a one-line ModelError.
 */
export class AnthropicModel implements Model {
  readonly name: string;
  private readonly opts: AnthropicModelOptions;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private client: AnthropicClient | undefined;

  constructor(opts: AnthropicModelOptions) {
    this.name = opts.name;
    this.opts = opts;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    // The key comes from the config (ANTHROPIC_API_KEY resolved there); a keyless local server or
    // gateway gets a placeholder, never a key read here from the environment.
    this.apiKey = opts.apiKey || (opts.baseURL ? PLACEHOLDER_KEY : undefined);
  }

  /** The endpoint as shown in messages: no credentials, no trailing slash. */
  get baseURL(): string {
    return displayURL(this.opts.baseURL ?? ANTHROPIC_BASE_URL);
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    if (signal.aborted) throw new ModelError("aborted", "cancelled");
    const model = request.model || this.name;
    const inner = new AbortController();
    const onAbort = () => inner.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    let attempts = 0;
    let idleTimer: NodeJS.Timeout | undefined;
    let idleTimedOut = false;
    const armIdle = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        idleTimedOut = true;
        inner.abort();
      }, this.timeoutMs);
    };
    let Sdk: Sdk | undefined;
    const context = (): ErrorContext => ({
      sdk: Sdk,
      model,
      provider: this.opts.provider ?? "anthropic",
      baseURL: this.baseURL,
      attempts,
      apiKey: this.apiKey,
      timeoutMs: this.timeoutMs,
      aborted: signal.aborted,
      idleTimedOut,
    });

    try {
      if (!this.apiKey) {
        const where = this.opts.provider ? `providers.${this.opts.provider}.api_key` : "the provider's api_key";
        throw new ModelError("auth", `no API key: set ANTHROPIC_API_KEY or ${where} in the config`);
      }
      Sdk = await loadSdk();
      const client = this.baseClient(Sdk).withOptions({
        fetch: (input: string | URL | Request, init?: RequestInit) => {
          attempts++;
          return fetch(input, init);
        },
      });
      const body = this.body(request, model);
      const asked: MessageParam[] = body.messages;
      const assembler = new AnthropicAssembler(model);
      for (let part = 0; ; part++) {
        // client.post rather than messages.create: create() prints deprecation notices with
        // console.warn, and the core never writes to the terminal.
        const sdkStream = await client.post<Stream<AnthropicWireEvent>>("/v1/messages", {
          body,
          stream: true,
          signal: inner.signal,
          timeout: this.timeoutMs,
          maxRetries: this.maxRetries,
        });
        armIdle();
        for await (const event of sdkStream) {
          // The silence that counts is the server's, not a consumer slow to pull the next event.
          clearTimeout(idleTimer);
          for (const out of assembler.push(event)) yield out;
          armIdle();
        }
        clearTimeout(idleTimer);
        // The SDK ends an aborted stream silently, as if it were complete.
        if (signal.aborted) throw new ModelError("aborted", "cancelled");
        if (idleTimedOut) throw new Error("idle");
        if (!assembler.complete) throw new ModelError("truncated", "the model's response was cut off (no message_stop)");
        if (assembler.stopReason !== "pause_turn" || part + 1 >= MAX_CONTINUATIONS) break;
        // A paused turn continues where it stopped: the same request plus what it has said so far.
        body.messages = [...asked, { role: "assistant", content: assembler.contentParams() }];
      }
      const stop = assembler.stopReason;
      if (stop === "max_tokens") {
        throw new ModelError("max_tokens", `the response reached its output limit (max_tokens ${body.max_tokens}) before it finished: raise max_output_tokens`);
      }
      if (stop === "model_context_window_exceeded") {
        throw new ModelError("max_tokens", `the conversation filled ${model}'s context window before the response finished`);
      }
      for (const event of assembler.finish()) yield event;
      yield { type: "done", finishReason: stop ?? "end_turn" };
    } catch (error) {
      throw classify(error, context());
    } finally {
      clearTimeout(idleTimer);
      signal.removeEventListener("abort", onAbort);
      // Also when the consumer stopped early: release the connection.
      inner.abort();
    }
  }

  async prepare(): Promise<void> {
    try {
      this.baseClient(await loadSdk());
    } catch {
      // The request reports it.
    }
    await loadFetch();
  }

  private baseClient(Sdk: Sdk): AnthropicClient {
    this.client ??= new Sdk.Anthropic({
      apiKey: this.apiKey ?? PLACEHOLDER_KEY,
      baseURL: this.opts.baseURL ?? ANTHROPIC_BASE_URL,
      timeout: this.timeoutMs,
      maxRetries: this.maxRetries,
      defaultHeaders: this.opts.defaultHeaders,
      // The core never writes to the terminal; the SDK would log on the console.
      logLevel: "off",
    });
    return this.client;
  }

  private body(request: ModelRequest, model: string): MessageCreateParamsStreaming {
    const { system, messages } = toAnthropicMessages(request.messages, model);
    const tools = toAnthropicTools(request.tools);
    const thinking = this.thinking();
    const budget = typeof this.opts.thinking === "number" ? this.opts.thinking : 0;
    const body: MessageCreateParamsStreaming = {
      model,
      // With a thinking budget, the answer still needs room after the thinking.
      max_tokens: request.maxOutputTokens ?? this.opts.maxOutputTokens ?? DEFAULT_MAX_TOKENS + budget,
      messages,
      stream: true,
    };
    if (system) body.system = system;
    if (tools) body.tools = tools;
    // A budget must stay below max_tokens; a request capped lower (a compaction summary) goes without.
    const fits = budget === 0 || budget < body.max_tokens;
    if (thinking && fits && !midLoopWithoutThinking(messages)) body.thinking = thinking;
    // No temperature: API version 2026-10-21 (what this SDK speaks) refuses sampling parameters.
    if (this.opts.promptCache !== false) addCacheBreakpoints(body as { system?: typeof system; messages: MessageParam[]; tools?: typeof tools });
    return body;
  }

  private thinking(): ThinkingConfigParam | undefined {
    const { thinking } = this.opts;
    if (thinking === undefined) return undefined;
    if (thinking === "adaptive") return { type: "adaptive" };
    return { type: "enabled", budget_tokens: thinking };
  }
}

/**
 * With thinking on, the API refuses a tool round whose assistant turn does not start with
 * thinking. A round without it — from a session begun on another provider or model, or before
 * thinking was configured — finishes with thinking off; the next round has it again.
 */
function midLoopWithoutThinking(messages: MessageParam[]): boolean {
  const last = messages.at(-1);
  const assistant = messages.at(-2);
  if (last?.role !== "user" || assistant?.role !== "assistant" || typeof assistant.content === "string") return false;
  const blocks = assistant.content;
  if (!blocks.some((b) => b.type === "tool_use")) return false;
  if (typeof last.content === "string" || !last.content.some((b) => b.type === "tool_result")) return false;
  const first = blocks[0]?.type;
  return first !== "thinking" && first !== "redacted_thinking";
}

interface ErrorContext {
  sdk: Sdk | undefined;
  model: string;
  provider: string;
  baseURL: string;
  attempts: number;
  apiKey: string | undefined;
  timeoutMs: number;
  aborted: boolean;
  idleTimedOut: boolean;
}

/** Every failure → a ModelError with one line a user can act on. Order matters: subclasses first. */
function classify(error: unknown, ctx: ErrorContext): ModelError {
  if (error instanceof ModelError) return redact(error, ctx);
  const S = ctx.sdk;
  const at = ctx.baseURL;
  const tries = ctx.attempts > 1 ? ` (after ${ctx.attempts} attempts)` : "";
  const seconds = `${Math.round(ctx.timeoutMs / 100) / 10}s`;
  const make = (kind: ConstructorParameters<typeof ModelError>[0], message: string, status?: number) =>
    redact(new ModelError(kind, message, status, { cause: error }), ctx);
  // orca's own idle timer aborts the SDK too: that abort is a timeout, not the user's cancel.
  if (ctx.idleTimedOut && !ctx.aborted) return make("timeout", `the model sent nothing for ${seconds} mid-response at ${at}`);
  if (ctx.aborted || (S && error instanceof S.APIUserAbortError)) {
    return new ModelError("aborted", "cancelled", undefined, { cause: error });
  }

  if (S && error instanceof S.APIConnectionTimeoutError) return make("timeout", `model request timed out after ${seconds} at ${at}${tries}`);
  if (S && error instanceof S.APIConnectionError) {
    return make("connection", `cannot reach the model at ${at}: ${causeText(error.cause ?? error)}${tries}`);
  }
  if (S && error instanceof S.APIError) {
    const status = error.status;
    const detail = serverDetail(error.error);
    const suffix = detail ? `: ${detail}` : "";
    if (error instanceof S.AuthenticationError) {
      return make("auth", `authentication failed (401) at ${at}: check ANTHROPIC_API_KEY or providers.${ctx.provider}.api_key`, 401);
    }
    if (error instanceof S.PermissionDeniedError) return make("auth", `permission denied (403) by ${at}${suffix}`, 403);
    if (error instanceof S.NotFoundError) return make("not_found", `model "${ctx.model}" not found at ${at}${suffix}`, 404);
    if (error instanceof S.RateLimitError) return make("rate_limit", `rate limited (429) by ${at}${tries}${suffix}`, 429);
    if (error instanceof S.OverloadedError) return make("server", `the model is overloaded (529) at ${at}${tries}${suffix}`, status);
    if (error instanceof S.InternalServerError) {
      return make("server", `model request failed: ${status} ${STATUS_CODES[status] ?? "error"} from ${at}${tries}${suffix}`, status);
    }
    if (status === undefined) {
      // An `error` event inside an otherwise fine stream (overloaded_error mid-response).
      return make("server", `the model endpoint reported an error mid-response${suffix || `: ${error.message}`}`);
    }
    if (status === 408) return make("timeout", `model request timed out (408) at ${at}${tries}${suffix}`, status);
    return make("bad_request", `model request rejected (${status}) by ${at}${suffix}`, status);
  }
  if (error instanceof SyntaxError) return make("server", `the model endpoint sent a malformed event: ${error.message}`);
  // undici: a socket cut mid-body is TypeError("terminated"), a refused connection "fetch failed".
  return make("connection", `connection to ${at} lost mid-response: ${causeText(error)}`);
}

/** The server's own explanation: Anthropic sends `{"type":"error","error":{"type":…,"message":…}}`. */
function serverDetail(body: unknown): string {
  if (!body || typeof body !== "object") return "";
  const inner = (body as { error?: unknown }).error;
  const source = inner && typeof inner === "object" ? inner : body;
  const message = (source as { message?: unknown }).message;
  return typeof message === "string" ? message : "";
}

/** One line, bounded, and never the API key. */
function redact(error: ModelError, ctx: ErrorContext): ModelError {
  let message = error.message.replace(/\s+/g, " ").trim();
  if (ctx.apiKey && ctx.apiKey !== PLACEHOLDER_KEY && ctx.apiKey.length >= 4) message = message.split(ctx.apiKey).join("***");
  if (message.length > 400) message = `${message.slice(0, 399)}…`;
  if (message === error.message) return error;
  return new ModelError(error.kind, message, error.status, { cause: error.cause });
}
