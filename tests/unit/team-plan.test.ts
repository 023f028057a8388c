import { describe, expect, it } from "vitest";
import type { OrcaEvent } from "../../src/events/types.js";
import { planTeam } from "../../src/sessions/team-plan.js";

/** Which agents a resume continues and which calls it holds, read from logs of stopped runs. */

let ts = 0;
const ev = (e: Record<string, unknown>): OrcaEvent => ({ ts: ++ts, sessionId: "s", ...e }) as unknown as OrcaEvent;
const started = (agentId: string, parentId: string | undefined, name: string, task: string, label?: string) =>
  ev({ type: "agent_started", agentId, parentId, name, label, task, tools: [], depth: parentId ? 1 : 0, model: "m", system: "sys" });
const request = (agentId: string) => ev({ type: "model_request", agentId, step: 1, messageCount: 2, tokenEstimate: 1 });
const calls = (agentId: string, ...toolCalls: { id: string; name: string; args: unknown }[]) =>
  ev({ type: "assistant_message", agentId, content: "", toolCalls: toolCalls.map((c) => ({ ...c, raw: JSON.stringify(c.args) })) });
const finished = (agentId: string, callId: string, name: string, content = "ok") => ev({ type: "tool_finished", agentId, callId, name, ok: true, status: "ok", content, durationMs: 1 });
const ended = (agentId: string, status: string) => ev({ type: "agent_finished", agentId, status, result: "", steps: 1, usage: { input: 0, output: 0, cached: 0 }, filesChanged: [] });
/** The plan without the stopped run's spend (tests/unit/stopped-run.test.ts covers it). */
const agentsOnly = (plan: ReturnType<typeof planTeam>) => plan && { agents: plan.agents };
const session = () => ev({ type: "session_started", agentId: "coordinator", workspace: "/w", model: "m" });

describe("planTeam", () => {
  it("a crash with a nested team: every cut-off agent in tree order; delegate calls matched to the sub-agents they started", () => {
    const log = [
      session(),
      ev({ type: "user_message", agentId: "coordinator", text: "go" }),
      started("coordinator", undefined, "coordinator", "go"),
      request("coordinator"),
      calls("coordinator", { id: "d1", name: "delegate", args: { agent: "editor", task: "fix x", label: "x" } }, { id: "d2", name: "delegate", args: { agent: "editor", task: "fix y", label: "y" } }),
      // Started in the other order than the calls: matched by task and label, not by order.
      started("editor-1", "coordinator", "editor", "fix y\n\n(context from a hook)", "y"),
      started("editor-2", "coordinator", "editor", "fix x", "x"),
      request("editor-2"),
      calls("editor-2", { id: "d3", name: "delegate", args: { agent: "explorer", task: "look" } }),
      started("explorer-1", "editor-2", "explorer", "look"),
      request("explorer-1"),
      request("editor-1"),
    ];
    expect(agentsOnly(planTeam(log, "coordinator"))).toEqual({
      agents: [
        { id: "coordinator", parentId: undefined, background: false, held: [{ callId: "d1", tool: "delegate", children: ["editor-2"], background: false }, { callId: "d2", tool: "delegate", children: ["editor-1"], background: false }] },
        { id: "editor-1", parentId: "coordinator", background: false, held: [] },
        { id: "editor-2", parentId: "coordinator", background: false, held: [{ callId: "d3", tool: "delegate", children: ["explorer-1"], background: false }] },
        { id: "explorer-1", parentId: "editor-2", background: false, held: [] },
      ],
    });
  });

  it("a sub-agent cancelled by itself whose result its parent has read is not continued; one cut off by the run's cancel is", () => {
    const log = [
      session(),
      started("coordinator", undefined, "coordinator", "go"),
      request("coordinator"),
      calls("coordinator", { id: "d1", name: "delegate", args: { agent: "tester", task: "one" } }),
      started("tester-1", "coordinator", "tester", "one"),
      ended("tester-1", "cancelled"),
      finished("coordinator", "d1", "delegate", "status: cancelled"),
      request("coordinator"),
      calls("coordinator", { id: "d2", name: "delegate", args: { agent: "tester", task: "two", background: true } }, { id: "w1", name: "wait_agents", args: {} }),
      started("tester-2", "coordinator", "tester", "two"),
      ev({ type: "agent_backgrounded", agentId: "tester-2", parentId: "coordinator", by: "delegate" }),
      finished("coordinator", "d2", "delegate", "started in the background"),
      ended("tester-2", "cancelled"),
      finished("coordinator", "w1", "wait_agents", "cancelled while waiting"),
      ended("coordinator", "cancelled"),
    ];
    expect(agentsOnly(planTeam(log, "coordinator"))).toEqual({
      agents: [
        // The answered background delegate is not held; the wait (all background ones) is.
        { id: "coordinator", parentId: undefined, background: false, held: [{ callId: "w1", tool: "wait_agents", children: ["tester-2"], background: false }] },
        { id: "tester-2", parentId: "coordinator", background: true, held: [] },
      ],
    });
  });

  it("a background delegate cut before its answer is held (answered at once on resume); delegate {resume} names its sub-agent", () => {
    const log = [
      session(),
      started("coordinator", undefined, "coordinator", "go"),
      started("tester-1", "coordinator", "tester", "old"),
      ended("tester-1", "done"),
      request("coordinator"),
      calls("coordinator", { id: "r1", name: "delegate", args: { resume: "tester-1", task: "again" } }, { id: "b1", name: "delegate", args: { agent: "explorer", task: "scan", background: true } }),
      ev({ type: "user_message", agentId: "tester-1", parentId: "coordinator", text: "again" }),
      started("explorer-1", "coordinator", "explorer", "scan"),
    ];
    expect(planTeam(log, "coordinator")?.agents[0]!.held).toEqual([
      { callId: "r1", tool: "delegate", children: ["tester-1"], background: false },
      { callId: "b1", tool: "delegate", children: ["explorer-1"], background: true },
    ]);
    expect(planTeam(log, "coordinator")?.agents.map((a) => [a.id, a.background])).toEqual([
      ["coordinator", false],
      ["tester-1", false],
      ["explorer-1", true],
    ]);
  });

  it("nothing to continue: a finished run, or a stopped one with no sub-agent at work", () => {
    const done = [session(), started("coordinator", undefined, "coordinator", "go"), started("tester-1", "coordinator", "tester", "t"), ended("tester-1", "done"), ended("coordinator", "done")];
    expect(planTeam(done, "coordinator")).toBeNull();
    const alone = [session(), started("coordinator", undefined, "coordinator", "go"), request("coordinator"), calls("coordinator", { id: "c1", name: "bash", args: { command: "make" } })];
    expect(planTeam(alone, "coordinator")).toBeNull();
    // Its sub-agent was cancelled, and the coordinator read that before the crash.
    const read = [...alone.slice(0, 2), started("tester-1", "coordinator", "tester", "t"), ended("tester-1", "cancelled"), request("coordinator")];
    expect(planTeam(read, "coordinator")).toBeNull();
  });
});
