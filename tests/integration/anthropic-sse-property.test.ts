import http from "node:http";
import type { AddressInfo } from "node:net";
import { Stream } from "@anthropic-ai/sdk/core/streaming";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnthropicModel } from "../../src/model/anthropic.js";
import { AnthropicAssembler, type AnthropicWireEvent } from "../../src/model/anthropic-stream.js";
import type { ModelEvent } from "../../src/model/model.js";

/**
 * Property: however the model's blocks are fragmented, and however the network splits the SSE
 * bytes (mid-line, mid-JSON, mid-UTF-8 character), orca assembles exactly the thinking, text and
 * parallel tool uses that were sent, in block order. The bytes go through the SDK's own SSE parser.
 */

interface GeneratedUse {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

interface Scenario {
  thinking: string;
  text: string;
  uses: GeneratedUse[];
  /** Fragment sizes, cycled. */
  sizes: number[];
  /** Deltas of the tool uses round-robin (only their index ties them to their block). */
  interleave: boolean;
  newline: "\n" | "\r\n";
  cuts: number[];
}

const jsonInput = fc.dictionary(
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.oneof(fc.jsonValue({ maxDepth: 3, stringUnit: "grapheme" }), fc.jsonValue({ maxDepth: 2, stringUnit: "binary" })),
  { maxKeys: 5 },
);

const scenario: fc.Arbitrary<Scenario> = fc.record({
  thinking: fc.string({ unit: "grapheme", maxLength: 30 }),
  text: fc.string({ unit: "grapheme", maxLength: 20 }),
  uses: fc.uniqueArray(
    fc.record({
      id: fc.stringMatching(/^toolu_[A-Za-z0-9]{1,12}$/),
      name: fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,20}$/),
      input: jsonInput,
    }),
    { minLength: 2, maxLength: 4, selector: (u) => u.id },
  ),
  sizes: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 6 }),
  interleave: fc.boolean(),
  newline: fc.constantFrom("\n" as const, "\r\n" as const),
  cuts: fc.array(fc.nat({ max: 1_000_000 }), { maxLength: 40 }),
});

function pieces(text: string, sizes: number[]): string[] {
  const out: string[] = [];
  // Split by code point so a fragment never ends inside a surrogate pair (the API's deltas don't).
  const chars = [...text];
  for (let at = 0, i = 0; at < chars.length; i++) {
    const size = sizes[i % sizes.length]!;
    out.push(chars.slice(at, at + size).join(""));
    at += size;
  }
  return out;
}

/** The SSE byte stream the Messages API would send for the scenario. */
function sseBytes(s: Scenario): Buffer {
  const events: Array<Record<string, unknown>> = [
    { type: "message_start", message: { id: "msg_prop", type: "message", role: "assistant", content: [], model: "prop", usage: { input_tokens: 11, output_tokens: 1, cache_creation_input_tokens: 5, cache_read_input_tokens: 7 } } },
    { type: "ping" },
  ];
  let index = 0;
  if (s.thinking) {
    const i = index++;
    events.push({ type: "content_block_start", index: i, content_block: { type: "thinking", thinking: "", signature: "" } });
    for (const thinking of pieces(s.thinking, s.sizes)) events.push({ type: "content_block_delta", index: i, delta: { type: "thinking_delta", thinking } });
    events.push({ type: "content_block_delta", index: i, delta: { type: "signature_delta", signature: "sig-prop" } });
    events.push({ type: "content_block_stop", index: i });
  }
  if (s.text) {
    const i = index++;
    events.push({ type: "content_block_start", index: i, content_block: { type: "text", text: "" } });
    for (const text of pieces(s.text, s.sizes)) events.push({ type: "content_block_delta", index: i, delta: { type: "text_delta", text } });
    events.push({ type: "content_block_stop", index: i });
  }
  const uses = s.uses.map((use) => {
    const i = index++;
    return {
      start: { type: "content_block_start", index: i, content_block: { type: "tool_use", id: use.id, name: use.name, input: {} } },
      deltas: pieces(JSON.stringify(use.input), s.sizes).map((partial_json) => ({ type: "content_block_delta", index: i, delta: { type: "input_json_delta", partial_json } })),
      stop: { type: "content_block_stop", index: i },
    };
  });
  if (s.interleave) {
    events.push(...uses.map((u) => u.start));
    const longest = Math.max(...uses.map((u) => u.deltas.length));
    for (let i = 0; i < longest; i++) for (const u of uses) if (u.deltas[i]) events.push(u.deltas[i]!);
    events.push(...uses.map((u) => u.stop));
  } else {
    for (const u of uses) events.push(u.start, ...u.deltas, u.stop);
  }
  events.push({ type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 3 } });
  events.push({ type: "message_stop" });
  const nl = s.newline;
  return Buffer.from(events.map((e) => `event: ${String(e.type)}${nl}data: ${JSON.stringify(e)}${nl}${nl}`).join(""), "utf8");
}

