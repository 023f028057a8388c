import { createHash } from "node:crypto";
import type http from "node:http";
import type { MessageParam, TextBlockParam, Tool } from "@anthropic-ai/sdk/resources/messages";
import { fromAnthropicMessages } from "./anthropic-history.js";
import { askScript, listenLoopback, readBody, record, sendJson, sleep, split, writeEventStream } from "./scripted-http.js";
import {
  sequence,
  type RecordedRequest,
  type ScriptedErrorReply,
  type ScriptedHangReply,
  type ScriptedReply,
  type ScriptedServer,
  type ScriptedTextReply,
  type WireMessage,
  type WireRequestBody,
  type WireTool,
} from "./scripted.js";
import { toWireMessages, toWireTools } from "./wire.js";

/**
 * A scripted Anthropic Messages server on loopback, for tests: the client talks to it with the
 * real `@anthropic-ai/sdk` over real HTTP. Replies are scripted exactly as for the OpenAI-compatible
 * server (scripted.ts); each recorded request also carries its OpenAI-shaped equivalent in `body`,
 * so the same test helpers (agentOf, perAgent, toolResults…) read requests of either protocol.
 *
 * Unless a reply scripts its usage, the server plays Anthropic's prompt cache: a prefix ending at a
 * cache_control breakpoint is written, and a later request whose prefix up to one of its
 * breakpoints is byte-identical reads it back — so cache reads prove that orca's prefix is stable.
 */

export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: string | TextBlockParam[];
  tools?: Tool[];
  stream?: boolean;
  thinking?: unknown;
  [key: string]: unknown;
}

export interface AnthropicRecordedRequest extends RecordedRequest {
  /** The request exactly as the SDK sent it. */
  anthropic: AnthropicRequestBody;
}

export interface ScriptedAnthropicExtras {
  /** The thinking block's signature (default: a fixed test value). */
  signature?: string;
  /** redacted_thinking blocks sent before the thinking. */
  redactedThinking?: string[];
  /** The stop_reason as sent (pause_turn, max_tokens…); default from finishReason or the content. */
  stopReason?: string;
  /** prompt = input_tokens (uncached), cached = cache_read_input_tokens, cacheWrite = cache_creation_input_tokens. */
  usage?: { prompt: number; completion: number; cached?: number; cacheWrite?: number };
  /** Send an `event: error` (overloaded_error) after this many events. */
  errorAfterEvents?: number;
}

export type ScriptedAnthropicReply = ScriptedErrorReply | ScriptedHangReply | (ScriptedTextReply & ScriptedAnthropicExtras);
export type AnthropicScriptHandler = (
  request: AnthropicRecordedRequest,
) => ScriptedAnthropicReply | ScriptedReply | Promise<ScriptedAnthropicReply | ScriptedReply>;

export interface ScriptedAnthropicServer extends ScriptedServer {
  /** Base URL to give the SDK (it appends /v1/messages). */
  readonly url: string;
  readonly requests: AnthropicRecordedRequest[];
}

export const TEST_SIGNATURE = "c2lnbmVkLWJ5LXRoZS1zY3JpcHRlZC1zZXJ2ZXI=";

export async function startScriptedAnthropicServer(
  script: AnthropicScriptHandler | ScriptedAnthropicReply[],
  options: { port?: number; host?: string } = {},
): Promise<ScriptedAnthropicServer> {
  const handler: AnthropicScriptHandler = Array.isArray(script) ? (sequence(script as ScriptedReply[]) as AnthropicScriptHandler) : script;
  const requests: AnthropicRecordedRequest[] = [];
  const cache = new PromptCache();

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const arrivedHr = performance.now();
    const url = req.url ?? "/";
    if (req.method !== "POST" || !url.split("?")[0]!.endsWith("/v1/messages")) {
      sendError(res, 404, `no route ${req.method} ${url}`);
      return;
    }
    let body: AnthropicRequestBody;
    try {
      body = JSON.parse(await readBody(req)) as AnthropicRequestBody;
    } catch {
      sendError(res, 400, "request body is not JSON");
      return;
    }
    const recorded = record(requests, { index: requests.length, body: openAIView(body), anthropic: body, headers: req.headers, receivedAt: Date.now(), arrivedHr }, res);
    const reply = (await askScript(handler, recorded)) as ScriptedAnthropicReply;
    if (reply.kind === "hang") return;
    if (reply.kind === "error") {
      sendError(res, reply.status, reply.message ?? `scripted ${reply.status}`, reply.retryAfter);
      return;
    }
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed) return;
    await streamReply(res, body, reply, reply.usage ?? cache.usage(body, reply));
  }

  const server = await listenLoopback(handle, options);
  return {
    url: server.origin,
    requests,
    get connections() {
      return server.connections;
    },
    close: server.close,
  };
}

