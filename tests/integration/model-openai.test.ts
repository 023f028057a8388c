import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ChatMessage, ModelEvent, ModelRequest } from "../../src/model/model.js";
import { ModelError } from "../../src/util/errors.js";
import { OpenAIModel, type OpenAIModelOptions } from "../../src/model/openai.js";
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from "../../src/model/scripted.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(replies: ScriptedReply[], options: Partial<OpenAIModelOptions> = {}) {
  server = await startScriptedServer(replies);
  const model = new OpenAIModel({ name: "test-model", baseURL: server.url, maxRetries: 0, ...options });
  return { server, model };
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { model: "test-model", messages: [{ role: "user", content: "hi" }], tools: [], ...overrides };
}

async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Runs the stream to its end; returns what was yielded and what it threw. */
async function collectUntilError(stream: AsyncIterable<ModelEvent>): Promise<{ events: ModelEvent[]; error: unknown }> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events, error: undefined };
}

const texts = (events: ModelEvent[], type: "text" | "thinking" = "text") =>
  events.flatMap((e) => (e.type === type ? [e.text] : [])).join("");
const toolCalls = (events: ModelEvent[]) => events.filter((e) => e.type === "tool_call");

describe("OpenAIModel over the real SDK and HTTP", () => {
  it("streams plain text and ends with exactly one done", async () => {
    const { model, server } = await setup([{ text: "Hello from the scripted model.", chunkChars: 5 }]);
    const events = await collect(model.stream(request(), new AbortController().signal));
    expect(texts(events)).toBe("Hello from the scripted model.");
    expect(events.filter((e) => e.type === "text").length).toBeGreaterThan(1);
    expect(events.filter((e) => e.type === "done")).toEqual([{ type: "done", finishReason: "stop" }]);
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "stop" });

    const body = server.requests[0]!.body;
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.model).toBe("test-model");
    expect("tools" in body).toBe(false);
  });

  it("sends tools as function tools, temperature and max_tokens for a non-OpenAI endpoint", async () => {
    const { model, server } = await setup([{ text: "ok" }], { temperature: 0.2, maxOutputTokens: 321 });
    const parameters = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
    await collect(model.stream(request({ tools: [{ name: "read_file", description: "Read a file", parameters }] }), new AbortController().signal));
    const body = server.requests[0]!.body;
    expect(body.tools).toEqual([{ type: "function", function: { name: "read_file", description: "Read a file", parameters } }]);
    expect(body.temperature).toBe(0.2);
    expect(body.max_tokens).toBe(321);
    expect(body.max_completion_tokens).toBeUndefined();
  });

  it("sends the history in wire form: tool calls with their raw arguments, tool results by id", async () => {
    const { model, server } = await setup([{ text: "done" }]);
    const messages: ChatMessage[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "task" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "call_1", name: "read_file", raw: '{"path":"a.ts"}', args: { path: "a.ts" } },
          { id: "call_2", name: "grep", raw: '{"q": "x"', parseError: "Unexpected end of JSON input" },
        ],
      },
      { role: "tool", toolCallId: "call_1", content: "file text" },
      { role: "tool", toolCallId: "call_2", content: "error: bad JSON" },
    ];
    await collect(model.stream(request({ messages }), new AbortController().signal));
    expect(server.requests[0]!.body.messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "task" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } },
          { id: "call_2", type: "function", function: { name: "grep", arguments: '{"q": "x"' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "file text" },
      { role: "tool", tool_call_id: "call_2", content: "error: bad JSON" },
    ]);
  });

  it("assembles a tool call sent in one-character fragments", async () => {
    const args = { path: "src/ü/naïve.ts", options: { lines: [1, 2, 3], deep: { ok: true, none: null } }, note: "日本語 🎉" };
    const { model } = await setup([{ toolCalls: [{ id: "call_a", name: "read_file", args }], chunkChars: 1 }]);
    const events = await collect(model.stream(request(), new AbortController().signal));
    expect(toolCalls(events)).toEqual([{ type: "tool_call", id: "call_a", name: "read_file", raw: JSON.stringify(args), args }]);
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "tool_calls" });
  });

  it("assembles interleaved parallel tool calls by index and emits them in index order", async () => {
    const calls = [
      { id: "c0", name: "read_file", args: { path: "a.ts" } },
      { id: "c1", name: "grep", args: { pattern: "foo.*bar", path: "src" } },
      { id: "c2", name: "list_dir", args: { path: "." } },
    ];
    const { model } = await setup([{ toolCalls: calls, interleave: true, chunkChars: 2 }]);
    const events = await collect(model.stream(request(), new AbortController().signal));
    expect(toolCalls(events)).toEqual(
      calls.map((c) => ({ type: "tool_call", id: c.id, name: c.name, raw: JSON.stringify(c.args), args: c.args })),
    );
    // Tool calls come whole, after every text event, before usage and done.
    const kinds = events.map((e) => e.type);
    expect(kinds.slice(-5)).toEqual(["tool_call", "tool_call", "tool_call", "usage", "done"]);
  });

  it("reports usage, with cached tokens", async () => {
    const { model } = await setup([{ text: "x", usage: { prompt: 1200, completion: 34, cached: 1000 } }]);
    const events = await collect(model.stream(request(), new AbortController().signal));
    expect(events.filter((e) => e.type === "usage")).toEqual([{ type: "usage", input: 1200, output: 34, cached: 1000 }]);
  });

  it("turns reasoning_content into thinking events", async () => {
    const { model } = await setup([{ thinking: "First, look at the file.", text: "Answer.", chunkChars: 4 }]);
    const events = await collect(model.stream(request(), new AbortController().signal));
    expect(texts(events, "thinking")).toBe("First, look at the file.");
    expect(texts(events)).toBe("Answer.");
    expect(events.findIndex((e) => e.type === "thinking")).toBeLessThan(events.findIndex((e) => e.type === "text"));
  });

  it("keeps malformed arguments raw with a parseError and no args", async () => {
    const { model } = await setup([{ toolCalls: [{ id: "bad", name: "read_file", rawArgs: '{"path": "a.ts"' }] }]);
    const events = await collect(model.stream(request(), new AbortController().signal));
    const [call] = toolCalls(events);
    expect(call).toMatchObject({ id: "bad", name: "read_file", raw: '{"path": "a.ts"' });
    expect(call).not.toHaveProperty("args");
    expect(call && "parseError" in call && typeof call.parseError === "string" && call.parseError.length > 0).toBe(true);
  });

  it("gives {} for an empty argument string only", async () => {
    const { model } = await setup([{ toolCalls: [{ id: "e", name: "list_dir", rawArgs: "" }] }]);
    const events = await collect(model.stream(request(), new AbortController().signal));
    expect(toolCalls(events)).toEqual([{ type: "tool_call", id: "e", name: "list_dir", raw: "", args: {} }]);
  });

  it("retries a 429 after its Retry-After, then succeeds", async () => {
    const { model, server } = await setup([{ kind: "error", status: 429, retryAfter: 1 }, { text: "after the wait" }], { maxRetries: 3 });
    const events = await collect(model.stream(request(), new AbortController().signal));
    expect(texts(events)).toBe("after the wait");
    expect(server.requests).toHaveLength(2);
    // A lower bound only: the SDK must have waited the second it was told to.
    expect(server.requests[1]!.receivedAt - server.requests[0]!.receivedAt).toBeGreaterThanOrEqual(950);
  });

  it("gives up on 500 after maxRetries+1 requests with a one-line server error", async () => {
    const { model, server } = await setup(
      [
        { kind: "error", status: 500 },
        { kind: "error", status: 500 },
        { kind: "error", status: 500 },
      ],
      { maxRetries: 2 },
    );
    const { events, error } = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(ModelError);
    const e = error as ModelError;
    expect(e.kind).toBe("server");
    expect(e.status).toBe(500);
    expect(e.message).toContain(`model request failed: 500 Internal Server Error from ${server.url} (after 3 attempts)`);
    expect(e.message).not.toContain("\n");
    expect(server.requests).toHaveLength(3);
  });

  it("turns a socket cut mid-stream into a connection error and never retries it", async () => {
    const { model, server } = await setup([{ text: "a long answer that will not arrive whole", chunkChars: 3, cutAfterChunks: 4 }, { text: "retry!" }], {
      maxRetries: 3,
    });
    const { events, error } = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect(texts(events).length).toBeGreaterThan(0);
    expect(events.some((e) => e.type === "done")).toBe(false);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).kind).toBe("connection");
    expect((error as ModelError).message).toContain(server.url);
    expect(server.requests).toHaveLength(1);
  });

  it("treats a stream without finish_reason as truncated", async () => {
    const { model } = await setup([{ text: "partial", omitFinishReason: true }]);
    const { events, error } = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect(texts(events)).toBe("partial");
    expect(events.some((e) => e.type === "done")).toBe(false);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).kind).toBe("truncated");
    expect((error as ModelError).message).toBe("the model's response was cut off (no finish_reason)");
  });

  it("throws aborted when the signal fires mid-stream, and closes the connection", async () => {
    const text = "x".repeat(200);
    const { model, server } = await setup([{ text, chunkChars: 1, chunkDelayMs: 50 }]);
    const controller = new AbortController();
    const events: ModelEvent[] = [];
    let error: unknown;
    try {
      for await (const event of model.stream(request(), controller.signal)) {
        events.push(event);
        if (event.type === "text") controller.abort();
      }
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).kind).toBe("aborted");
    expect((error as ModelError).message).toBe("cancelled");
    expect(texts(events).length).toBeLessThan(text.length);
    await vi.waitFor(() => expect(server.requests[0]!.finishedAt).toBeDefined());
  });

  it("throws aborted at once when the signal fires during a retry wait", { timeout: 20_000 }, async () => {
    // Retry-After of 60 s: without racing the abort, the cancel would wait for it.
    const { model, server } = await setup([{ kind: "error", status: 429, retryAfter: 60 }, { text: "too late" }], { maxRetries: 3 });
    const controller = new AbortController();
    const pending = collectUntilError(model.stream(request(), controller.signal));
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    controller.abort();
    const { events, error } = await pending;
    expect(events).toEqual([]);
    expect((error as ModelError).kind).toBe("aborted");
    expect(server.requests).toHaveLength(1);
  });

  it("throws aborted without a request when the signal is already aborted", async () => {
    const { model, server } = await setup([{ text: "never" }]);
    const controller = new AbortController();
    controller.abort();
    const { error } = await collectUntilError(model.stream(request(), controller.signal));
    expect((error as ModelError).kind).toBe("aborted");
    expect(server.requests).toHaveLength(0);
  });

  it("releases the connection when the consumer stops early", async () => {
    const { model, server } = await setup([{ text: "y".repeat(100), chunkChars: 1, chunkDelayMs: 50 }]);
    for await (const event of model.stream(request(), new AbortController().signal)) {
      if (event.type === "text") break;
    }
    await vi.waitFor(() => expect(server.requests[0]!.finishedAt).toBeDefined());
  });

  it("reports 401 as an auth error, without retrying and without the key", async () => {
    const apiKey = "sk-test-SECRET-1234567890";
    const { model, server } = await setup([{ kind: "error", status: 401, message: `Incorrect API key provided: ${apiKey}` }], {
      apiKey,
      maxRetries: 3,
    });
    const { error } = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect(error).toBeInstanceOf(ModelError);
    const e = error as ModelError;
    expect(e.kind).toBe("auth");
    expect(e.status).toBe(401);
    expect(e.message).toContain("authentication failed (401): check OPENAI_API_KEY");
    expect(e.message).not.toContain(apiKey);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${apiKey}`);
  });

  it("reports 404 as the model not found at the base URL", async () => {
    const { model, server } = await setup([{ kind: "error", status: 404, message: "The model `nope` does not exist" }]);
    const { error } = await collectUntilError(model.stream(request({ model: "nope" }), new AbortController().signal));
    expect((error as ModelError).kind).toBe("not_found");
    expect((error as ModelError).message).toContain(`model "nope" not found at ${server.url}`);
  });

  it("reports 400 as a rejected request with the server's reason", async () => {
    const { model } = await setup([{ kind: "error", status: 400, message: "maximum context length exceeded" }], { maxRetries: 3 });
    const { error } = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect((error as ModelError).kind).toBe("bad_request");
    expect((error as ModelError).message).toContain("maximum context length exceeded");
    expect(server!.requests).toHaveLength(1);
  });

  it("works against a keyless local endpoint with a placeholder key", async () => {
    const { model, server } = await setup([{ text: "local" }], { apiKey: undefined });
    const events = await collect(model.stream(request(), new AbortController().signal));
    expect(texts(events)).toBe("local");
    expect(server.requests[0]!.headers.authorization).toMatch(/^Bearer \S+$/);
  });

  it("times out a request whose response never starts", async () => {
    const { model } = await setup([{ kind: "hang" }], { timeoutMs: 300 });
    const { error } = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect((error as ModelError).kind).toBe("timeout");
    expect((error as ModelError).message).toContain("timed out");
  });

  it("times out a stream that falls silent mid-response", async () => {
    const { model } = await setup([{ text: "slow text", chunkChars: 1, chunkDelayMs: 5_000 }], { timeoutMs: 300 });
    const { events, error } = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect(events.some((e) => e.type === "done")).toBe(false);
    expect((error as ModelError).kind).toBe("timeout");
    expect((error as ModelError).message).toContain("sent nothing");
  });

  it("reports an error event inside the stream as a server error", async () => {
    // OpenRouter and vLLM send `data: {"error": …}` after a 200; the scripted server cannot.
    const raw = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "par" }, finish_reason: null }] })}\n\n`);
        res.end(`data: ${JSON.stringify({ error: { message: "upstream overloaded", code: 502 } })}\n\n`);
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
    try {
      const model = new OpenAIModel({ name: "m", baseURL: `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`, maxRetries: 0 });
      const { events, error } = await collectUntilError(model.stream(request(), new AbortController().signal));
      expect(texts(events)).toBe("par");
      expect((error as ModelError).kind).toBe("server");
      expect((error as ModelError).message).toContain("upstream overloaded");
    } finally {
      raw.closeAllConnections();
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    }
  });

  it("serves concurrent streams from one model, each with its own answer", async () => {
    server = await startScriptedServer((req) => {
      const last = req.body.messages.at(-1)?.content ?? "";
      return { text: `answer to ${last}`, chunkChars: 2, chunkDelayMs: 5 };
    });
    const model = new OpenAIModel({ name: "m", baseURL: server.url, maxRetries: 0 });
    const asks = ["one", "two", "three"];
    const results = await Promise.all(
      asks.map(async (ask) => texts(await collect(model.stream(request({ messages: [{ role: "user", content: ask }] }), new AbortController().signal)))),
    );
    expect(results).toEqual(asks.map((ask) => `answer to ${ask}`));
  });

  it("says so when there is no API key for OpenAI itself, before any request", async () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    try {
      const model = new OpenAIModel({ name: "gpt-4o" });
      const { error } = await collectUntilError(model.stream(request(), new AbortController().signal));
      expect((error as ModelError).kind).toBe("auth");
      expect((error as ModelError).message).toContain("OPENAI_API_KEY");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("follows an endpoint that redirects (307 and 308), sending the same body again", async () => {
    // Requests go out with redirects refused, so that fetch does not copy every body for a redirect
    // (byte-body.ts); one that does come is followed by sending again. Node 20's fetch could not
    // re-send a body given as bytes after a redirect at all.
    for (const status of [307, 308]) {
      const { server } = await setup([{ text: "moved" }]);
      const redirector = http.createServer((req, res) => {
        req.resume();
        req.on("end", () => {
          res.writeHead(status, { location: `${new URL(server.url).origin}${req.url}` });
          res.end();
        });
      });
      await new Promise<void>((resolve) => redirector.listen(0, "127.0.0.1", resolve));
      try {
        const model = new OpenAIModel({ name: "test-model", baseURL: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/v1`, maxRetries: 0 });
        const messages: ChatMessage[] = [{ role: "user", content: "über ✓ 🙂" }];
        const events = await collect(model.stream(request({ messages }), new AbortController().signal));
        expect(texts(events)).toBe("moved");
        expect(server.requests).toHaveLength(1);
        expect(server.requests[0]!.body.messages).toEqual([{ role: "user", content: "über ✓ 🙂" }]);
      } finally {
        await new Promise<void>((resolve) => redirector.close(() => resolve()));
        await server.close();
      }
    }
  });

  it("sends the body with its length, not chunked, and each request of a growing history whole", async () => {
    const { model, server } = await setup([{ text: "one" }, { text: "two" }]);
    const history: ChatMessage[] = [{ role: "user", content: "first ✓" }];
    await collect(model.stream(request({ messages: history }), new AbortController().signal));
    history.push({ role: "assistant", content: "one", toolCalls: [] }, { role: "user", content: "second 🙂" });
    await collect(model.stream(request({ messages: history }), new AbortController().signal));
    for (const [i, seen] of server.requests.entries()) {
      expect(seen.headers["transfer-encoding"]).toBeUndefined();
      expect(Number(seen.headers["content-length"])).toBe(Buffer.byteLength(JSON.stringify(seen.body)));
      expect(seen.body.messages).toHaveLength(i === 0 ? 1 : 3);
    }
    expect(server.requests[1]!.body.messages.at(-1)).toEqual({ role: "user", content: "second 🙂" });
  });

  it("a retry after an answer that came before the body was read, and the next request of that history, send the body whole", async () => {
    // A large body, a server that refuses it without reading it (the write is cut mid-way), then
    // takes the retry: the bytes fetch was still sending belong to the history's buffer, which the
    // next request writes over, so they must be the same whole bytes every time.
    const bodies: string[] = [];
    let refused = false;
    const sse = (text: string) =>
      `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n` +
      `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`;
    const early = http.createServer((req, res) => {
      if (!refused) {
        refused = true;
        res.writeHead(429, { "retry-after-ms": "10", "content-type": "application/json", connection: "close" });
        res.end(JSON.stringify({ error: { message: "slow down" } }));
        return;
      }
      const parts: Buffer[] = [];
      req.on("data", (d: Buffer) => parts.push(d));
      req.on("end", () => {
        bodies.push(Buffer.concat(parts).toString("utf8"));
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(sse(`answer ${bodies.length}`));
      });
    });
    await new Promise<void>((resolve) => early.listen(0, "127.0.0.1", resolve));
    try {
      const model = new OpenAIModel({ name: "m", baseURL: `http://127.0.0.1:${(early.address() as AddressInfo).port}/v1`, maxRetries: 2 });
      const big = "x".repeat(4 * 1024 * 1024);
      const history: ChatMessage[] = [{ role: "user", content: big }];
      expect(texts(await collect(model.stream(request({ messages: history }), new AbortController().signal)))).toBe("answer 1");
      history.splice(0, 1, { role: "user", content: "y".repeat(big.length) }, { role: "assistant", content: "answer 1", toolCalls: [] });
      expect(texts(await collect(model.stream(request({ messages: history }), new AbortController().signal)))).toBe("answer 2");
      expect(JSON.parse(bodies[0]!).messages).toEqual([{ role: "user", content: big }]);
      expect(JSON.parse(bodies[1]!).messages).toEqual([{ role: "user", content: "y".repeat(big.length) }, { role: "assistant", content: "answer 1" }]);
    } finally {
      await new Promise<void>((resolve) => early.close(() => resolve()));
    }
  });

  it("reports an unreachable endpoint as a connection error", async () => {
    // A port that was just free: nothing listens there.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const model = new OpenAIModel({ name: "m", baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    const { error } = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect((error as ModelError).kind).toBe("connection");
    expect((error as ModelError).message).toContain(`127.0.0.1:${port}`);
    expect((error as ModelError).message).toContain("ECONNREFUSED");
  });
});
