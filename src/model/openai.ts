import { raceAbort as raceAbortWith } from "../util/race-abort.js";
import OpenAI from "openai";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { Stream } from "openai/core/streaming";
import { StreamAssembler, type WireChunk } from "./assembler.js";
import { fetchBody } from "./byte-body.js";
import { ResponsePreview, retryDelayMs } from "./response-preview.js";
import { type Model, type ModelEvent, type ModelRequest } from "./model.js";
import { ModelError } from "../util/errors.js";
import { classifyFailure, triesText, type FailureContext } from "./provider-errors.js";
import { RequestSignal } from "./request-signal.js";
import { SdkModel, type SdkModelOptions } from "./sdk-model.js";
import { usePreconnected } from "./preconnect.js";
import { lentWireBody, type BodyFields, type LentBody } from "./wire-body.js";

export { StreamAssembler } from "./assembler.js";

export interface OpenAIModelOptions extends SdkModelOptions {
  temperature?: number;
}

const OPENAI_BASE_URL = "https://api.openai.com/v1";

/**
 * A Model over any OpenAI-compatible chat-completions endpoint, through the official SDK:
 * streamed, with usage, tool-call fragments assembled by StreamAssembler, and every failure
 * turned into a one-line ModelError.
 */
export class OpenAIModel extends SdkModel<OpenAIModelOptions> implements Model {
  private client: OpenAI | undefined;

  constructor(opts: OpenAIModelOptions) {
    // The key comes from the config (which takes OPENAI_API_KEY when it names none); this model
    // reads the environment itself only when no base_url is given.
    super(opts, OPENAI_BASE_URL, process.env.OPENAI_API_KEY || undefined);
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    if (signal.aborted) throw new ModelError("aborted", "cancelled");
    const model = request.model || this.name;
    const state: RequestState = { attempts: 0, preview: new ResponsePreview() };
    const guard = new RequestSignal(signal, this.timeoutMs);
    // Made only when a request fails: the endpoint's display form is not free.
    const context = () => {
      const authFailed = `authentication failed (401): check OPENAI_API_KEY${this.baseURL === OPENAI_BASE_URL ? "" : ` for ${this.baseURL}`}`;
      return this.failureContext({ model, attempts: state.attempts, guard }, { sdk: OpenAI, authFailed, serverDetail });
    };

    try {
      if (!this.apiKey) {
        throw new ModelError("auth", "no API key: set OPENAI_API_KEY or model.api_key in the config");
      }
      // Every attempt, the SDK's own retries of a failed status included, counts toward maxRetries.
      const maxAttempts = this.maxRetries + 1;
      for (;;) {
        // What chat.completions.create sends, with the body already bytes.
        const body = this.body(request, model);
        const pending = this.baseClient().post<Stream<ChatCompletionChunk>>("/chat/completions", {
          body: body.bytes,
          headers: { "content-type": "application/json" },
          stream: true,
          signal: guard.signal,
          timeout: this.timeoutMs,
          maxRetries: Math.max(0, maxAttempts - state.attempts - 1),
          fetchOptions: { [REQUEST_STATE]: state } as Record<string, never>,
        });
        const settled = pending.then(noop, noop);
        const assembler = new StreamAssembler();
        let chunks = 0;
        let failure: unknown;
        try {
          // The SDK sleeps between retries without watching the signal (a Retry-After of minutes
          // would hold a cancel that long), so the caller's abort is raced against it.
          const sdkStream = await raceAbort(pending, guard.signal);
          try {
            for await (const chunk of guard.watchIdle(sdkStream)) {
              chunks++;
              for (const event of assembler.push(chunk as WireChunk)) yield event;
            }
          } catch (error) {
            // Only an answer that delivered nothing may be retried: nothing of it reached the caller.
            if (chunks > 0 || !carriedNothing(error)) throw error;
            failure = error;
          }
        } finally {
          // The body is its history's buffer, which the next request writes over, and fetch reads
          // it while it sends it (byte-body.ts): lent until this attempt's answer has ended and
          // the SDK is done with the body (its own retries send it again), not only until a cancel.
          void settled.then(body.release);
        }
        guard.throwIfEnded();
        if (chunks > 0) {
          guard.finished();
          for (const event of assembler.finish()) yield event;
          return;
        }
        // A 200 with not one parseable chunk failed like a 5xx: retried the same way, and if it
        // persists the error says what came back.
        if (state.attempts >= maxAttempts) throw nothingReceived(failure, state.preview, context());
        await sleep(retryDelayMs(state.attempts - 1), guard.signal);
      }
    } catch (error) {
      throw classifyFailure(error, context());
    } finally {
      guard.close();
    }
  }

