import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { OrcaEvent } from "../../src/events/types.js";
import { systemPrompt, type RecordedRequest, type ScriptedReply } from "../../src/model/scripted.js";
import { rebuildSession } from "../../src/sessions/rebuild.js";
import { expectValidHistories } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";
import { orchestra } from "../fixtures/rig-orchestra.js";
import { requestTokens } from "../fixtures/requests.js";

const WINDOW = 4000;
const COMPACT_AT = 0.8;
const TURNS = 200;
const TASK = "Read every file in order and keep notes.";

const WORKER = `---
name: worker
description: Reads files.
tools: [read_file]
---
You read files one by one.
`;

/** No tool result without its assistant message earlier in the same request: no round was split. */
function expectNoOrphanResults(requests: RecordedRequest[]): void {
  for (const r of requests) {
    const calls = new Set<string>();
    for (const m of r.body.messages) {
      for (const c of m.tool_calls ?? []) calls.add(c.id);
      if (m.role === "tool") expect(calls.has(m.tool_call_id!), `request ${r.index}: orphan result ${m.tool_call_id}`).toBe(true);
    }
  }
}

function files(): Record<string, string> {
  const out: Record<string, string> = { ".orca/agents/worker.md": WORKER };
  for (let i = 0; i < 10; i++) {
    out[`f${i}.txt`] = Array.from({ length: 12 }, (_, l) => `file ${i} line ${l}: the quick brown fox jumps over the lazy dog`).join("\n") + "\n";
  }
  return out;
}

