import { STATUS_CODES } from "node:http";
import { raceAbort as raceAbortWith } from "../util/race-abort.js";
import OpenAI from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import { StreamAssembler, type WireChunk } from "./assembler.js";
import { ResponsePreview, retryDelayMs } from "./response-preview.js";
import { type Model, type ModelEvent, type ModelRequest } from "./model.js";
import { ModelError } from "../util/errors.js";
import { toWireMessages, toWireTools } from "./wire.js";

export { StreamAssembler } from "./assembler.js";

export interface OpenAIModelOptions {
  name: string;
  baseURL?: string;
  apiKey?: string;
  /** Per attempt: until the response starts, and then the longest silence allowed mid-stream. */
  timeoutMs?: number;
  /** Retries of a failed request before any of its response was read (the SDK's, honouring Retry-After). */
  maxRetries?: number;
  temperature?: number;
  maxOutputTokens?: number;
  defaultHeaders?: Record<string, string>;
}

const DEFAULT_TIMEOUT_MS = 600_000;
const DEFAULT_MAX_RETRIES = 3;
/** Local servers (Ollama, llama.cpp, vLLM) ignore the key, but the SDK refuses to start without one. */
const PLACEHOLDER_KEY = "orca-no-key";
const OPENAI_BASE_URL = "https://api.openai.com/v1";

/**
 * A Model over any OpenAI-compatible chat-completions endpoint, through the official SDK:
 * streamed, with usage, tool-call fragments assembled by StreamAssembler, and every failure
 * turned into a one-line ModelError.
 */
export class OpenAIModel implements Model {
  readonly name: string;
  private readonly opts: OpenAIModelOptions;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private client: OpenAI | undefined;

  constructor(opts: OpenAIModelOptions) {
    this.name = opts.name;
    this.opts = opts;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    // The key comes from the config (which takes OPENAI_API_KEY when it names none); this model
    // never reads the environment itself when a base_url is given, so a keyless local server gets
    // a placeholder rather than a key meant for someone else.
    this.apiKey = opts.apiKey || (opts.baseURL ? PLACEHOLDER_KEY : process.env.OPENAI_API_KEY || undefined);
  }

  /** The endpoint as shown in messages: no credentials, no trailing slash. */
  get baseURL(): string {
    return displayURL(this.opts.baseURL ?? OPENAI_BASE_URL);
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    if (signal.aborted) throw new ModelError("aborted", "cancelled");
    const model = request.model || this.name;
    let attempts = 0;
    let preview = new ResponsePreview();
    // A client per request so the attempt count (for messages) is this request's own; it shares
    // undici's global connection pool, so nothing is lost.
    const client = this.baseClient().withOptions({
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        attempts++;
        const response = await fetch(input, init);
        if (!response.ok) return response;
        preview = new ResponsePreview();
        return preview.tap(response);
      },
    });