  async prepare(): Promise<void> {
    this.baseClient();
    await loadFetch();
  }

  private baseClient(): OpenAI {
    this.client ??= new OpenAI({ ...this.clientOptions(), baseURL: this.opts.baseURL, fetch: tallyingFetch });
    return this.client;
  }

  /** The request's JSON as bytes (wire-body.ts: the history's messages are serialised once each, and laid in its buffer). */
  private body(request: ModelRequest, model: string): LentBody {
    const fields: BodyFields = { model, stream: true, stream_options: { include_usage: true } };
    const temperature = request.temperature ?? this.opts.temperature;
    if (temperature !== undefined) fields.temperature = temperature;
    const maxOutput = request.maxOutputTokens ?? this.opts.maxOutputTokens;
    if (maxOutput !== undefined) {
      // OpenAI's reasoning models refuse `max_tokens`; many compatible servers know only it.
      if (this.isOpenAI()) fields.max_completion_tokens = maxOutput;
      else fields.max_tokens = maxOutput;
    }
    return lentWireBody(fields, request.messages, request.tools);
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

/**
 * What one request's attempts leave behind: how many were made (for messages) and the start of the
 * last response's body (for an error that quotes it). The client is one for all requests (making
 * one a request cost a step ~0.3 ms); each request hands its own state to the fetch below through
 * its fetch options, which the SDK passes to every attempt's fetch.
 */
interface RequestState {
  attempts: number;
  preview: ResponsePreview;
}

const REQUEST_STATE = Symbol("orca.requestState");

async function tallyingFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const state = (init as { [REQUEST_STATE]?: RequestState } | undefined)?.[REQUEST_STATE];
  if (state) state.attempts++;
  const response = await fetchBody(input, init);
  if (!response.ok || !state) return response;
  state.preview = new ResponsePreview();
  return state.preview.tap(response);
}

function noop(): void {}

/** A body that broke off or did not parse before its first chunk: retrying it is safe. */
function carriedNothing(error: unknown): boolean {
  if (error instanceof OpenAI.APIUserAbortError || error instanceof OpenAI.APIError) return false;
  // A `data:` line that is not JSON, or undici's TypeError("terminated") for a cut socket.
  return error instanceof SyntaxError || error instanceof TypeError;
}

/** The error for an answer that, attempt after attempt, carried no chunk: what came back. */
function nothingReceived(failure: unknown, preview: ResponsePreview, ctx: FailureContext): ModelError {
  if (failure instanceof TypeError) return classifyFailure(failure, ctx);
  const tries = triesText(ctx.attempts);
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

/** The server's own explanation, when it sent one as JSON: `{"error": {"message": …}}`. */
function serverDetail(body: unknown): string {
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === "string" ? message : "";
}

/**
 * Node loads its fetch implementation (undici) on the first call; a data: URL makes that call
 * without touching the network. Then the connections opened at start are handed to it.
 */
export async function loadFetch(): Promise<void> {
  try {
    await (await fetch("data:,")).arrayBuffer();
  } catch {
    // Only a head start: the real request loads it anyway.
  }
  usePreconnected();
}