describe("compaction on a 200-turn conversation", () => {
  it("keeps every request under the window, never splits a round, and the log replays to the same history", async () => {
    let turn = 0;
    const summaries: RecordedRequest[] = [];
    const server = await scriptedServer((request): ScriptedReply => {
      if (systemPrompt(request).startsWith("You compact the working history")) {
        summaries.push(request);
        return { text: `- Goals: ${TASK}\n- State: read files up to turn ${turn}; nothing unusual found.` };
      }
      turn++;
      if (turn > TURNS) return { text: "finished reading" };
      return { text: `step ${turn}`, toolCalls: [{ id: `call_${turn}`, name: "read_file", args: { path: `f${turn % 10}.txt` } }] };
    });
    const ws = workspace(files());
    const setup = await orchestra(ws, server.url, {
      agentName: "worker",
      config: `model:\n  context_window: ${WINDOW}\nagent:\n  max_steps: ${TURNS + 5}\ncontext:\n  compact_at: ${COMPACT_AT}\n  keep_rounds: 4\n`,
    });
    const events: OrcaEvent[] = [];
    setup.session.bus.subscribe((e) => events.push(e));

    const result = await setup.session.run(TASK);
    expect(result.status).toBe("done");
    expect(result.result).toBe("finished reading");

    const work = server.requests.filter((r) => !summaries.includes(r));
    expect(work).toHaveLength(TURNS + 1);
    const compactions = events.filter((e): e is Extract<OrcaEvent, { type: "compacted" }> => e.type === "compacted");
    expect(compactions.length).toBeGreaterThan(3);
    expect(summaries).toHaveLength(compactions.length);

    const peak = Math.max(...server.requests.map(requestTokens));
    expect(peak).toBeLessThanOrEqual((COMPACT_AT + 0.05) * WINDOW);
    expectValidHistories(server.requests);
    expectNoOrphanResults(server.requests);
    for (const r of work) {
      expect(r.body.messages[0]!.role).toBe("system");
      expect(r.body.messages[1]).toMatchObject({ role: "user", content: TASK });
    }
    // The last rounds are kept verbatim: the request after each compaction ends with whole rounds.
    for (const c of compactions) {
      expect(c.summary).toContain("Goals:");
      expect(c.afterTokens).toBeLessThan(c.beforeTokens);
      expect(c.roundsSummarised).toBeGreaterThan(0);
    }
    const last = work.at(-1)!.body.messages;
    expect(last[2]!.content).toMatch(/^\[Summary of the earlier conversation/);
    expect(last.filter((m) => m.role === "assistant").length).toBeGreaterThanOrEqual(4);

    // Resume rebuilds exactly the history the agent has now.
    await setup.session.close();
    const logged = readLog(setup.session.logFile!);
    expect(logged.skipped).toEqual([]);
    const rebuilt = rebuildSession(logged.events).agents.find((a) => a.id === "worker")!;
    expect(rebuilt.history).toEqual(setup.session.agentState("worker")!.history);
  }, 120_000);

  it("a sub-agent compacts its own history", async () => {
    const summaries: string[] = [];
    let turn = 0;
    const server = await scriptedServer((request): ScriptedReply => {
      const system = systemPrompt(request);
      if (system.startsWith("You compact the working history")) {
        summaries.push(request.body.messages[1]!.content ?? "");
        return { text: "- Goals: read files\n- State: partway" };
      }
      if (/You are agent coordinator /.test(system)) {
        const done = request.body.messages.some((m) => m.role === "tool");
        return done ? { text: "the worker finished" } : { toolCalls: [{ name: "delegate", args: { agent: "worker", task: "read the files" } }] };
      }
      turn++;
      if (turn > 40) return { text: "worker done" };
      return { toolCalls: [{ id: `w_${turn}`, name: "read_file", args: { path: `f${turn % 10}.txt` } }] };
    });
    const ws = workspace(files());
    fs.writeFileSync(path.join(ws.dir, ".orca", "agents", "coordinator.md"), `---\nname: coordinator\ndescription: Delegates.\ntools: [delegate]\n---\nYou delegate.\n`);
    const setup = await orchestra(ws, server.url, { config: `model:\n  context_window: ${WINDOW}\ncontext:\n  keep_rounds: 2\n` });
    const events: OrcaEvent[] = [];
    setup.session.bus.subscribe((e) => events.push(e));
    const result = await setup.session.run("go");
    expect(result.result).toBe("the worker finished");
    const compacted = events.filter((e) => e.type === "compacted");
    expect(compacted.length).toBeGreaterThan(0);
    expect(new Set(compacted.map((e) => e.agentId))).toEqual(new Set(["worker-1"]));
    expect(summaries.length).toBe(compacted.length);
    expectValidHistories(server.requests);
    expectNoOrphanResults(server.requests);
  }, 60_000);

  it("a summary request counts toward budget.max_tokens and shows in usage: the run stops before the next request", async () => {
    let turn = 0;
    let summaries = 0;
    const server = await scriptedServer((request): ScriptedReply => {
      if (systemPrompt(request).startsWith("You compact the working history")) {
        summaries++;
        return { text: "- Goals: read\n- State: partway", usage: { prompt: 50_000, completion: 100 } };
      }
      turn++;
      return { text: `step ${turn}`, toolCalls: [{ id: `call_${turn}`, name: "read_file", args: { path: `f${turn % 10}.txt` } }], usage: { prompt: 100, completion: 10 } };
    });
    const ws = workspace(files());
    const setup = await orchestra(ws, server.url, {
      agentName: "worker",
      config: `model:\n  context_window: ${WINDOW}\nagent:\n  max_steps: 100\ncontext:\n  compact_at: ${COMPACT_AT}\n  keep_rounds: 4\nbudget:\n  max_tokens: 40000\n`,
    });
    const events: OrcaEvent[] = [];
    setup.session.bus.subscribe((e) => events.push(e));
    const result = await setup.session.run(TASK);
    expect(result.status).toBe("budget");
    expect(summaries).toBe(1);
    // The summary was the last request sent: the agent's own next one was refused before it left.
    expect(systemPrompt(server.requests.at(-1)!)).toMatch(/^You compact the working history/);
    expect(events.filter((e) => e.type === "model_request")).toHaveLength(turn);
    const error = events.find((e) => e.type === "error" && e.where === "budget");
    expect(error).toMatchObject({ message: expect.stringMatching(/^Stopped: token budget reached \(\d+ of 40000 tokens\)\.$/) });
    // In usage: the events, the run's result and the session's total all carry the summary's tokens.
    expect(events.filter((e) => e.type === "usage").map((e) => (e.type === "usage" ? e.input : 0))).toContain(50_000);
    expect(result.usage.input).toBe(turn * 100 + 50_000);
    expect(setup.session.totalUsage().output).toBe(turn * 10 + 100);
  }, 60_000);
});
