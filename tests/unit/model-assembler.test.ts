import { describe, expect, it } from "vitest";
import { parseArguments, StreamAssembler, type WireChunk, type WireDelta } from "../../src/model/assembler.js";
import { type ModelEvent } from "../../src/model/model.js";
import { ModelError } from "../../src/util/errors.js";

const delta = (d: WireDelta, finish: string | null = null): WireChunk => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] });
const stop = (reason = "stop"): WireChunk => ({ choices: [{ index: 0, delta: {}, finish_reason: reason }] });

function run(chunks: WireChunk[]): ModelEvent[] {
  const assembler = new StreamAssembler();
  const events = chunks.flatMap((c) => assembler.push(c));
  return [...events, ...assembler.finish()];
}

describe("StreamAssembler", () => {
  it("emits text and thinking as they come, then done", () => {
    const assembler = new StreamAssembler();
    expect(assembler.push(delta({ reasoning_content: "think" }))).toEqual([{ type: "thinking", text: "think" }]);
    expect(assembler.push(delta({ reasoning: "more" }))).toEqual([{ type: "thinking", text: "more" }]);
    expect(assembler.push(delta({ content: "hi", reasoning: null }))).toEqual([{ type: "text", text: "hi" }]);
    expect(assembler.push(stop())).toEqual([]);
    expect(assembler.finish()).toEqual([{ type: "done", finishReason: "stop" }]);
  });

  it("does not double a thinking delta sent under both names", () => {
    expect(run([delta({ reasoning_content: "x", reasoning: "x" }), stop()])).toEqual([
      { type: "thinking", text: "x" },
      { type: "done", finishReason: "stop" },
    ]);
  });

  it("assembles by index, in index order, whatever order they were started in", () => {
    const events = run([
      delta({ tool_calls: [{ index: 1, id: "b", function: { name: "grep", arguments: '{"q"' } }] }),
      delta({ tool_calls: [{ index: 0, id: "a", function: { name: "read_file", arguments: "" } }] }),
      delta({ tool_calls: [{ index: 1, function: { arguments: ':"x"}' } }, { index: 0, function: { arguments: '{"path":"a"}' } }] }),
      stop("tool_calls"),
    ]);
    expect(events).toEqual([
      { type: "tool_call", id: "a", name: "read_file", raw: '{"path":"a"}', args: { path: "a" } },
      { type: "tool_call", id: "b", name: "grep", raw: '{"q":"x"}', args: { q: "x" } },
      { type: "done", finishReason: "tool_calls" },
    ]);
  });

  it("falls back to the id when a server sends no index", () => {
    const events = run([
      delta({ tool_calls: [{ id: "a", function: { name: "one", arguments: '{"n":' } }] }),
      delta({ tool_calls: [{ id: "b", function: { name: "two", arguments: "[1," } }] }),
      delta({ tool_calls: [{ id: "a", function: { arguments: "1}" } }] }),
      delta({ tool_calls: [{ id: "b", function: { arguments: "2]" } }] }),
      stop("tool_calls"),
    ]);
    expect(events.filter((e) => e.type === "tool_call")).toEqual([
      { type: "tool_call", id: "a", name: "one", raw: '{"n":1}', args: { n: 1 } },
      { type: "tool_call", id: "b", name: "two", raw: "[1,2]", args: [1, 2] },
    ]);
  });

  it("continues the previous call when a fragment has neither index nor id", () => {
    const events = run([
      delta({ tool_calls: [{ id: "a", function: { name: "one", arguments: '{"k"' } }] }),
      delta({ tool_calls: [{ function: { arguments: ':"v"}' } }] }),
      stop("tool_calls"),
    ]);
    expect(events[0]).toEqual({ type: "tool_call", id: "a", name: "one", raw: '{"k":"v"}', args: { k: "v" } });
  });

  it("keeps the first name when a server repeats it on every fragment", () => {
    const events = run([
      delta({ tool_calls: [{ index: 0, id: "a", function: { name: "read_file", arguments: '{"p":' } }] }),
      delta({ tool_calls: [{ index: 0, function: { name: "read_file", arguments: "1}" } }] }),
      stop("tool_calls"),
    ]);
    expect(events[0]).toMatchObject({ name: "read_file", raw: '{"p":1}' });
  });

  it("makes up an id when the server sent none", () => {
    const [call] = run([delta({ tool_calls: [{ index: 0, function: { name: "x", arguments: "{}" } }] }), stop("tool_calls")]);
    expect(call?.type === "tool_call" && call.id.length > 0).toBe(true);
  });

  it("reports bad JSON as parseError with the raw text and no args — never {}", () => {
    const [call] = run([delta({ tool_calls: [{ index: 0, id: "a", function: { name: "x", arguments: '{"path": "a.ts"' } }] }), stop("length")]);
    expect(call).toMatchObject({ type: "tool_call", id: "a", raw: '{"path": "a.ts"' });
    expect(call).not.toHaveProperty("args");
    expect(call && "parseError" in call ? call.parseError : "").not.toBe("");
  });

  it("maps only an empty argument string to {}", () => {
    expect(parseArguments("a", "x", "")).toEqual({ id: "a", name: "x", raw: "", args: {} });
    expect(parseArguments("a", "x", " ")).toHaveProperty("parseError");
    expect(parseArguments("a", "x", "null")).toEqual({ id: "a", name: "x", raw: "null", args: null });
  });

  it("reports usage once, with cached tokens from either field", () => {
    const openai = run([
      delta({ content: "x" }),
      stop(),
      { choices: [], usage: { prompt_tokens: 100, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 64 } } },
    ]);
    expect(openai.filter((e) => e.type === "usage")).toEqual([{ type: "usage", input: 100, output: 5, cached: 64 }]);
    const deepseek = run([stop(), { choices: [], usage: { prompt_tokens: 10, completion_tokens: 2, prompt_cache_hit_tokens: 8 } }]);
    expect(deepseek.filter((e) => e.type === "usage")).toEqual([{ type: "usage", input: 10, output: 2, cached: 8 }]);
  });

  it("ignores choices other than the first", () => {
    const events = run([{ choices: [{ index: 1, delta: { content: "other" }, finish_reason: null }] }, delta({ content: "mine" }), stop()]);
    expect(events).toEqual([{ type: "text", text: "mine" }, { type: "done", finishReason: "stop" }]);
  });

  it("throws truncated when no finish_reason came", () => {
    const assembler = new StreamAssembler();
    assembler.push(delta({ content: "partial" }));
    expect(() => assembler.finish()).toThrow(ModelError);
    try {
      assembler.finish();
    } catch (error) {
      expect((error as ModelError).kind).toBe("truncated");
      expect((error as ModelError).message).toBe("the model's response was cut off (no finish_reason)");
    }
  });
});