function splitBytes(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    if (point > from) out.push(bytes.subarray(from, point));
    from = Math.max(from, point);
  }
  return out;
}

function expectScenario(events: ModelEvent[], s: Scenario): void {
  expect(events.filter((e) => e.type === "tool_call")).toEqual(
    s.uses.map((u) => {
      const raw = JSON.stringify(u.input);
      return { type: "tool_call", id: u.id, name: u.name, raw, args: JSON.parse(raw) as unknown };
    }),
  );
  expect(events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("")).toBe(s.text);
  expect(events.flatMap((e) => (e.type === "thinking" ? [e.text] : [])).join("")).toBe(s.thinking);
  expect(events.filter((e) => e.type === "thinking_block")).toEqual(
    s.thinking ? [{ type: "thinking_block", block: { text: s.thinking, signature: "sig-prop", model: "prop" } }] : [],
  );
  // input = fresh + cache writes + cache reads; cached = reads.
  expect(events.filter((e) => e.type === "usage")).toEqual([{ type: "usage", input: 23, output: 3, cached: 7, cacheWrite: 5 }]);
}

describe("Anthropic stream assembly is independent of fragmentation and byte splits", () => {
  it("through the SDK's SSE parser (many runs)", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const parts = splitBytes(sseBytes(s), s.cuts);
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            for (const part of parts) controller.enqueue(new Uint8Array(part));
            controller.close();
          },
        });
        const stream = Stream.fromSSEResponse<AnthropicWireEvent>(new Response(body), new AbortController());
        const assembler = new AnthropicAssembler("prop");
        const events: ModelEvent[] = [];
        for await (const event of stream) events.push(...assembler.push(event));
        events.push(...assembler.finish());
        expectScenario(events, s);
        expect(assembler.stopReason).toBe("tool_use");
      }),
      { numRuns: 300 },
    );
  });

  describe("over real HTTP with AnthropicModel", () => {
    let server: http.Server;
    let url: string;
    let nextPieces: Buffer[] = [];

    beforeAll(async () => {
      server = http.createServer((req, res) => {
        req.resume();
        req.on("end", async () => {
          res.writeHead(200, { "content-type": "text/event-stream" });
          for (const piece of nextPieces) {
            await new Promise<void>((resolve) => res.write(piece, () => resolve()));
            // Give each piece its own turn so it tends to arrive as its own read.
            await new Promise((resolve) => setImmediate(resolve));
          }
          res.end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it("assembles the same thinking, text and tool uses for random byte splits", async () => {
      const model = new AnthropicModel({ name: "prop", baseURL: url, apiKey: "k", maxRetries: 0 });
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          nextPieces = splitBytes(sseBytes(s), s.cuts);
          const events: ModelEvent[] = [];
          for await (const event of model.stream({ model: "prop", messages: [{ role: "user", content: "go" }], tools: [] }, new AbortController().signal)) {
            events.push(event);
          }
          expectScenario(events, s);
          expect(events.at(-1)).toEqual({ type: "done", finishReason: "tool_use" });
        }),
        { numRuns: 100 },
      );
    });
  });
});