    // One controller for the SDK: the caller's abort and orca's own idle timeout both end it.
    const inner = new AbortController();
    const onAbort = () => inner.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    let idleTimer: NodeJS.Timeout | undefined;
    let idleTimedOut = false;
    const armIdle = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        idleTimedOut = true;
        inner.abort();
      }, this.timeoutMs);
    };
    const context = (): ErrorContext => ({
      model,
      baseURL: this.baseURL,
      attempts,
      apiKey: this.apiKey,
      timeoutMs: this.timeoutMs,
      aborted: signal.aborted,
      idleTimedOut,
    });

    try {
      if (!this.apiKey) {
        throw new ModelError("auth", "no API key: set OPENAI_API_KEY or model.api_key in the config");
      }
      // Every attempt, the SDK's own retries of a failed status included, counts toward maxRetries.
      const maxAttempts = this.maxRetries + 1;
      for (;;) {
        const pending = client.chat.completions.create(this.body(request, model), {
          signal: inner.signal,
          timeout: this.timeoutMs,
          maxRetries: Math.max(0, maxAttempts - attempts - 1),
        });
        // The SDK sleeps between retries without watching the signal (a Retry-After of minutes
        // would hold a cancel that long), so the caller's abort is raced against it.
        const sdkStream = await raceAbort(pending, inner.signal);
        const assembler = new StreamAssembler();
        let chunks = 0;
        let failure: unknown;
        armIdle();
        try {
          for await (const chunk of sdkStream) {
            // The silence that counts is the server's, not a consumer slow to pull the next event.
            clearTimeout(idleTimer);
            chunks++;
            for (const event of assembler.push(chunk as WireChunk)) yield event;
            armIdle();
          }
        } catch (error) {
          // Only an answer that delivered nothing may be retried: nothing of it reached the caller.
          if (chunks > 0 || !carriedNothing(error)) throw error;
          failure = error;
        }
        clearTimeout(idleTimer);
        // The SDK ends an aborted stream silently, as if it were complete.
        if (signal.aborted) throw new ModelError("aborted", "cancelled");
        if (idleTimedOut) throw classify(new Error("idle"), context());
        if (chunks > 0) {
          for (const event of assembler.finish()) yield event;
          return;
        }
        // A 200 with not one parseable chunk failed like a 5xx: retried the same way, and if it
        // persists the error says what came back.
        if (attempts >= maxAttempts) throw nothingReceived(failure, preview, context());
        await sleep(retryDelayMs(attempts - 1), inner.signal);
      }
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
    this.baseClient();
    await loadFetch();
  }

  private baseClient(): OpenAI {
    this.client ??= new OpenAI({
      apiKey: this.apiKey ?? PLACEHOLDER_KEY,
      baseURL: this.opts.baseURL,
      timeout: this.timeoutMs,
      maxRetries: this.maxRetries,
      defaultHeaders: this.opts.defaultHeaders,
      // The core never writes to the terminal; the SDK would warn on the console.
      logLevel: "off",
    });
    return this.client;
  }

  private body(request: ModelRequest, model: string): ChatCompletionCreateParamsStreaming {
    const body: ChatCompletionCreateParamsStreaming = {
      model,
      messages: toWireMessages(request.messages),
      stream: true,
      stream_options: { include_usage: true },
    };
    const tools = toWireTools(request.tools);
    if (tools) body.tools = tools;
    const temperature = request.temperature ?? this.opts.temperature;
    if (temperature !== undefined) body.temperature = temperature;
    const maxOutput = request.maxOutputTokens ?? this.opts.maxOutputTokens;
    if (maxOutput !== undefined) {
      // OpenAI's reasoning models refuse `max_tokens`; many compatible servers know only it.
      if (this.isOpenAI()) body.max_completion_tokens = maxOutput;
      else body.max_tokens = maxOutput;
    }
    return body;
  }

  private isOpenAI(): boolean {
    if (!this.opts.baseURL) return true;
    try {
      return new URL(this.opts.baseURL).hostname === "api.openai.com";
    } catch {
      return false;
    }
  }
}

/** A body that broke off or did not parse before its first chunk: retrying it is safe. */
function carriedNothing(error: unknown): boolean {
  if (error instanceof OpenAI.APIUserAbortError || error instanceof OpenAI.APIError) return false;
  // A `data:` line that is not JSON, or undici's TypeError("terminated") for a cut socket.
  return error instanceof SyntaxError || error instanceof TypeError;
}

/** The error for an answer that, attempt after attempt, carried no chunk: what came back. */
function nothingReceived(failure: unknown, preview: ResponsePreview, ctx: ErrorContext): ModelError {
  if (failure instanceof TypeError) return classify(failure, ctx);
  const tries = ctx.attempts > 1 ? ` (after ${ctx.attempts} attempts)` : "";
  const body = preview.quoted();
  const what = !body ? "an empty response" : failure instanceof SyntaxError || preview.looksLikeEventStream() ? "an event stream with no parseable chunk" : "not an event stream";
  return new ModelError("server", `model request failed: ${what} from ${ctx.baseURL}${tries}${body ? `: ${body}` : ""}`, undefined, { cause: failure });
}

