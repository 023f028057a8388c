import { encode as encodeCl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { encode as encodeO200k } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it, vi } from "vitest";
import type { ChatMessage, ToolSpec } from "../../src/model/model.js";
import { contextWindowFor, countTokens, encodingFor, estimateRequestTokens, estimateTokens } from "../../src/model/tokens.js";

const japanese = "こんにちは世界、お元気ですか";

describe("countTokens", () => {
  it("uses o200k_base for the gpt-4o / 4.1 / 5 / o-series families", () => {
    for (const model of ["gpt-4o", "gpt-4o-mini", "gpt-4.1-mini", "gpt-5", "o3", "o4-mini", "openai/gpt-4o"]) {
      expect(encodingFor(model)).toBe("o200k_base");
    }
    // Known values (gpt-tokenizer, o200k_base).
    expect(countTokens("tiktoken is great!", "gpt-4o")).toBe(6);
    expect(countTokens(japanese, "gpt-4.1")).toBe(7);
    expect(countTokens(japanese, "gpt-4.1")).toBe(encodeO200k(japanese).length);
  });

  it("uses cl100k_base for gpt-4 and gpt-3.5", () => {
    expect(encodingFor("gpt-4")).toBe("cl100k_base");
    expect(encodingFor("gpt-4-turbo")).toBe("cl100k_base");
    expect(encodingFor("gpt-3.5-turbo")).toBe("cl100k_base");
    expect(countTokens(japanese, "gpt-4")).toBe(10);
    expect(countTokens(japanese, "gpt-3.5-turbo")).toBe(encodeCl100k(japanese).length);
  });

  it("counts special-token text as text instead of throwing", () => {
    expect(countTokens("a <|endoftext|> b", "gpt-4o")).toBeGreaterThan(3);
  });

  it("estimates for other models: ASCII at 3.5 characters a token, other characters at one", () => {
    expect(encodingFor("llama3.1:8b")).toBe("estimate");
    expect(encodingFor("deepseek-chat")).toBe("estimate");
    expect(countTokens("x".repeat(35), "qwen2.5-coder")).toBe(10);
    expect(countTokens("x".repeat(36), "qwen2.5-coder")).toBe(11);
    expect(countTokens(japanese, "qwen2.5-coder")).toBe(japanese.length);
    expect(estimateTokens("🎉")).toBe(1);
    expect(countTokens("", "anything")).toBe(0);
  });
});

describe("estimateRequestTokens", () => {
  const messages: ChatMessage[] = [
    { role: "system", content: "You are terse." },
    { role: "user", content: "Read a.ts" },
    { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "read_file", raw: '{"path":"a.ts"}', args: { path: "a.ts" } }] },
    { role: "tool", toolCallId: "call_1", content: "export const a = 1;" },
  ];

  it("counts every message's text plus framing, and the tools", () => {
    const bare = estimateRequestTokens(messages, [], "gpt-4o");
    const textOnly = countTokens("You are terse.", "gpt-4o") + countTokens("Read a.ts", "gpt-4o");
    expect(bare).toBeGreaterThan(textOnly + 4 * 4);
    const tools = [{ name: "read_file", description: "Read a file from the workspace", parameters: { type: "object", properties: { path: { type: "string" } } } }];
    expect(estimateRequestTokens(messages, tools, "gpt-4o")).toBeGreaterThan(bare + 10);
  });

  it("grows with the history and gives the same answer twice", () => {
    const one = estimateRequestTokens(messages.slice(0, 2), [], "gpt-4o");
    const all = estimateRequestTokens(messages, [], "gpt-4o");
    expect(all).toBeGreaterThan(one);
    expect(estimateRequestTokens(messages, [], "gpt-4o")).toBe(all);
  });

  it("notices a message whose content changed since it was last counted", () => {
    const message: ChatMessage = { role: "user", content: "short" };
    const before = estimateRequestTokens([message], [], "gpt-4o");
    (message as { content: string }).content = "a much longer message than before, with many more tokens in it";
    expect(estimateRequestTokens([message], [], "gpt-4o")).toBeGreaterThan(before);
  });

  it("notices a changed tool call of an assistant message, and counts the tools as their JSON exactly", () => {
    const call = { id: "call_9", name: "read_file", raw: '{"path":"a.ts"}', args: { path: "a.ts" } };
    const message: ChatMessage = { role: "assistant", content: "", toolCalls: [call] };
    const before = estimateRequestTokens([message], [], "gpt-4o");
    call.raw = JSON.stringify({ path: "a/much/longer/path/to/a/file/that/takes/more/tokens.ts" });
    expect(estimateRequestTokens([message], [], "gpt-4o")).toBeGreaterThan(before);
    const tools = [
      { name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } },
      { name: "bash", description: "Run a command", parameters: { type: "object", properties: { command: { type: "string" } } } },
    ];
    const json = JSON.stringify(tools.map((t) => ({ type: "function", function: t })));
    // Twice: the second count reads each spec's cached JSON.
    for (let i = 0; i < 2; i++) expect(estimateRequestTokens([], tools, "gpt-4o")).toBe(3 + countTokens(json, "gpt-4o"));
  });

  it("uses the estimate for non-OpenAI models", () => {
    expect(estimateRequestTokens([{ role: "user", content: japanese }], [], "llama3")).toBeGreaterThanOrEqual(japanese.length);
  });
});

