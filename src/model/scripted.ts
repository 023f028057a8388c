import type http from "node:http";
import { askScript, listenLoopback, readBody, record, sendJson, sleep, split, writeEventStream, type LoopbackServer, type LoopbackTls } from "./scripted-http.js";

/**
 * A scripted OpenAI-compatible chat-completions server on loopback. It serves `orca --demo` and
 * every test: the client talks to it with the real `openai` SDK over real HTTP, exactly as it
 * talks to a real endpoint, so only the URL differs.
 */

export interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface WireMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: WireToolCall[];
  tool_call_id?: string;
}

export interface WireTool {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface WireRequestBody {
  model: string;
  messages: WireMessage[];
  tools?: WireTool[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
}

export interface RecordedRequest {
  index: number;
  body: WireRequestBody;
  headers: http.IncomingHttpHeaders;
  receivedAt: number;
  /** Set when the response has ended (or the client went away). */
  finishedAt?: number;
  /** performance.now() when the request's headers arrived: benchmarks time the client against it. */
  arrivedHr: number;
  /** performance.now() when the last byte of the response was handed to the socket. */
  finishedHr?: number;
  /** Which of the server's connections it came on, counted from 0. */
  connection?: number;
}

export interface ScriptedToolCall {
  id?: string;
  name: string;
  /** Serialised with JSON.stringify unless rawArgs is given. */
  args?: unknown;
  /** Sent verbatim, e.g. malformed JSON. */
  rawArgs?: string;
}

export interface ScriptedTextReply {
  kind?: "reply";
  text?: string;
  thinking?: string;
  toolCalls?: ScriptedToolCall[];
  /** Delay before the first byte, ms. */
  delayMs?: number;
  /** Delay between chunks, ms. */
  chunkDelayMs?: number;
  /** Characters per text/argument fragment (default 12). */
  chunkChars?: number;
  /** Characters per tool-call argument fragment (default: chunkChars). */
  argChunkChars?: number;
  /** Interleave the fragments of parallel tool calls (each call's later fragments carry only its index). */
  interleave?: boolean;
  /** Destroy the socket after this many chunks. */
  cutAfterChunks?: number;
  /** End the stream with [DONE] but without any finish_reason. */
  omitFinishReason?: boolean;
  finishReason?: string;
  usage?: { prompt: number; completion: number; cached?: number };
  /** Send no usage report even when asked (a server that ignores stream_options). */
  omitUsage?: boolean;
}

export interface ScriptedErrorReply {
  kind: "error";
  status: number;
  message?: string;
  /** Seconds, sent as the Retry-After header. */
  retryAfter?: number;
}

/** Never answers; ends only when the client aborts. */
export interface ScriptedHangReply {
  kind: "hang";
}

/**
 * Answers with exactly this body: what a broken proxy or a chaos mock sends, e.g. a 200 whose
 * body is `{malformed json: <<<chaos>>>` instead of an event stream, or an empty one.
 */
export interface ScriptedRawReply {
  kind: "raw";
  body: string;
  /** Default 200. */
  status?: number;
  /** Default application/json. */
  contentType?: string;
}

export type ScriptedReply = ScriptedTextReply | ScriptedErrorReply | ScriptedHangReply | ScriptedRawReply;
export type ScriptHandler = (request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>;

export interface ScriptedServer {
  /** Base URL to give the SDK, ending in /v1. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Connections accepted so far (over TLS: handshakes completed). */
  readonly connections: number;
  close(): Promise<void>;
}

/** A handler that answers requests in order from a list; past its end it answers with an error. */
export function sequence(replies: ScriptedReply[]): ScriptHandler {
  let next = 0;
  return () =>
    replies[next++] ?? { kind: "error", status: 500, message: `script exhausted after ${replies.length} replies` };
}

export async function startScriptedServer(
  script: ScriptHandler | ScriptedReply[],
  options: { port?: number; host?: string; tls?: LoopbackTls } = {},
): Promise<ScriptedServer> {
  const handler = Array.isArray(script) ? sequence(script) : script;
  const requests: RecordedRequest[] = [];
  let server: LoopbackServer | undefined;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const arrivedHr = performance.now();
    const url = req.url ?? "/";
    if (req.method === "GET" && url.endsWith("/models")) {
      sendJson(res, 200, { object: "list", data: [{ id: "scripted", object: "model", owned_by: "orca" }] });
      return;
    }
    if (req.method !== "POST" || !url.endsWith("/chat/completions")) {
      sendJson(res, 404, { error: { message: `no route ${req.method} ${url}`, type: "not_found" } });
      return;
    }
    let body: WireRequestBody;
    try {
      body = JSON.parse(await readBody(req)) as WireRequestBody;
    } catch {
      sendJson(res, 400, { error: { message: "request body is not JSON", type: "invalid_request_error" } });
      return;
    }
    const recorded = record(requests, { index: requests.length, body, headers: req.headers, receivedAt: Date.now(), arrivedHr, connection: server?.connectionOf(req.socket) ?? -1 }, res);
    const reply = await askScript(handler, recorded);
    if (reply.kind === "hang") return;
    if (reply.kind === "raw") {
      res.writeHead(reply.status ?? 200, { "content-type": reply.contentType ?? "application/json" });
      res.end(reply.body);
      return;
    }
    if (reply.kind === "error") {
      const headers: Record<string, string> = {};
      if (reply.retryAfter !== undefined) headers["retry-after"] = String(reply.retryAfter);
      sendJson(res, reply.status, { error: { message: reply.message ?? `scripted ${reply.status}`, type: "scripted" } }, headers);
      return;
    }
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed) return;
    if (body.stream === false) {
      sendJson(res, 200, wholeCompletion(body, reply));
      return;
    }
    await streamReply(res, body, reply);
  }

