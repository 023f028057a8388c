import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addCacheBreakpoints } from "../../src/model/anthropic-cache.js";
import { fromAnthropicMessages, toAnthropicMessages, toAnthropicTools, wireId } from "../../src/model/anthropic-history.js";
import type { ChatMessage, ThinkingBlock } from "../../src/model/model.js";

const MODEL = "claude-test";

const text = fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 });
const args = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });

/** An orca history as the agent loop builds it: system, task, then rounds and follow-up turns. */
const history: fc.Arbitrary<ChatMessage[]> = fc
  .tuple(
    text,
    text,
    fc.array(
      fc.oneof(
        fc.record({
          kind: fc.constant("round" as const),
          content: fc.oneof(fc.constant(""), text),
          calls: fc.array(fc.record({ name: fc.stringMatching(/^[a-z_]{1,10}$/), args, result: fc.string({ maxLength: 20 }) }), { minLength: 1, maxLength: 4 }),
          thinking: fc.array(
            fc.record({
              redacted: fc.boolean(),
              text: text,
              signature: fc.stringMatching(/^[A-Za-z0-9+/=]{4,16}$/),
              afterToolCalls: fc.nat({ max: 4 }),
            }),
            { maxLength: 3 },
          ),
        }),
        fc.record({ kind: fc.constant("answer" as const), content: text, user: text }),
      ),
      { maxLength: 5 },
    ),
  )
  .map(([system, task, steps]) => {
    const messages: ChatMessage[] = [
      { role: "system", content: system },
      { role: "user", content: task },
    ];
    let n = 0;
    for (const step of steps) {
      if (step.kind === "answer") {
        messages.push({ role: "assistant", content: step.content, toolCalls: [] }, { role: "user", content: step.user });
        continue;
      }
      const calls = step.calls.map((c) => {
        const raw = JSON.stringify(c.args);
        return { id: `toolu_${n++}`, name: c.name, raw, args: JSON.parse(raw) as unknown };
      });
      const thinking: ThinkingBlock[] = step.thinking
        .map((t) => {
          const position = Math.min(t.afterToolCalls, calls.length);
          const at = position ? { afterToolCalls: position } : {};
          return t.redacted ? { text: "", redacted: t.signature, ...at } : { text: t.text, signature: t.signature, ...at };
        })
        // The wire keeps blocks in order; generate them in the order they can come back.
        .sort((a, b) => (a.afterToolCalls ?? 0) - (b.afterToolCalls ?? 0));
      messages.push({ role: "assistant", content: step.content, toolCalls: calls, ...(thinking.length ? { thinking } : {}) });
      step.calls.forEach((c, i) => messages.push({ role: "tool", toolCallId: calls[i]!.id, content: c.result }));
    }
    return messages;
  });

function expectValidWire(messages: MessageParam[]): void {
  expect(messages[0]?.role).toBe("user");
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (i > 0) expect(message.role, `turn ${i} repeats a role`).not.toBe(messages[i - 1]!.role);
    const blocks = message.content as ContentBlockParam[];
    for (const block of blocks) if (block.type === "text") expect(block.text.length).toBeGreaterThan(0);
    const uses = blocks.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
    if (!uses.length) continue;
    const next = (messages[i + 1]?.content ?? []) as ContentBlockParam[];
    const results = next.slice(0, uses.length).map((b) => (b.type === "tool_result" ? b.tool_use_id : `not a result: ${b.type}`));
    expect(results, `results right after turn ${i}, first in their turn`).toEqual(uses);
  }
}

