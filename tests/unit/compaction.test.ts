import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { compactHistory, createCompactor, fitTranscript, summaryBudget } from "../../src/agent/compaction.js";
import { applyCompaction } from "../../src/sessions/history.js";
import type { EventInput } from "../../src/events/types.js";
import type { ChatMessage, Model, ModelEvent, ModelRequest } from "../../src/model/model.js";
import { OpenAIModel } from "../../src/model/openai.js";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { countTokens, estimateRequestTokens } from "../../src/model/tokens.js";

const MODEL = "gpt-4.1-mini";

/** A model that answers every request with one fixed summary and remembers what it was asked. */
class SummaryModel implements Model {
  readonly name = MODEL;
  readonly requests: ModelRequest[] = [];
  constructor(private readonly summary = "- Goals: the task\n- State: halfway") {}
  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    this.requests.push(request);
    yield { type: "text", text: this.summary };
    yield { type: "usage", input: 100, output: 10, cached: 0 };
    yield { type: "done", finishReason: "stop" };
  }
}

const head = (): ChatMessage[] => [
  { role: "system", content: "You are a test agent." },
  { role: "user", content: "Do the task." },
];

function round(id: string, calls: number, resultChars: number): ChatMessage[] {
  const toolCalls = Array.from({ length: calls }, (_, i) => ({ id: `${id}_${i}`, name: "read_file", raw: `{"path":"f${i}.txt"}`, args: { path: `f${i}.txt` } }));
  return [
    { role: "assistant", content: `working on ${id}`, toolCalls },
    ...toolCalls.map((c): ChatMessage => ({ role: "tool", toolCallId: c.id, content: "x ".repeat(resultChars / 2) })),
  ];
}

/** Every assistant message's calls are answered, each exactly once, right after it. */
function expectWholeRounds(history: ChatMessage[]): void {
  for (let i = 0; i < history.length; i++) {
    const m = history[i]!;
    if (m.role === "tool") {
      let j = i - 1;
      while (j >= 0 && history[j]!.role === "tool") j--;
      const owner = history[j];
      expect(owner?.role).toBe("assistant");
      if (owner?.role === "assistant") expect(owner.toolCalls.map((c) => c.id)).toContain(m.toolCallId);
    }
    if (m.role === "assistant" && m.toolCalls.length) {
      const answered = history.slice(i + 1, i + 1 + m.toolCalls.length).map((r) => (r.role === "tool" ? r.toolCallId : "?"));
      expect(answered).toEqual(m.toolCalls.map((c) => c.id));
    }
  }
}

const signal = new AbortController().signal;