/** Waits `ms`, or rejects as a user abort as soon as `signal` aborts (leaving no timer behind). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(new OpenAI.APIUserAbortError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new OpenAI.APIUserAbortError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return raceAbortWith(promise, signal, (): never => {
    throw new OpenAI.APIUserAbortError();
  });
}

interface ErrorContext {
  model: string;
  baseURL: string;
  attempts: number;
  apiKey: string | undefined;
  timeoutMs: number;
  aborted: boolean;
  idleTimedOut: boolean;
}

/** Every failure → a ModelError with one line a user can act on. Order matters: subclasses first. */
export function classify(error: unknown, ctx: ErrorContext): ModelError {
  if (error instanceof ModelError) return redact(error, ctx);
  if (ctx.aborted || error instanceof OpenAI.APIUserAbortError) {
    return new ModelError("aborted", "cancelled", undefined, { cause: error });
  }
  const at = ctx.baseURL;
  const tries = ctx.attempts > 1 ? ` (after ${ctx.attempts} attempts)` : "";
  const seconds = `${Math.round(ctx.timeoutMs / 100) / 10}s`;
  const make = (kind: ConstructorParameters<typeof ModelError>[0], message: string, status?: number) =>
    redact(new ModelError(kind, message, status, { cause: error }), ctx);

  if (ctx.idleTimedOut) return make("timeout", `the model sent nothing for ${seconds} mid-response at ${at}`);
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return make("timeout", `model request timed out after ${seconds} at ${at}${tries}`);
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return make("connection", `cannot reach the model at ${at}: ${causeText(error.cause ?? error)}${tries}`);
  }
  if (error instanceof OpenAI.APIError) {
    const status = error.status;
    const detail = serverDetail(error);
    const suffix = detail ? `: ${detail}` : "";
    if (error instanceof OpenAI.AuthenticationError) {
      return make("auth", `authentication failed (401): check OPENAI_API_KEY${at === OPENAI_BASE_URL ? "" : ` for ${at}`}`, 401);
    }
    if (error instanceof OpenAI.PermissionDeniedError) {
      return make("auth", `permission denied (403) by ${at}${suffix}`, 403);
    }
    if (error instanceof OpenAI.NotFoundError) {
      return make("not_found", `model "${ctx.model}" not found at ${at}${suffix}`, 404);
    }
    if (error instanceof OpenAI.RateLimitError) {
      return make("rate_limit", `rate limited (429) by ${at}${tries}${suffix}`, 429);
    }
    if (error instanceof OpenAI.InternalServerError) {
      return make("server", `model request failed: ${status} ${STATUS_CODES[status] ?? "error"} from ${at}${tries}${suffix}`, status);
    }
    if (status === undefined) {
      // An `error` object inside an otherwise fine event stream (OpenRouter, vLLM do this).
      return make("server", `the model endpoint reported an error mid-response${suffix || `: ${error.message}`}`);
    }
    if (status === 408) return make("timeout", `model request timed out (408) at ${at}${tries}${suffix}`, status);
    return make("bad_request", `model request rejected (${status}) by ${at}${suffix}`, status);
  }
  if (error instanceof SyntaxError) {
    return make("server", `the model endpoint sent a malformed event: ${error.message}`);
  }
  // undici: a socket cut mid-body is TypeError("terminated"), a refused connection "fetch failed".
  return make("connection", `connection to ${at} lost mid-response: ${causeText(error)}`);
}

/** The server's own explanation, when it sent one as JSON: `{"error": {"message": …}}`. */
function serverDetail(error: InstanceType<typeof OpenAI.APIError>): string {
  const body = error.error as { message?: unknown } | undefined;
  return typeof body?.message === "string" ? body.message : "";
}

export function causeText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    const text = typeof code === "string" && !current.message.includes(code) ? `${current.message} (${code})` : current.message;
    if (text && !parts.includes(text)) parts.push(text);
    current = current.cause;
  }
  if (parts.length === 0) return String(error);
  return parts.join(": ");
}

/** One line, bounded, and never the API key. */
function redact(error: ModelError, ctx: ErrorContext): ModelError {
  let message = error.message.replace(/\s+/g, " ").trim();
  if (ctx.apiKey && ctx.apiKey !== PLACEHOLDER_KEY && ctx.apiKey.length >= 4) message = message.split(ctx.apiKey).join("***");
  if (message.length > 400) message = `${message.slice(0, 399)}…`;
  if (message === error.message) return error;
  return new ModelError(error.kind, message, error.status, { cause: error.cause });
}

export function displayURL(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return url.replace(/\/$/, "");
  }
}

/**
 * Node loads its fetch implementation (undici) on the first call; a data: URL makes that call
 * without touching the network.
 */
export async function loadFetch(): Promise<void> {
  try {
    await (await fetch("data:,")).arrayBuffer();
  } catch {
    // Only a head start: the real request loads it anyway.
  }
}
