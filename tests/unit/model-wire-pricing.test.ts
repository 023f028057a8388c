import { describe, expect, it } from "vitest";
import { costOf, priceFor } from "../../src/model/pricing.js";
import { toWireMessages, toWireTools } from "../../src/model/wire.js";

describe("wire conversion", () => {
  it("keeps text, sets content null for a tool-calling assistant without text, keeps raw arguments", () => {
    expect(
      toWireMessages([
        { role: "system", content: "s" },
        { role: "user", content: "u" },
        { role: "assistant", content: "plain", toolCalls: [] },
        { role: "assistant", content: "", toolCalls: [{ id: "1", name: "f", raw: '{ "a" : 1 }', args: { a: 1 } }] },
        { role: "assistant", content: "with text", toolCalls: [{ id: "2", name: "g", raw: "{bad", parseError: "x" }] },
        { role: "tool", toolCallId: "1", content: "result" },
      ]),
    ).toEqual([
      { role: "system", content: "s" },
      { role: "user", content: "u" },
      { role: "assistant", content: "plain" },
      { role: "assistant", content: null, tool_calls: [{ id: "1", type: "function", function: { name: "f", arguments: '{ "a" : 1 }' } }] },
      { role: "assistant", content: "with text", tool_calls: [{ id: "2", type: "function", function: { name: "g", arguments: "{bad" } }] },
      { role: "tool", tool_call_id: "1", content: "result" },
    ]);
  });

  it("omits tools when there are none", () => {
    expect(toWireTools([])).toBeUndefined();
    const parameters = { type: "object", properties: {} };
    expect(toWireTools([{ name: "t", description: "d", parameters }])).toEqual([
      { type: "function", function: { name: "t", description: "d", parameters } },
    ]);
  });
});

describe("pricing", () => {
  it("knows well-known OpenAI models, their snapshots and vendor-prefixed names", () => {
    expect(priceFor("gpt-4o")).toEqual({ input: 2.5, output: 10, cached: 1.25 });
    expect(priceFor("gpt-4o-2024-08-06")).toEqual(priceFor("gpt-4o"));
    expect(priceFor("openai/gpt-4.1-mini")).toEqual({ input: 0.4, output: 1.6, cached: 0.1 });
    expect(priceFor("gpt-4o-mini")).toEqual({ input: 0.15, output: 0.6, cached: 0.075 });
  });

  it("has no price for other models, or for variants priced differently", () => {
    expect(priceFor("llama3.1:8b")).toBeUndefined();
    expect(priceFor("deepseek-chat")).toBeUndefined();
    expect(priceFor("gpt-4o-audio-preview")).toBeUndefined();
  });

  it("bills cached prompt tokens at the cached rate", () => {
    const price = { input: 2, output: 8, cached: 0.5 };
    expect(costOf({ input: 1_000_000, output: 0, cached: 0 }, price)).toBeCloseTo(2, 10);
    expect(costOf({ input: 1_000_000, output: 500_000, cached: 600_000 }, price)).toBeCloseTo(0.4 * 2 + 0.6 * 0.5 + 0.5 * 8, 10);
    // No cached price: cached tokens cost the input price.
    expect(costOf({ input: 1000, output: 0, cached: 1000 }, { input: 3, output: 1 })).toBeCloseTo(0.003, 10);
  });

  it("has no cost without a price", () => {
    expect(costOf({ input: 10, output: 10, cached: 0 })).toBeUndefined();
    expect(costOf({ input: 10, output: 10, cached: 0 }, priceFor("unknown-model"))).toBeUndefined();
  });
});
