import { describe, expect, it } from "vitest";
import type { AgentDefinition } from "../../src/agent/definition.js";
import type { OrcaEvent, ToolCall } from "../../src/events/types.js";
import type { Model } from "../../src/model/model.js";
import { FanoutGuard, type PlannedChild } from "../../src/orchestrator/fanout.js";
import { HeadlessApprover } from "../../src/tools/headless-approver.js";

/**
 * Issue 32: the fan-out estimate counts each child's first request with its model's tokenizer,
 * whose tables take ~0.3 s and ~30 MB to load — it held up every run's first sub-agent though no
 * limit on cost was set and nobody was asked. It is made only when a cost limit or a question needs it.
 */

const definition = { name: "explorer", prompt: "You explore." } as AgentDefinition;
const model = { name: "priced-model", price: { input: 2, output: 8 } } as unknown as Model;
const calls = (n: number): ToolCall[] => Array.from({ length: n }, (_, i) => ({ id: `d${i}`, name: "delegate", args: { agent: "explorer", task: `part ${i}` } }) as ToolCall);

function guard(opts: { confirmFanout: number | false; confirmCostUsd?: number }): { guard: FanoutGuard; counted: () => number; events: OrcaEvent[] } {
  let counted = 0;
  const events: OrcaEvent[] = [];
  const run = {};
  const g = new FanoutGuard({
    ...opts,
    approver: new HeadlessApprover(true),
    emit: (e) => void events.push(e as OrcaEvent),
    plan: (_caller, raw): PlannedChild => ({ definition, model, task: String((raw as { task: string }).task), maxSteps: 50 }),
    firstRequestTokens: () => {
      counted++;
      return 1000;
    },
    run: () => run,
  });
  return { guard: g, counted: () => counted, events };
}

const caller = { id: "coordinator", name: "coordinator" };

describe("the fan-out guard's estimate", () => {
  it("is not made for a fan-out within confirm_fanout when no cost limit is set", async () => {
    const g = guard({ confirmFanout: 4 });
    expect(await g.guard.screen(caller, calls(4), new AbortController().signal)).toEqual(new Map());
    expect(await g.guard.screen(caller, calls(0), new AbortController().signal)).toEqual(new Map());
    expect(g.counted()).toBe(0);
  });

  it("is not made with the count limit off (confirm_fanout: false), however many start", async () => {
    const g = guard({ confirmFanout: false });
    expect((await g.guard.screen(caller, calls(64), new AbortController().signal)).size).toBe(0);
    expect(g.counted()).toBe(0);
  });

  it("is made when the count passes the limit (the refusal names it) and when a cost limit is set", async () => {
    const many = guard({ confirmFanout: 4 });
    expect((await many.guard.screen(caller, calls(6), new AbortController().signal)).size).toBe(2);
    expect(many.counted()).toBe(6);
    expect(many.events).toEqual([expect.objectContaining({ type: "fanout_checked", calls: 6, estimateUsd: expect.any(Number) })]);
    const dear = guard({ confirmFanout: 4, confirmCostUsd: 0.000001 });
    expect((await dear.guard.screen(caller, calls(2), new AbortController().signal)).size).toBe(2);
    expect(dear.counted()).toBe(2);
  });

  it("still counts the sub-agents it let through without one: the fifth of the run passes the limit", async () => {
    const g = guard({ confirmFanout: 4 });
    await g.guard.screen(caller, calls(3), new AbortController().signal);
    const refused = await g.guard.screen(caller, calls(2), new AbortController().signal);
    expect([...refused.keys()]).toEqual(["d1"]);
  });
});
