import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { Stream } from "openai/core/streaming";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StreamAssembler, type WireChunk } from "../../src/model/assembler.js";
import type { ModelEvent } from "../../src/model/model.js";
import { OpenAIModel } from "../../src/model/openai.js";

/**
 * Property: however a server fragments tool-call arguments, and however the network splits the
 * SSE bytes (mid-line, mid-JSON, mid-UTF-8 character), the assembled tool calls are exactly the
 * calls that were sent. The bytes go through the SDK's own SSE parser.
 */

interface GeneratedCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

interface Scenario {
  calls: GeneratedCall[];
  text: string;
  /** Fragment sizes, cycled. */
  sizes: number[];
  interleave: boolean;
  /** "index": fragments carry the index (OpenAI); "id": they carry only the id (some compatible servers). */
  addressing: "index" | "id";
  newline: "\n" | "\r\n";
  cuts: number[];
}

const jsonArgs = fc.dictionary(
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.oneof(fc.jsonValue({ maxDepth: 3, stringUnit: "grapheme" }), fc.jsonValue({ maxDepth: 2, stringUnit: "binary" })),
  { maxKeys: 5 },
);

const scenario: fc.Arbitrary<Scenario> = fc.record({
  calls: fc.uniqueArray(
    fc.record({
      id: fc.stringMatching(/^call_[A-Za-z0-9]{1,12}$/),
      name: fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,20}$/),
      args: jsonArgs,
    }),
    { minLength: 1, maxLength: 4, selector: (c) => c.id },
  ),
  text: fc.string({ unit: "grapheme", maxLength: 20 }),
  sizes: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 6 }),
  interleave: fc.boolean(),
  addressing: fc.constantFrom("index" as const, "id" as const),
  newline: fc.constantFrom("\n" as const, "\r\n" as const),
  cuts: fc.array(fc.nat({ max: 1_000_000 }), { maxLength: 40 }),
});

/** The SSE byte stream an OpenAI-compatible server would send for the scenario. */
function sseBytes(s: Scenario): Buffer {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): WireChunk & Record<string, unknown> => ({
    id: "chatcmpl-prop",
    object: "chat.completion.chunk",
    created: 1,
    model: "prop",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const chunks: unknown[] = [chunk({ role: "assistant", content: "" })];
  if (s.text) chunks.push(chunk({ content: s.text }));
  const perCall = s.calls.map((call, index) => {
    const raw = JSON.stringify(call.args);
    const pieces: string[] = [];
    for (let at = 0, i = 0; at < raw.length; i++) {
      const size = s.sizes[i % s.sizes.length]!;
      pieces.push(raw.slice(at, at + size));
      at += size;
    }
    const address = (first: boolean) =>
      s.addressing === "index" ? (first ? { index, id: call.id, type: "function" } : { index }) : { id: call.id, type: "function" };
    return pieces.map((piece, i) => ({ ...address(i === 0), function: i === 0 ? { name: call.name, arguments: piece } : { arguments: piece } }));
  });
  if (s.interleave) {
    const longest = Math.max(...perCall.map((f) => f.length));
    for (let i = 0; i < longest; i++) for (const fragments of perCall) if (fragments[i]) chunks.push(chunk({ tool_calls: [fragments[i]] }));
  } else {
    for (const fragments of perCall) for (const fragment of fragments) chunks.push(chunk({ tool_calls: [fragment] }));
  }
  chunks.push(chunk({}, "tool_calls"));
  chunks.push({ id: "chatcmpl-prop", object: "chat.completion.chunk", created: 1, model: "prop", choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } });
  const nl = s.newline;
  const text = chunks.map((c) => `data: ${JSON.stringify(c)}${nl}${nl}`).join("") + `data: [DONE]${nl}${nl}`;
  return Buffer.from(text, "utf8");
}

function splitBytes(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    if (point > from) pieces.push(bytes.subarray(from, point));
    from = Math.max(from, point);
  }
  return pieces;
}

/** When the model sent it that way, this is what orca must hand the loop. */
function expectedCalls(s: Scenario) {
  return s.calls.map((c) => {
    const raw = JSON.stringify(c.args);
    return { type: "tool_call", id: c.id, name: c.name, raw, args: JSON.parse(raw) as unknown };
  });
}

describe("tool-call assembly is independent of fragmentation and byte splits", () => {
  it("through the SDK's SSE parser (many runs)", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const pieces = splitBytes(sseBytes(s), s.cuts);
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            for (const piece of pieces) controller.enqueue(new Uint8Array(piece));
            controller.close();
          },
        });
        const stream = Stream.fromSSEResponse<WireChunk>(new Response(body), new AbortController());
        const assembler = new StreamAssembler();
        const events: ModelEvent[] = [];
        for await (const chunk of stream) events.push(...assembler.push(chunk));
        events.push(...assembler.finish());
        expect(events.filter((e) => e.type === "tool_call")).toEqual(expectedCalls(s));
        expect(events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("")).toBe(s.text);
        expect(events.at(-1)).toEqual({ type: "done", finishReason: "tool_calls" });
      }),
      { numRuns: 300 },
    );
  });

  describe("over real HTTP with OpenAIModel", () => {
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
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it("assembles the same calls for random byte splits", async () => {
      const model = new OpenAIModel({ name: "prop", baseURL: url, maxRetries: 0 });
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          nextPieces = splitBytes(sseBytes(s), s.cuts);
          const events: ModelEvent[] = [];
          for await (const event of model.stream({ model: "prop", messages: [{ role: "user", content: "go" }], tools: [] }, new AbortController().signal)) {
            events.push(event);
          }
          expect(events.filter((e) => e.type === "tool_call")).toEqual(expectedCalls(s));
          expect(events.filter((e) => e.type === "usage")).toEqual([{ type: "usage", input: 7, output: 3, cached: 0 }]);
          expect(events.at(-1)).toEqual({ type: "done", finishReason: "tool_calls" });
        }),
        { numRuns: 100 },
      );
    });
  });
});
