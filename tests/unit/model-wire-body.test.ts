import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { messageArbitrary } from "../fixtures/history-arbitraries.js";
import type { ChatMessage, ToolSpec } from "../../src/model/model.js";
import { toWireMessages, toWireTools } from "../../src/model/wire.js";
import { lentWireBody, wireBody, type BodyFields } from "../../src/model/wire-body.js";

/**
 * The request's bytes, made from each message's kept JSON, must be exactly what JSON.stringify of
 * the whole body (the SDK's own encoding) gives: for any history, tools and optional fields, on a
 * first request and on the next ones, and after a message was changed in place.
 */

// Any UTF-16 text, lone surrogates and escapes included: JSON.stringify escapes them the same in a piece as in the whole.
const text = fc.string({ unit: "binary", maxLength: 40 });
const message = messageArbitrary(text);
const tool: fc.Arbitrary<ToolSpec> = fc.record({ name: text, description: text, parameters: fc.constant({ type: "object", properties: { p: { type: "string" } } }) });
const fields: fc.Arbitrary<BodyFields> = fc.record(
  {
    model: text,
    stream: fc.constant(true as const),
    stream_options: fc.constant({ include_usage: true }),
    temperature: fc.double({ noNaN: true, noDefaultInfinity: true }),
    max_tokens: fc.nat(),
    max_completion_tokens: fc.nat(),
  },
  { requiredKeys: ["model", "stream", "stream_options"] },
);

/** The body as OpenAIModel built it before, keys in the same order, encoded whole. */
function sdkBytes(f: BodyFields, messages: ChatMessage[], tools: ToolSpec[]): string {
  const { model, stream, stream_options, ...rest } = f;
  const wireTools = toWireTools(tools);
  return JSON.stringify({ model, messages: toWireMessages(messages), stream, stream_options, ...(wireTools ? { tools: wireTools } : {}), ...rest });
}

describe("wireBody", () => {
  it("is byte for byte JSON.stringify of the whole body, request after request as the history grows", () => {
    fc.assert(
      fc.property(fields, fc.array(message, { maxLength: 8 }), fc.array(message, { maxLength: 4 }), fc.array(tool, { maxLength: 3 }), (f, first, more, tools) => {
        const history = [...first];
        expect(wireBody(f, history, tools).toString("utf8")).toBe(sdkBytes(f, history, tools));
        history.push(...more);
        expect(wireBody(f, history, tools).toString("utf8")).toBe(sdkBytes(f, history, tools));
      }),
      { numRuns: 300 },
    );
  });

  it("serialises a message changed in place again (a result filled in, a call's text replaced)", () => {
    const result: ChatMessage = { role: "tool", toolCallId: "c1", content: "result unknown" };
    const asked: ChatMessage = { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "read_file", raw: '{"path":"a"}', args: { path: "a" } }] };
    const history: ChatMessage[] = [{ role: "user", content: "hi" }, asked, result];
    const f: BodyFields = { model: "m", stream: true, stream_options: { include_usage: true } };
    expect(wireBody(f, history, []).toString()).toBe(sdkBytes(f, history, []));
    result.content = "the file's text";
    asked.toolCalls[0]!.raw = '{"path":"b"}';
    asked.toolCalls.push({ id: "c2", name: "grep", raw: "{}", args: {} });
    const body = wireBody(f, history, []).toString();
    expect(body).toBe(sdkBytes(f, history, []));
    expect(body).toContain("the file's text");
    expect(body).toContain('"c2"');
  });

  it("lent from the history's buffer, is the same bytes request after request: grown, cut and rewritten (compaction), another model", () => {
    const edit = fc.oneof(
      fc.record({ what: fc.constant("push" as const), messages: fc.array(message, { maxLength: 4 }) }),
      fc.record({ what: fc.constant("splice" as const), at: fc.nat(), remove: fc.nat({ max: 6 }), insert: fc.array(message, { maxLength: 2 }) }),
      fc.record({ what: fc.constant("content" as const), at: fc.nat(), value: text }),
      fc.record({ what: fc.constant("fields" as const), fields }),
    );
    fc.assert(
      fc.property(fields, fc.array(message, { maxLength: 8 }), fc.array(tool, { maxLength: 3 }), fc.array(edit, { maxLength: 8 }), (first, initial, tools, edits) => {
        let f = first;
        const history = [...initial];
        for (const e of [null, ...edits]) {
          if (e?.what === "push") history.push(...e.messages);
          else if (e?.what === "splice") history.splice(e.at % (history.length + 1), e.remove, ...e.insert);
          else if (e?.what === "content" && history.length) history[e.at % history.length]!.content = e.value;
          else if (e?.what === "fields") f = e.fields;
          const body = lentWireBody(f, history, tools);
          expect(body.bytes.toString("utf8")).toBe(sdkBytes(f, history, tools));
          body.release();
        }
      }),
      { numRuns: 300 },
    );
  });

  it("never writes over a body still lent: a second request of the same history at once gets its own bytes", () => {
    const f: BodyFields = { model: "m", stream: true, stream_options: { include_usage: true } };
    const history: ChatMessage[] = [{ role: "user", content: "hi" }];
    const first = lentWireBody(f, history, []);
    const sent = first.bytes.toString("utf8");
    history.push({ role: "assistant", content: "a longer answer than the question", toolCalls: [] }, { role: "user", content: "more" });
    const second = lentWireBody(f, history, []);
    expect(first.bytes.toString("utf8")).toBe(sent);
    expect(second.bytes.toString("utf8")).toBe(sdkBytes(f, history, []));
    first.release();
    second.release();
    history.push({ role: "user", content: "again" });
    const third = lentWireBody(f, history, []);
    expect(third.bytes.toString("utf8")).toBe(sdkBytes(f, history, []));
    // Released, the history's buffer is written again: the bytes of a step are not a new buffer.
    expect(third.bytes.buffer).toBe(first.bytes.buffer);
    expect(third.bytes.byteOffset).toBe(first.bytes.byteOffset);
    third.release();
  });

  it("keeps buffers for the most recently used histories only: one left behind is laid out again, whole", () => {
    const f: BodyFields = { model: "m", stream: true, stream_options: { include_usage: true } };
    const first: ChatMessage[] = [{ role: "user", content: "the first history" }];
    const before = lentWireBody(f, first, []);
    before.release();
    const again = lentWireBody(f, first, []);
    again.release();
    expect(again.bytes.buffer).toBe(before.bytes.buffer);
    for (let i = 0; i < 64; i++) lentWireBody(f, [{ role: "user", content: `history ${i}` }], []).release();
    first.push({ role: "assistant", content: "an answer", toolCalls: [] });
    const after = lentWireBody(f, first, []);
    expect(after.bytes.buffer).not.toBe(before.bytes.buffer);
    expect(after.bytes.toString("utf8")).toBe(sdkBytes(f, first, []));
    after.release();
  });
});
