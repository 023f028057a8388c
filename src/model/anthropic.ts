import type * as AnthropicSdk from "@anthropic-ai/sdk";
import type { Anthropic as AnthropicClient } from "@anthropic-ai/sdk";
import type { Stream } from "@anthropic-ai/sdk/core/streaming";
import type { MessageCreateParamsStreaming, MessageParam, ThinkingConfigParam } from "@anthropic-ai/sdk/resources/messages";
import { addCacheBreakpoints } from "./anthropic-cache.js";
import { fetchBody } from "./byte-body.js";
import { toAnthropicMessages, toAnthropicTools } from "./anthropic-history.js";
import { AnthropicAssembler, type AnthropicWireEvent } from "./anthropic-stream.js";
import { type Model, type ModelEvent, type ModelRequest } from "./model.js";
import { ModelError } from "../util/errors.js";
import { classifyFailure } from "./provider-errors.js";
import { RequestSignal } from "./request-signal.js";
import { SdkModel, type SdkModelOptions } from "./sdk-model.js";
import { loadFetch } from "./openai.js";

type Sdk = typeof AnthropicSdk;

export interface AnthropicModelOptions extends SdkModelOptions {
  /** The provider's name in the config, for messages. */
  provider?: string;
  /** Extended thinking: a token budget (≥ 1024), "adaptive" (the model decides), or off when unset. */
  thinking?: number | "adaptive";
  /** cache_control breakpoints on tools, system and the conversation (default true). */
  promptCache?: boolean;
}

/** The Messages API requires max_tokens; this is what a response may use when the config names no cap. */
const DEFAULT_MAX_TOKENS = 8_192;
/** A server tool still working pauses the turn; orca sends it back this many times at most. */
const MAX_CONTINUATIONS = 8;
const ANTHROPIC_BASE_URL = "https://api.anthropic.com";

// Loaded on the first request: a run that never talks to Anthropic never pays for the SDK.
let sdk: Promise<Sdk> | undefined;
const loadSdk = () => (sdk ??= import("@anthropic-ai/sdk"));

/**
 * A Model over the Anthropic Messages API (or any server that speaks it), through the official
 * SDK: streamed text, thinking and tool uses, prompt-cache breakpoints, usage with cache reads and
 * writes, and every failure turned into a one-line ModelError.
 */
export class AnthropicModel extends SdkModel<AnthropicModelOptions> implements Model {
  private client: AnthropicClient | undefined;

  constructor(opts: AnthropicModelOptions) {
    // The key comes from the config (ANTHROPIC_API_KEY resolved there), never from the environment here.
    super(opts, ANTHROPIC_BASE_URL, undefined);
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    if (signal.aborted) throw new ModelError("aborted", "cancelled");
    const model = request.model || this.name;
    const guard = new RequestSignal(signal, this.timeoutMs);
    let attempts = 0;
    let Sdk: Sdk | undefined;
    const provider = this.opts.provider ?? "anthropic";
    const authFailed = `authentication failed (401) at ${this.baseURL}: check ANTHROPIC_API_KEY or providers.${provider}.api_key`;
    const context = () => this.failureContext({ model, attempts, guard }, { sdk: Sdk, authFailed, serverDetail });

    try {
      if (!this.apiKey) {
        const where = this.opts.provider ? `providers.${this.opts.provider}.api_key` : "the provider's api_key";
        throw new ModelError("auth", `no API key: set ANTHROPIC_API_KEY or ${where} in the config`);
      }
      Sdk = await loadSdk();
      const client = this.baseClient(Sdk).withOptions({
        fetch: (input: string | URL | Request, init?: RequestInit) => {
          attempts++;
          return fetchBody(input, init);
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
          signal: guard.signal,
          timeout: this.timeoutMs,
          maxRetries: this.maxRetries,
        });
        for await (const event of guard.watchIdle(sdkStream)) {
          for (const out of assembler.push(event)) yield out;
        }
        guard.throwIfEnded();
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
      throw classifyFailure(error, context());
    } finally {
      guard.close();
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
    this.client ??= new Sdk.Anthropic({ ...this.clientOptions(), baseURL: this.opts.baseURL ?? ANTHROPIC_BASE_URL });
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

/** The server's own explanation: Anthropic sends `{"type":"error","error":{"type":…,"message":…}}`. */
function serverDetail(body: unknown): string {
  if (!body || typeof body !== "object") return "";
  const inner = (body as { error?: unknown }).error;
  const source = inner && typeof inner === "object" ? inner : body;
  const message = (source as { message?: unknown }).message;
  return typeof message === "string" ? message : "";
}
