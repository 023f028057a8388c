import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { messageArbitrary } from "../fixtures/history-arbitraries.js";
import type { ChatMessage } from "../../src/model/model.js";
import { toWireMessages } from "../../src/model/wire.js";
import { lentWireBody, wireBody, type BodyFields } from "../../src/model/wire-body.js";
import { estimateRequestTokens, quickRequestTokens } from "../../src/model/tokens.js";

/**
 * What is kept per history message across steps (its JSON in the request body, its token count)
 * must follow any change made to a message in place between two requests: after each change, the
 * body is what JSON.stringify of the history gives and the count is that of a fresh copy.
 */

const text = fc.string({ unit: "grapheme", maxLength: 30 });
const message = messageArbitrary(text);

type Change = { at: number; what: "content" | "callId" | "push" | "replaceCalls" | "callRaw" | "callName" | "callIdOfCall" | "pop"; value: string };
const change: fc.Arbitrary<Change> = fc.record({
  at: fc.nat(),
  what: fc.constantFrom("content", "callId", "push", "replaceCalls", "callRaw", "callName", "callIdOfCall", "pop"),
  value: text,
});

function apply(history: ChatMessage[], c: Change): void {
  const m = history[c.at % history.length]!;
  if (c.what === "content") m.content = c.value;
  else if (m.role === "tool" && c.what === "callId") m.toolCallId = c.value;
  else if (m.role === "assistant") {
    const first = m.toolCalls[0];
    if (c.what === "push") m.toolCalls.push({ id: c.value, name: "grep", raw: "{}", args: undefined });
    else if (c.what === "pop") m.toolCalls.pop();
    else if (c.what === "replaceCalls") m.toolCalls = m.toolCalls.map((x) => ({ ...x }));
    else if (first && c.what === "callRaw") first.raw = c.value;
    else if (first && c.what === "callName") first.name = c.value;
    else if (first && c.what === "callIdOfCall") first.id = c.value;
  }
}

const fields: BodyFields = { model: "gpt-4o", stream: true, stream_options: { include_usage: true } };
const fresh = (history: ChatMessage[]): ChatMessage[] => structuredClone(history);

describe("a history message changed in place between two requests", () => {
  for (const model of ["gpt-4o", "llama-3"]) {
    it(`is sent and counted as it is now (${model})`, () => {
      fc.assert(
        fc.property(fc.array(message, { minLength: 1, maxLength: 6 }), fc.array(change, { minLength: 1, maxLength: 4 }), (history, changes) => {
          for (const c of changes) {
            // Kept from the request before: the body's JSON and (bounded and exact) counts.
            wireBody(fields, history, []);
            lentWireBody(fields, history, []).release();
            quickRequestTokens(history, [], model);
            estimateRequestTokens(history, [], model);
            apply(history, c);
            const whole = JSON.stringify({ model: "gpt-4o", messages: toWireMessages(history), stream: true, stream_options: { include_usage: true } });
            expect(wireBody(fields, history, []).toString("utf8")).toBe(whole);
            const lent = lentWireBody(fields, history, []);
            expect(lent.bytes.toString("utf8")).toBe(whole);
            lent.release();
            expect(estimateRequestTokens(history, [], model)).toBe(estimateRequestTokens(fresh(history), [], model));
            // The quick count is exact where it was counted, else the bound a fresh copy gets.
            const quick = quickRequestTokens(history, [], model);
            expect(quick.tokens).toBe(quick.exact ? estimateRequestTokens(fresh(history), [], model) : quickRequestTokens(fresh(history), [], model).tokens);
          }
        }),
        { numRuns: 150 },
      );
    });
  }
});