describe("compactHistory", () => {
  it("does nothing under the threshold", async () => {
    const history = [...head(), ...round("a", 1, 100)];
    const before = structuredClone(history);
    const model = new SummaryModel();
    const out = await compactHistory(history, { model, tools: [], signal, settings: { window: 100_000, compactAt: 0.8, keepRounds: 2 } });
    expect(out).toBeNull();
    expect(history).toEqual(before);
    expect(model.requests).toHaveLength(0);
  });

  it("keeps the system prompt, the task and the last N rounds; one summary stands for the rest", async () => {
    const rounds = Array.from({ length: 30 }, (_, i) => round(`r${i}`, (i % 3) + 1, 200));
    const history = [...head(), ...rounds.flat()];
    const model = new SummaryModel();
    const out = await compactHistory(history, { model, tools: [], signal, settings: { window: 4000, compactAt: 0.8, keepRounds: 4 } });
    expect(out).not.toBeNull();
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.tools).toEqual([]);
    expect(history.slice(0, 2)).toEqual(head());
    expect(history[2]).toMatchObject({ role: "user", content: expect.stringContaining("- Goals: the task") });
    expect(history.slice(3)).toEqual(rounds.slice(-4).flat());
    expect(out).toMatchObject({ roundsSummarised: 26, replacedMessages: rounds.slice(0, 26).flat().length, failure: undefined });
    expect(out!.afterTokens).toBe(estimateRequestTokens(history, [], MODEL));
    expectWholeRounds(history);
  });

  it("keeps fewer rounds when the last N alone would not fit", async () => {
    const history = [...head(), ...Array.from({ length: 6 }, (_, i) => round(`big${i}`, 1, 4000)).flat()];
    const out = await compactHistory(history, { model: new SummaryModel(), tools: [], signal, settings: { window: 4000, compactAt: 0.8, keepRounds: 4 } });
    expect(out!.afterTokens).toBeLessThanOrEqual(3200);
    expectWholeRounds(history);
  });

  it("never summarises away the user turn the model has yet to answer", async () => {
    const history: ChatMessage[] = [...head(), ...Array.from({ length: 8 }, (_, i) => round(`big${i}`, 1, 6000)).flat(), { role: "user", content: "and now the next thing" }];
    const out = await compactHistory(history, { model: new SummaryModel(), tools: [], signal, settings: { window: 4000, compactAt: 0.8, keepRounds: 4 } });
    expect(out!.roundsSummarised).toBe(8);
    expect(history.at(-1)).toEqual({ role: "user", content: "and now the next thing" });
    expect(history).toHaveLength(4);
  });

  it("shortens tool outputs so the summary request itself fits", async () => {
    const history = [...head(), ...Array.from({ length: 12 }, (_, i) => round(`huge${i}`, 2, 40_000)).flat()];
    const model = new SummaryModel();
    await compactHistory(history, { model, tools: [], signal, settings: { window: 8000, compactAt: 0.8, keepRounds: 1 } });
    const request = model.requests[0]!;
    expect(estimateRequestTokens(request.messages, [], MODEL)).toBeLessThanOrEqual(6400);
    expect(request.maxOutputTokens).toBe(summaryBudget(8000));
    expect(request.messages[1]!.content).toContain("characters left out");
  });

  it("property: any history of whole rounds stays whole, the replay matches, and the result fits", async () => {
    const group = fc.oneof(
      fc.record({ kind: fc.constant("user" as const), chars: fc.integer({ min: 1, max: 600 }) }),
      fc.record({ kind: fc.constant("round" as const), calls: fc.integer({ min: 0, max: 4 }), chars: fc.integer({ min: 1, max: 3000 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(group, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 3000, max: 20_000 }), async (groups, keepRounds, window) => {
        const original: ChatMessage[] = [...head()];
        groups.forEach((g, i) => {
          if (g.kind === "user") original.push({ role: "user", content: "u".repeat(g.chars) });
          else original.push(...round(`g${i}`, g.calls, g.chars));
        });
        const history = structuredClone(original);
        const out = await compactHistory(history, { model: new SummaryModel(), tools: [], signal, settings: { window, compactAt: 0.8, keepRounds } });
        expectWholeRounds(history);
        expect(history.slice(0, 2)).toEqual(head());
        if (!out) {
          expect(history).toEqual(original);
          return;
        }
        const replayed = structuredClone(original);
        applyCompaction(replayed, out);
        expect(replayed).toEqual(history);
        // What follows the summary is the original's tail, untouched.
        expect(history.slice(3)).toEqual(original.slice(2 + out.replacedMessages));
        expect(out.afterTokens).toBeLessThanOrEqual(Math.floor(window * 0.8));
      }),
      { numRuns: 60 },
    );
  });

  it("fitTranscript stays within its budget even when every output is long", () => {
    const old = Array.from({ length: 50 }, (_, i) => round(`t${i}`, 3, 10_000)).flat();
    const text = fitTranscript(old, 1500, MODEL);
    expect(countTokens(text, MODEL)).toBeLessThanOrEqual(1500);
  });
});

describe("when summarising fails (real SDK over HTTP to the scripted server)", () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("drops the oldest rounds whole, says so in the history and in events, and keeps the invariant", async () => {
    server = await startScriptedServer([{ kind: "error", status: 400, message: "context too long" }]);
    const model = new OpenAIModel({ name: MODEL, baseURL: server.url, apiKey: "sk-test-key-0000", maxRetries: 0, timeoutMs: 10_000 });
    const history = [...head(), ...Array.from({ length: 20 }, (_, i) => round(`r${i}`, 2, 300)).flat()];
    const events: EventInput[] = [];
    const compact = createCompactor({ compactAt: 0.8, keepRounds: 3, windowFor: () => 4000, emit: (e) => events.push(e) });
    const agent = { id: "explorer-1", parentId: "coordinator", model, usage: { input: 0, output: 0, cached: 0 } };
    await compact(agent, history, signal, []);

    expect(server.requests).toHaveLength(1);
    expect(history[2]).toMatchObject({ role: "user", content: expect.stringMatching(/^\[Context note: \d+ earlier rounds were dropped/) });
    expect(history.slice(3)).toEqual(Array.from({ length: 20 }, (_, i) => round(`r${i}`, 2, 300)).slice(-3).flat());
    expectWholeRounds(history);
    const error = events.find((e) => e.type === "error");
    expect(error).toMatchObject({ agentId: "explorer-1", where: "compaction", message: expect.stringMatching(/summarising the history failed .*dropped the 17 oldest rounds/) });
    expect(events.at(-1)).toMatchObject({ type: "compacted", agentId: "explorer-1", parentId: "coordinator", summary: "", roundsSummarised: 17 });
  });

  it("a successful summary is counted in the agent's usage", async () => {
    server = await startScriptedServer([{ text: "- Goals: x", usage: { prompt: 900, completion: 12 } }]);
    const model = new OpenAIModel({ name: MODEL, baseURL: server.url, apiKey: "sk-test-key-0000", maxRetries: 0, timeoutMs: 10_000 });
    const history = [...head(), ...Array.from({ length: 20 }, (_, i) => round(`r${i}`, 1, 400)).flat()];
    const events: EventInput[] = [];
    const compact = createCompactor({ compactAt: 0.8, keepRounds: 3, windowFor: () => 4000, emit: (e) => events.push(e) });
    const agent = { id: "coordinator", model, usage: { input: 5, output: 5, cached: 0 } };
    await compact(agent, history, signal, []);
    expect(agent.usage).toEqual({ input: 905, output: 17, cached: 0 });
    expect(events.map((e) => e.type)).toEqual(["usage", "compacted"]);
    expect(server.requests[0]!.body.tools ?? []).toEqual([]);
  });
});
