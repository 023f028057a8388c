import { afterEach, describe, expect, it, vi } from "vitest";
import type { ModelEvent, ModelRequest } from "../../src/model/model.js";
import { ModelError } from "../../src/util/errors.js";
import { OpenAIModel, type OpenAIModelOptions } from "../../src/model/openai.js";
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from "../../src/model/scripted.js";

/**
 * A 200 that carries nothing: a body that is not an event stream, an empty one, or an event
 * stream without one parseable chunk. Nothing reached the caller, so it is retried like a 5xx;
 * if it persists, the error says what came back. Real SDK, real HTTP.
 */

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(replies: ScriptedReply[], options: Partial<OpenAIModelOptions> = {}) {
  server = await startScriptedServer(replies);
  const model = new OpenAIModel({ name: "test-model", baseURL: server.url, maxRetries: 2, ...options });
  return { server, model };
}

const request = (): ModelRequest => ({ model: "test-model", messages: [{ role: "user", content: "hi" }], tools: [] });

async function run(model: OpenAIModel, signal = new AbortController().signal): Promise<{ events: ModelEvent[]; error: unknown }> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of model.stream(request(), signal)) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events, error: undefined };
}

const texts = (events: ModelEvent[]) => events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("");
const CHAOS = "{malformed json: <<<chaos>>>";
const malformed: ScriptedReply = { kind: "raw", body: CHAOS };

describe("an answer that carries nothing", () => {
  it("a 200 that is not an event stream is retried, then the answer gets through", async () => {
    const { model, server } = await setup([malformed, malformed, { text: "third time lucky" }]);
    const { events, error } = await run(model);
    expect(error).toBeUndefined();
    expect(texts(events)).toBe("third time lucky");
    expect(events.at(-1)).toEqual({ type: "done", finishReason: "stop" });
    expect(server.requests).toHaveLength(3);
    // The same request each time: a retry, not a new turn.
    expect(server.requests[2]!.body.messages).toEqual(server.requests[0]!.body.messages);
  });

  it("persisting: one server error after maxRetries+1 attempts, quoting what came back", async () => {
    const { model, server } = await setup([malformed, malformed, malformed, { text: "never" }]);
    const { events, error } = await run(model);
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(ModelError);
    const e = error as ModelError;
    expect(e.kind).toBe("server");
    expect(e.message).toBe(`model request failed: not an event stream from ${server.url} (after 3 attempts): ${JSON.stringify(CHAOS)}`);
    expect(server.requests).toHaveLength(3);
  });

  it("maxRetries 0: one attempt, and the same message", async () => {
    const { model, server } = await setup([malformed, { text: "never" }], { maxRetries: 0 });
    const { error } = await run(model);
    expect((error as ModelError).message).toBe(`model request failed: not an event stream from ${server.url}: ${JSON.stringify(CHAOS)}`);
    expect(server.requests).toHaveLength(1);
  });

  it("a long body is quoted cut short, on one line", async () => {
    const page = `<!DOCTYPE html>\n<html><body>${"<p>gateway says hello</p>\n".repeat(100)}</body></html>`;
    const { model } = await setup([{ kind: "raw", body: page, contentType: "text/html" }], { maxRetries: 0 });
    const { error } = await run(model);
    const message = (error as ModelError).message;
    expect(message).toContain(': "<!DOCTYPE html>\\n<html><body><p>gateway says hello</p>');
    expect(message).toMatch(/…"$/);
    expect(message).not.toContain("\n");
    expect(message.length).toBeLessThan(250);
  });

  it("an empty body, and an event stream with nothing but comments, say so", async () => {
    const empty = await setup([{ kind: "raw", body: "" }], { maxRetries: 0 });
    expect(((await run(empty.model)).error as ModelError).message).toBe(`model request failed: an empty response from ${empty.server.url}`);
    await empty.server.close();

    const comments = await setup([{ kind: "raw", body: ": keep-alive\n\ndata: [DONE]\n\n", contentType: "text/event-stream" }], { maxRetries: 0 });
    expect(((await run(comments.model)).error as ModelError).message).toBe(
      `model request failed: an event stream with no parseable chunk from ${comments.server.url}: ${JSON.stringify(": keep-alive\n\ndata: [DONE]")}`,
    );
  });

  it("a first event that is not JSON is retried too, then named", async () => {
    const broken: ScriptedReply = { kind: "raw", body: "data: {not json\n\n", contentType: "text/event-stream" };
    const recovered = await setup([broken, { text: "fine now" }]);
    expect(texts((await run(recovered.model)).events)).toBe("fine now");
    expect(recovered.server.requests).toHaveLength(2);
    await recovered.server.close();

    const { model, server } = await setup([broken, broken, broken]);
    const { error } = await run(model);
    expect((error as ModelError).kind).toBe("server");
    expect((error as ModelError).message).toBe(
      `model request failed: an event stream with no parseable chunk from ${server.url} (after 3 attempts): ${JSON.stringify("data: {not json")}`,
    );
  });

  it("one retry budget: a 500 and then garbage use the same maxRetries", async () => {
    const { model, server } = await setup([{ kind: "error", status: 500 }, malformed, malformed, { text: "too late" }]);
    const { error } = await run(model);
    expect((error as ModelError).message).toContain("not an event stream");
    expect((error as ModelError).message).toContain("(after 3 attempts)");
    expect(server.requests).toHaveLength(3);
  });

  it("a stream that delivered output and then stopped without finish_reason is not retried", async () => {
    const { model, server } = await setup([{ text: "partial", omitFinishReason: true }, { text: "should not be asked" }]);
    const { events, error } = await run(model);
    expect(texts(events)).toBe("partial");
    expect((error as ModelError).kind).toBe("truncated");
    expect((error as ModelError).message).toBe("the model's response was cut off (no finish_reason)");
    expect(server.requests).toHaveLength(1);
  });

  it("a cancel during the wait before a retry ends it without another request", { timeout: 20_000 }, async () => {
    const { model, server } = await setup([malformed, { text: "too late" }], { maxRetries: 5 });
    const controller = new AbortController();
    const pending = run(model, controller.signal);
    // The first answer is over: the model is waiting to retry.
    await vi.waitFor(() => expect(server.requests[0]?.finishedAt).toBeDefined());
    controller.abort();
    const { events, error } = await pending;
    expect(events).toEqual([]);
    expect((error as ModelError).kind).toBe("aborted");
    expect(server.requests).toHaveLength(1);
  });
});