describe("Anthropic history conversion", () => {
  it("orca → wire is a valid conversation, and → orca again gives the same history", () => {
    fc.assert(
      fc.property(history, (h) => {
        const wire = toAnthropicMessages(h, MODEL);
        expectValidWire(wire.messages);
        expect(wire.system).toEqual([{ type: "text", text: h[0]!.content }]);
        const back = fromAnthropicMessages(wire);
        // The model reads the empty assistant turns as nothing: they are the only thing not kept.
        const expected = h.filter((m) => !(m.role === "assistant" && !m.content && !m.toolCalls.length && !m.thinking?.length));
        expect(back).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("wire → orca → wire gives the same request", () => {
    fc.assert(
      fc.property(history, (h) => {
        const wire = toAnthropicMessages(h, MODEL);
        expect(toAnthropicMessages(fromAnthropicMessages(wire), MODEL)).toEqual(wire);
      }),
      { numRuns: 300 },
    );
  });

  it("groups the results of parallel calls, and a follow-up user message, in one user turn after them", () => {
    const wire = toAnthropicMessages(
      [
        { role: "system", content: "sys" },
        { role: "user", content: "task" },
        { role: "assistant", content: "", toolCalls: [{ id: "a", name: "read_file", raw: '{"path":"x"}', args: { path: "x" } }, { id: "b", name: "glob", raw: "{}", args: {} }] },
        { role: "tool", toolCallId: "a", content: "X" },
        { role: "tool", toolCallId: "b", content: "" },
        { role: "user", content: "also this" },
      ],
      MODEL,
    );
    expect(wire.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "task" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "a", name: "read_file", input: { path: "x" } },
          { type: "tool_use", id: "b", name: "glob", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "a", content: "X" },
          { type: "tool_result", tool_use_id: "b", content: "" },
          { type: "text", text: "also this" },
        ],
      },
    ]);
  });

  it("sends signed thinking back in place, only to the model that wrote it", () => {
    const h: ChatMessage[] = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "a", name: "t", raw: "{}", args: {} },
          { id: "b", name: "t", raw: "{}", args: {} },
        ],
        thinking: [
          { text: "first", signature: "s1", model: MODEL },
          { text: "between", signature: "s2", model: MODEL, afterToolCalls: 1 },
          { text: "", redacted: "opaque", model: MODEL, afterToolCalls: 1 },
          { text: "unsigned, from a provider that does not sign" },
        ],
      },
    ];
    const content = (model: string) => toAnthropicMessages(h, model).messages[1]!.content as ContentBlockParam[];
    expect(content(MODEL).map((b) => b.type)).toEqual(["thinking", "tool_use", "thinking", "redacted_thinking", "tool_use"]);
    expect(content(MODEL)[0]).toEqual({ type: "thinking", thinking: "first", signature: "s1" });
    expect(content("another-model").map((b) => b.type)).toEqual(["tool_use", "tool_use"]);
  });

  it("unparsable arguments go as an empty object; ids other providers made are made wire-safe, the same way each time", () => {
    const wire = toAnthropicMessages(
      [
        { role: "user", content: "" },
        { role: "assistant", content: "x", toolCalls: [{ id: "functions.read:0", name: "read_file", raw: "{bad", parseError: "Unexpected token" }] },
        { role: "tool", toolCallId: "functions.read:0", content: "Error: invalid JSON: {bad" },
      ],
      MODEL,
    );
    expect(wireId("functions.read:0")).toBe("functions_read_0");
    expect(wire.messages[0]!.content).toEqual([{ type: "text", text: "(empty)" }]);
    expect((wire.messages[1]!.content as ContentBlockParam[])[1]).toEqual({ type: "tool_use", id: "functions_read_0", name: "read_file", input: {} });
    expect((wire.messages[2]!.content as ContentBlockParam[])[0]).toMatchObject({ type: "tool_result", tool_use_id: "functions_read_0" });
  });

  it("places at most four cache breakpoints: last tool, system, the last message and the previous step's", () => {
    fc.assert(
      fc.property(history, fc.boolean(), (h, withTools) => {
        const wire = toAnthropicMessages(h, MODEL);
        const tools = withTools ? toAnthropicTools([{ name: "a", description: "A", parameters: { type: "object", properties: {} } }, { name: "b", description: "B", parameters: {} }]) : undefined;
        const request = { ...wire, ...(tools ? { tools } : {}) };
        addCacheBreakpoints(request);
        const marked = JSON.stringify(request).split('"cache_control"').length - 1;
        expect(marked).toBeLessThanOrEqual(4);
        if (tools) expect(tools.map((t) => Boolean(t.cache_control))).toEqual([false, true]);
        expect(request.system!.at(-1)!.cache_control).toEqual({ type: "ephemeral" });
        const last = request.messages.at(-1)!.content as ContentBlockParam[];
        const lastCacheable = [...last].reverse().find((b) => b.type !== "thinking" && b.type !== "redacted_thinking");
        expect(lastCacheable).toHaveProperty("cache_control");
        // Removing the marks gives back the unmarked request: breakpoints never change the prefix.
        expect(JSON.parse(JSON.stringify(request).replace(/,"cache_control":\{"type":"ephemeral"\}/g, ""))).toEqual(
          JSON.parse(JSON.stringify({ ...toAnthropicMessages(h, MODEL), ...(tools ? { tools: toAnthropicTools([{ name: "a", description: "A", parameters: { type: "object", properties: {} } }, { name: "b", description: "B", parameters: {} }]) } : {}) })),
        );
      }),
      { numRuns: 200 },
    );
  });
});