type Usage = NonNullable<ScriptedAnthropicExtras["usage"]>;

async function streamReply(res: http.ServerResponse, body: AnthropicRequestBody, reply: ScriptedTextReply & ScriptedAnthropicExtras, usage: Usage): Promise<void> {
  const size = Math.max(1, reply.chunkChars ?? 12);
  const events: Array<Record<string, unknown>> = [
    {
      type: "message_start",
      message: {
        id: `msg_${Math.random().toString(36).slice(2)}`,
        type: "message",
        role: "assistant",
        content: [],
        model: body.model,
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.prompt, output_tokens: 1, cache_creation_input_tokens: usage.cacheWrite ?? 0, cache_read_input_tokens: usage.cached ?? 0 },
      },
    },
    { type: "ping" },
  ];
  let index = 0;
  const block = (start: Record<string, unknown>, deltas: Array<Record<string, unknown>>) => {
    const i = index++;
    return [
      { type: "content_block_start", index: i, content_block: start },
      ...deltas.map((delta) => ({ type: "content_block_delta", index: i, delta })),
      { type: "content_block_stop", index: i },
    ];
  };
  for (const data of reply.redactedThinking ?? []) events.push(...block({ type: "redacted_thinking", data }, []));
  if (reply.thinking) {
    const deltas = split(reply.thinking, size).map((thinking) => ({ type: "thinking_delta", thinking }));
    events.push(...block({ type: "thinking", thinking: "", signature: "" }, [...deltas, { type: "signature_delta", signature: reply.signature ?? TEST_SIGNATURE }]));
  }
  if (reply.text) events.push(...block({ type: "text", text: "" }, split(reply.text, size).map((text) => ({ type: "text_delta", text }))));
  const uses = (reply.toolCalls ?? []).map((call) => {
    const raw = call.rawArgs ?? JSON.stringify(call.args ?? {});
    const id = call.id ?? `toolu_${Math.random().toString(36).slice(2, 12)}`;
    const deltas = split(raw, Math.max(1, reply.argChunkChars ?? size)).map((partial_json) => ({ type: "input_json_delta", partial_json }));
    return block({ type: "tool_use", id, name: call.name, input: {} }, deltas);
  });
  if (reply.interleave) {
    // Every start, then the deltas round-robin, then every stop: only the index ties them together.
    events.push(...uses.map((u) => u[0]!));
    const longest = Math.max(0, ...uses.map((u) => u.length - 2));
    for (let i = 1; i <= longest; i++) for (const u of uses) if (i < u.length - 1) events.push(u[i]!);
    events.push(...uses.map((u) => u.at(-1)!));
  } else {
    for (const u of uses) events.push(...u);
  }
  const stopReason = reply.stopReason ?? stopReasonOf(reply.finishReason, uses.length > 0);
  events.push({ type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.completion } });
  if (!reply.omitFinishReason) events.push({ type: "message_stop" });

  const frames = events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
  // A scripted error event stands in for the rest of the stream.
  const errorAt = reply.errorAfterEvents === undefined ? undefined : Math.max(0, reply.errorAfterEvents);
  if (errorAt === undefined || errorAt >= frames.length) return writeEventStream(res, frames, reply);
  const overloaded = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
  return writeEventStream(res, frames.slice(0, errorAt), reply, `event: error\ndata: ${JSON.stringify(overloaded)}\n\n`);
}