describe("contextWindowFor", () => {
  it("knows the families", () => {
    expect(contextWindowFor("gpt-4o")).toBe(128_000);
    expect(contextWindowFor("gpt-4o-mini-2024-07-18")).toBe(128_000);
    expect(contextWindowFor("gpt-4.1-mini")).toBe(1_047_576);
    expect(contextWindowFor("gpt-5")).toBe(272_000);
    expect(contextWindowFor("o3")).toBe(200_000);
    expect(contextWindowFor("o4-mini")).toBe(200_000);
    expect(contextWindowFor("gpt-4")).toBe(8_192);
    expect(contextWindowFor("gpt-4-turbo")).toBe(128_000);
    expect(contextWindowFor("gpt-3.5-turbo")).toBe(16_385);
  });

  it("falls back to 128k and lets the config win", () => {
    expect(contextWindowFor("some-local-model")).toBe(128_000);
    expect(contextWindowFor("gpt-4o", 32_000)).toBe(32_000);
    expect(contextWindowFor("mystery", 8_000)).toBe(8_000);
  });
});

describe("quickRequestTokens: no tokenizer on the way to the first request", () => {
  const messages: ChatMessage[] = [
    { role: "system", content: "You are terse." },
    { role: "user", content: "Résumé of the naïve café: 東京 🎉 and some code `x => x + 1`." },
    { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "read_file", raw: '{"path":"a.ts"}', args: { path: "a.ts" } }] },
    { role: "tool", toolCallId: "call_1", content: "export const x = 1;\n".repeat(20) },
  ];

  it("is an upper bound before the tokenizer loads, and the exact count after", async () => {
    // A fresh copy of the modules: no tokenizer loaded yet.
    vi.resetModules();
    const fresh = await import("../../src/model/tokens.js");
    const encoders = await import("../../src/model/encoders.js");
    const before = fresh.quickRequestTokens(messages, [], "gpt-4o");
    expect(encoders.bpeLoaded("o200k_base")).toBe(false);
    expect(before.exact).toBe(false);
    const exact = fresh.estimateRequestTokens(messages, [], "gpt-4o");
    expect(before.tokens).toBeGreaterThan(exact);
    // Counting exactly loaded it; the quick count is now the exact one.
    expect(fresh.quickRequestTokens(messages, [], "gpt-4o")).toEqual({ tokens: exact, exact: true });
  });

  it("never counts a new message on the way to a request: it is bounded, then counted while the model thinks", async () => {
    vi.resetModules();
    const fresh = await import("../../src/model/tokens.js");
    fresh.warmTokenizer("gpt-4o");
    const history: ChatMessage[] = messages.slice(0, 2);
    fresh.estimateRequestTokens(history, [], "gpt-4o");
    expect(fresh.quickRequestTokens(history, [], "gpt-4o").exact).toBe(true);
    // A step later: the assistant's call and its tool result are new.
    history.push(messages[2]!, messages[3]!);
    const before = fresh.quickRequestTokens(history, [], "gpt-4o");
    await fresh.prepareRequestTokens(history, "gpt-4o");
    expect(fresh.quickRequestTokens(history, [], "gpt-4o")).toEqual(before);
    expect(before.exact).toBe(false);
    await fresh.countPendingTokens(history, "gpt-4o");
    const exact = fresh.estimateRequestTokens(history, [], "gpt-4o");
    expect(before.tokens).toBeGreaterThan(exact);
    expect(fresh.quickRequestTokens(history, [], "gpt-4o")).toEqual({ tokens: exact, exact: true });
  });

  it("counts a lot of new text before the request, in slices", async () => {
    vi.resetModules();
    const fresh = await import("../../src/model/tokens.js");
    fresh.warmTokenizer("gpt-4o");
    const history: ChatMessage[] = [...messages.slice(0, 2), { role: "user", content: "word ".repeat(20_000) }];
    expect(fresh.quickRequestTokens(history, [], "gpt-4o").exact).toBe(false);
    await fresh.prepareRequestTokens(history, "gpt-4o");
    expect(fresh.quickRequestTokens(history, [], "gpt-4o").exact).toBe(true);
  });

  it("leaves a lot of new text a bound, without loading the tokenizer, when no decision can need its exact count", async () => {
    vi.resetModules();
    const fresh = await import("../../src/model/tokens.js");
    const encoders = await import("../../src/model/encoders.js");
    const history: ChatMessage[] = [...messages.slice(0, 2), { role: "user", content: "word ".repeat(20_000) }];
    const bounds: number[] = [];
    await fresh.prepareRequestTokens(history, "gpt-4o", undefined, (bound) => (bounds.push(bound), false));
    expect(encoders.bpeLoaded("o200k_base")).toBe(false);
    expect(fresh.quickRequestTokens(history, [], "gpt-4o").exact).toBe(false);
    // The bound it was asked about is the request's, tools aside.
    expect(bounds).toEqual([fresh.quickRequestTokens(history, [], "gpt-4o").tokens]);
    // Near a limit the same text is counted.
    await fresh.prepareRequestTokens(history, "gpt-4o", undefined, () => true);
    expect(fresh.quickRequestTokens(history, [], "gpt-4o").exact).toBe(true);
  });

  it("countPendingTokens never loads the tokenizer itself", async () => {
    vi.resetModules();
    const fresh = await import("../../src/model/tokens.js");
    const encoders = await import("../../src/model/encoders.js");
    await fresh.countPendingTokens(messages, "gpt-4o");
    expect(encoders.bpeLoaded("o200k_base")).toBe(false);
    expect(fresh.quickRequestTokens(messages, [], "gpt-4o").exact).toBe(false);
  });

  it("is exact at once for a model whose count is an estimate anyway", async () => {
    vi.resetModules();
    const fresh = await import("../../src/model/tokens.js");
    expect(fresh.quickRequestTokens(messages, [], "llama3")).toEqual({ tokens: fresh.estimateRequestTokens(messages, [], "llama3"), exact: true });
  });

  it("is worth loading ahead only from a quarter of the window, or when the window is unknown", async () => {
    const fresh = await import("../../src/model/tokens.js");
    expect(fresh.tokenizerWorthLoading(100, 128_000)).toBe(false);
    expect(fresh.tokenizerWorthLoading(31_999, 128_000)).toBe(false);
    expect(fresh.tokenizerWorthLoading(32_000, 128_000)).toBe(true);
    expect(fresh.tokenizerWorthLoading(100, undefined)).toBe(true);
  });

  it("warmTokenizer loads the tokenizer of OpenAI models only", async () => {
    vi.resetModules();
    const fresh = await import("../../src/model/tokens.js");
    const encoders = await import("../../src/model/encoders.js");
    fresh.warmTokenizer("llama3");
    expect(encoders.bpeLoaded("o200k_base")).toBe(false);
    fresh.warmTokenizer("gpt-4.1-mini");
    expect(encoders.bpeLoaded("o200k_base")).toBe(true);
  });
});

