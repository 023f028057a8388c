import { afterEach, describe, expect, it, vi } from "vitest";
import { AnthropicModel, type AnthropicModelOptions } from "../../src/model/anthropic.js";
import { type ModelEvent, type ModelRequest } from "../../src/model/model.js";
import { ModelError } from "../../src/util/errors.js";
import {
  startScriptedAnthropicServer,
  type ScriptedAnthropicReply,
  type ScriptedAnthropicServer,
} from "../../src/model/scripted-anthropic.js";

let server: ScriptedAnthropicServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(replies: ScriptedAnthropicReply[], options: Partial<AnthropicModelOptions> = {}) {
  server = await startScriptedAnthropicServer(replies);
  const model = new AnthropicModel({ name: "claude-test", baseURL: server.url, apiKey: "test-key-123456", maxRetries: 0, ...options });
  return { server, model };
}

const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({ model: "claude-test", messages: [{ role: "user", content: "hi" }], tools: [], ...overrides });

async function collectUntilError(stream: AsyncIterable<ModelEvent>): Promise<{ events: ModelEvent[]; error: unknown }> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events, error: undefined };
}

const texts = (events: ModelEvent[]) => events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("");

describe("AnthropicModel over the real SDK and HTTP", () => {
  it("continues a paused turn with what it said so far, and reports one answer", async () => {
    const { model, server } = await setup([
      { text: "Searching", stopReason: "pause_turn", usage: { prompt: 10, completion: 2 } },
      { text: " — found it.", toolCalls: [{ id: "toolu_1", name: "read_file", args: { path: "x" } }], usage: { prompt: 12, completion: 3, cached: 8 } },
    ]);
    const { events, error } = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect(error).toBeUndefined();
    expect(texts(events)).toBe("Searching — found it.");
    expect(events.filter((e) => e.type === "tool_call")).toEqual([{ type: "tool_call", id: "toolu_1", name: "read_file", raw: '{"path":"x"}', args: { path: "x" } }]);
    // Both parts are billed.
    expect(events.filter((e) => e.type === "usage")).toEqual([{ type: "usage", input: 30, output: 5, cached: 8, cacheWrite: 0 }]);
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "tool_use" });
    expect(server.requests).toHaveLength(2);
    const continued = server.requests[1]!.anthropic.messages;
    expect(continued.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "Searching" }] });
    expect(continued.slice(0, -1)).toEqual(server.requests[0]!.anthropic.messages);
  });

  it("reports an error event inside the stream (overloaded) as a server error, never retried", async () => {
    const { model, server } = await setup([{ text: "partial answer", errorAfterEvents: 5 }, { text: "never" }], { maxRetries: 2 });
    const { events, error } = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect(events.some((e) => e.type === "done")).toBe(false);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).kind).toBe("server");
    expect((error as ModelError).message).toBe("the model endpoint reported an error mid-response: Overloaded");
    expect(server.requests).toHaveLength(1);
  });

  it("retries 529 (overloaded) before the response, then succeeds", async () => {
    const { model, server } = await setup([{ kind: "error", status: 529, retryAfter: 0.01 }, { text: "ok" }], { maxRetries: 1 });
    const { events, error } = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect(error).toBeUndefined();
    expect(texts(events)).toBe("ok");
    expect(server.requests).toHaveLength(2);
  });

  it("throws aborted when the signal fires mid-stream, and closes the connection", async () => {
    const { model, server } = await setup([{ text: "x".repeat(200), chunkChars: 1, chunkDelayMs: 50 }]);
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
    expect((error as ModelError).kind).toBe("aborted");
    expect(texts(events).length).toBeLessThan(200);
    await vi.waitFor(() => expect(server.requests[0]!.finishedAt).toBeDefined());
  });

  it("throws aborted at once when the signal fires during a Retry-After wait", { timeout: 20_000 }, async () => {
    const { model, server } = await setup([{ kind: "error", status: 429, retryAfter: 60 }, { text: "too late" }], { maxRetries: 3 });
    const controller = new AbortController();
    const pending = collectUntilError(model.stream(request(), controller.signal));
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    controller.abort();
    const { error } = await pending;
    expect((error as ModelError).kind).toBe("aborted");
    expect(server.requests).toHaveLength(1);
  });

  it("times out a stream that falls silent mid-response", async () => {
    const { model } = await setup([{ text: "slow text", chunkChars: 1, chunkDelayMs: 5_000 }], { timeoutMs: 300 });
    const { error } = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect((error as ModelError).kind).toBe("timeout");
    expect((error as ModelError).message).toContain("sent nothing");
  });

  it("reports 401 as an auth error naming where the key comes from, without the key", async () => {
    const { model } = await setup([{ kind: "error", status: 401, message: "invalid x-api-key test-key-123456" }], { provider: "claude" });
    const { error } = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect((error as ModelError).kind).toBe("auth");
    expect((error as ModelError).message).toMatch(/^authentication failed \(401\) at http:\/\/127\.0\.0\.1:\d+: check ANTHROPIC_API_KEY or providers\.claude\.api_key$/);
  });

  it("reports 400 with the server's reason, and 404 as the model not found", async () => {
    const { model } = await setup([
      { kind: "error", status: 400, message: "messages.1: bad block" },
      { kind: "error", status: 404, message: "model: claude-test" },
    ]);
    const first = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect((first.error as ModelError).message).toMatch(/^model request rejected \(400\) by http:\/\/127\.0\.0\.1:\d+: messages\.1: bad block$/);
    const second = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect((second.error as ModelError).kind).toBe("not_found");
  });

  it("sends no key to a keyless local server but a placeholder, and says so when the vendor's needs one", async () => {
    const { model, server } = await setup([{ text: "local" }], { apiKey: undefined });
    const { events } = await collectUntilError(model.stream(request(), new AbortController().signal));
    expect(texts(events)).toBe("local");
    expect(server.requests[0]!.headers.authorization).toBe("Bearer orca-no-key");
    const vendor = new AnthropicModel({ name: "claude-test", provider: "claude" });
    const { error } = await collectUntilError(vendor.stream(request(), new AbortController().signal));
    expect((error as ModelError).message).toBe("no API key: set ANTHROPIC_API_KEY or providers.claude.api_key in the config");
  });

  it("leaves the cache alone when prompt_cache is off, and sends adaptive thinking as configured", async () => {
    const { model, server } = await setup([{ text: "ok" }], { promptCache: false, thinking: "adaptive" });
    await collectUntilError(model.stream(request({ messages: [{ role: "system", content: "sys" }, { role: "user", content: "hi" }] }), new AbortController().signal));
    const body = server.requests[0]!.anthropic;
    expect(JSON.stringify(body)).not.toContain("cache_control");
    expect(body.thinking).toEqual({ type: "adaptive" });
    expect(body).not.toHaveProperty("temperature");
  });

  it("finishes a tool round begun without thinking (another provider's history) with thinking off, as the API requires", async () => {
    const { model, server } = await setup([{ text: "done" }, { text: "done again" }], { thinking: 1024 });
    const round = (thinking?: boolean): ModelRequest["messages"] => [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_1", name: "read_file", raw: "{}", args: {} }],
        ...(thinking ? { thinking: [{ text: "plan", signature: "sig", model: "claude-test" }] } : {}),
      },
      { role: "tool", toolCallId: "call_1", content: "result" },
    ];
    await collectUntilError(model.stream(request({ messages: round(false) }), new AbortController().signal));
    await collectUntilError(model.stream(request({ messages: round(true) }), new AbortController().signal));
    expect(server.requests[0]!.anthropic).not.toHaveProperty("thinking");
    expect(server.requests[1]!.anthropic.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
  });

  it("sends a thinking budget only with room for it: a request capped below it (a summary) goes without", async () => {
    const { model, server } = await setup([{ text: "summary" }, { text: "answer" }], { thinking: 2048 });
    await collectUntilError(model.stream(request({ maxOutputTokens: 1500 }), new AbortController().signal));
    await collectUntilError(model.stream(request(), new AbortController().signal));
    expect(server.requests[0]!.anthropic).toMatchObject({ max_tokens: 1500 });
    expect(server.requests[0]!.anthropic).not.toHaveProperty("thinking");
    expect(server.requests[1]!.anthropic).toMatchObject({ max_tokens: 8192 + 2048, thinking: { type: "enabled", budget_tokens: 2048 } });
  });
});