function stopReasonOf(finishReason: string | undefined, hasTools: boolean): string {
  if (finishReason === "stop") return "end_turn";
  if (finishReason === "tool_calls") return "tool_use";
  if (finishReason === "length") return "max_tokens";
  return finishReason ?? (hasTools ? "tool_use" : "end_turn");
}

function sendError(res: http.ServerResponse, status: number, message: string, retryAfter?: number): void {
  const type = status === 429 ? "rate_limit_error" : status === 401 ? "authentication_error" : status === 404 ? "not_found_error" : status === 529 ? "overloaded_error" : status >= 500 ? "api_error" : "invalid_request_error";
  sendJson(res, status, { type: "error", error: { type, message } }, retryAfter !== undefined ? { "retry-after": String(retryAfter) } : {});
}

/** The request as the OpenAI-compatible server would have recorded it. */
function openAIView(body: AnthropicRequestBody): WireRequestBody {
  const history = fromAnthropicMessages({ system: body.system, messages: body.messages ?? [] });
  const tools = (body.tools ?? []).map((t) => ({ name: t.name, description: t.description ?? "", parameters: t.input_schema as Record<string, unknown> }));
  return {
    model: body.model,
    messages: toWireMessages(history) as WireMessage[],
    ...(tools.length ? { tools: toWireTools(tools) as WireTool[] } : {}),
    stream: body.stream,
  };
}

/**
 * Anthropic's prompt cache, played: the request is a sequence of blocks (tools, system, then each
 * message's content); a block with cache_control writes the prefix ending there, and the longest
 * prefix written before — ending at one of this request's breakpoints, or up to 20 blocks before
 * one — is read. Tokens are estimated at four characters each.
 */
class PromptCache {
  private readonly written = new Map<string, number>();

  usage(body: AnthropicRequestBody, reply: ScriptedTextReply): Usage {
    const blocks = flatten(body);
    // Each prefix is named by a hash chained over its blocks, and sized by its characters.
    const keys: string[] = [];
    const tokens: number[] = [];
    let key = "";
    let chars = 0;
    for (const block of blocks) {
      key = createHash("sha256").update(key).update(block.text).digest("hex");
      chars += block.text.length;
      keys.push(key);
      tokens.push(Math.ceil(chars / 4));
    }
    const total = tokens.at(-1) ?? 0;
    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    let read = 0;
    for (const bp of breakpoints) {
      for (let i = bp; i >= Math.max(0, bp - 20); i--) {
        if (this.written.has(keys[i]!)) {
          read = Math.max(read, tokens[i]!);
          break;
        }
      }
    }
    const last = breakpoints.at(-1);
    const cachedUpTo = last === undefined ? 0 : tokens[last]!;
    for (const bp of breakpoints) this.written.set(keys[bp]!, tokens[bp]!);
    const write = Math.max(0, cachedUpTo - read);
    const completion = Math.ceil(((reply.text ?? "").length + (reply.toolCalls ?? []).reduce((n, c) => n + (c.rawArgs ?? JSON.stringify(c.args ?? {})).length, 0)) / 4);
    return { prompt: Math.max(0, total - read - write), completion, cached: read, cacheWrite: write };
  }
}

function flatten(body: AnthropicRequestBody): Array<{ text: string; breakpoint: boolean }> {
  const out: Array<{ text: string; breakpoint: boolean }> = [];
  const add = (value: unknown, role: string) => {
    const { cache_control: mark, ...rest } = value as { cache_control?: unknown };
    out.push({ text: `${role}:${JSON.stringify(rest)}`, breakpoint: Boolean(mark) });
  };
  for (const tool of body.tools ?? []) add(tool, "tool");
  if (typeof body.system === "string") add({ type: "text", text: body.system }, "system");
  else for (const block of body.system ?? []) add(block, "system");
  for (const message of body.messages ?? []) {
    if (typeof message.content === "string") add({ type: "text", text: message.content }, message.role);
    else for (const block of message.content) add(block, message.role);
  }
  return out;
}