describe("the tools' count kept across steps", () => {
  const spec = (name: string, description: string): ToolSpec => ({ name, description, parameters: { type: "object", properties: { path: { type: "string" } } } });
  const history: ChatMessage[] = [{ role: "user", content: "hi" }];
  const fromJson = (tools: ToolSpec[], model: string) => estimateRequestTokens(history, [], model) + countTokens(JSON.stringify(tools.map((t) => ({ type: "function", function: t }))), model);

  it("is reused for a list rebuilt from the same specs, and counted again when a tool joins, leaves or is replaced", () => {
    const read = spec("read_file", "Reads a file.");
    const write = spec("write_file", "Writes a file.");
    for (const model of ["gpt-4o", "llama-3"]) {
      expect(estimateRequestTokens(history, [read, write], model)).toBe(fromJson([read, write], model));
      // Each step builds a new list of the same spec objects.
      expect(estimateRequestTokens(history, [read, write], model)).toBe(fromJson([read, write], model));
      const grep = spec("grep", "Searches the files for a pattern, with a long description that adds tokens.");
      expect(estimateRequestTokens(history, [read, write, grep], model)).toBe(fromJson([read, write, grep], model));
      expect(estimateRequestTokens(history, [read], model)).toBe(fromJson([read], model));
      // An MCP server that lists its tools again gives new specs: a changed description is counted.
      const longer = spec("read_file", "Reads a file. ".repeat(40));
      expect(estimateRequestTokens(history, [longer, write], model)).toBe(fromJson([longer, write], model));
      expect(estimateRequestTokens(history, [longer, write], model)).toBeGreaterThan(estimateRequestTokens(history, [read, write], model));
    }
  });

  it("keeps the count of one encoding apart from another's", () => {
    const tools = [spec("read_file", japanese.repeat(20))];
    expect(estimateRequestTokens(history, tools, "gpt-4o")).toBe(fromJson(tools, "gpt-4o"));
    expect(estimateRequestTokens(history, tools, "gpt-4")).toBe(fromJson(tools, "gpt-4"));
    expect(fromJson(tools, "gpt-4o")).not.toBe(fromJson(tools, "gpt-4"));
  });
});