  const listening = await listenLoopback(handle, options);
  server = listening;
  return {
    url: `${listening.origin}/v1`,
    requests,
    get connections() {
      return listening.connections;
    },
    close: listening.close,
  };
}

async function streamReply(res: http.ServerResponse, body: WireRequestBody, reply: ScriptedTextReply): Promise<void> {
  const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model: body.model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  const chunks: unknown[] = [chunk({ role: "assistant", content: "" })];
  const size = Math.max(1, reply.chunkChars ?? 12);
  for (const piece of split(reply.thinking ?? "", size)) chunks.push(chunk({ reasoning_content: piece }));
  for (const piece of split(reply.text ?? "", size)) chunks.push(chunk({ content: piece }));

  const calls = (reply.toolCalls ?? []).map((call, index) => {
    const raw = call.rawArgs ?? JSON.stringify(call.args ?? {});
    const callId = call.id ?? `call_${Math.random().toString(36).slice(2, 10)}`;
    const pieces = split(raw, Math.max(1, reply.argChunkChars ?? size));
    const fragments: Record<string, unknown>[] = [
      { index, id: callId, type: "function", function: { name: call.name, arguments: pieces[0] ?? "" } },
      ...pieces.slice(1).map((piece) => ({ index, function: { arguments: piece } })),
    ];
    return fragments;
  });
  if (reply.interleave) {
    const longest = Math.max(0, ...calls.map((c) => c.length));
    for (let i = 0; i < longest; i++) {
      for (const fragments of calls) if (fragments[i]) chunks.push(chunk({ tool_calls: [fragments[i]] }));
    }
  } else {
    for (const fragments of calls) for (const fragment of fragments) chunks.push(chunk({ tool_calls: [fragment] }));
  }
  if (!reply.omitFinishReason) {
    chunks.push(chunk({}, reply.finishReason ?? (calls.length ? "tool_calls" : "stop")));
  }
  if (body.stream_options?.include_usage && !reply.omitUsage) {
    const usage = reply.usage ?? estimateUsage(body, reply);
    chunks.push({
      id,
      object: "chat.completion.chunk",
      created,
      model: body.model,
      choices: [],
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        total_tokens: usage.prompt + usage.completion,
        prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
      },
    });
  }

  const frames = chunks.map((data) => `data: ${JSON.stringify(data)}\n\n`);
  await writeEventStream(res, frames, reply, "data: [DONE]\n\n");
}

function wholeCompletion(body: WireRequestBody, reply: ScriptedTextReply): Record<string, unknown> {
  const toolCalls = (reply.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${i}`,
    type: "function",
    function: { name: call.name, arguments: call.rawArgs ?? JSON.stringify(call.args ?? {}) },
  }));
  const usage = reply.usage ?? estimateUsage(body, reply);
  return {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: reply.text ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
        finish_reason: reply.finishReason ?? (toolCalls.length ? "tool_calls" : "stop"),
      },
    ],
    usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion },
  };
}

/** About four characters a token: good enough for a scripted model's usage report. */
function estimateUsage(body: WireRequestBody, reply: ScriptedTextReply): { prompt: number; completion: number; cached?: number } {
  const promptChars = JSON.stringify(body.messages).length + JSON.stringify(body.tools ?? []).length;
  const completionChars =
    (reply.text ?? "").length + (reply.toolCalls ?? []).reduce((n, c) => n + (c.rawArgs ?? JSON.stringify(c.args ?? {})).length, 0);
  return { prompt: Math.ceil(promptChars / 4), completion: Math.ceil(completionChars / 4) };
}

/** Helpers for script handlers that route on what the request contains. */
export function systemPrompt(request: RecordedRequest): string {
  const first = request.body.messages[0];
  return first?.role === "system" ? (first.content ?? "") : "";
}

export function lastMessage(request: RecordedRequest): WireMessage | undefined {
  return request.body.messages[request.body.messages.length - 1];
}

export function toolNames(request: RecordedRequest): string[] {
  return (request.body.tools ?? []).map((t) => t.function.name);
}
