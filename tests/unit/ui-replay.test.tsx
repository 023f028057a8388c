import { FakeIn, FakeOut } from "./fake-terminal.js";
import { describe, expect, it, vi } from "vitest";
import type { EventInput, OrcaEvent } from "../../src/events/types.js";
import { DialogApprover } from "../../src/ui/dialog-approver.js";
import { runDashboard } from "../../src/ui/render.js";
import { LEAVE } from "../../src/ui/screen.js";
import { INTERRUPTED_CALL, interruptRunning, replayState, RESUMED_NOTE } from "../../src/ui/state/replay.js";
import { DashboardStore } from "../../src/ui/state/store.js";
import type { Entry, ToolEntry } from "../../src/ui/state/types.js";
import { TestSession } from "./ui-session.js";

let ts = 1_000;
function log(sessionId: string, inputs: EventInput[]): OrcaEvent[] {
  return inputs.map((input) => ({ ...input, ts: (ts += 10), sessionId }) as OrcaEvent);
}

const texts = (entries: readonly Entry[]): string[] => entries.map((e) => (e.kind === "tool" ? `[${e.name}:${e.state}]` : e.text));
const tool = (entries: readonly Entry[], callId: string): ToolEntry | undefined => entries.find((e): e is ToolEntry => e.kind === "tool" && e.callId === callId);

const sessionStarted = (resumedFrom?: string): EventInput => ({
  type: "session_started",
  agentId: "root",
  workspace: "/tmp/ws",
  model: "old-model",
  configPath: null,
  version: "0.1.0",
  ...(resumedFrom ? { resumedFrom } : {}),
});
const agentStarted = (id: string, name: string, label: string, task: string): EventInput => ({
  type: "agent_started",
  agentId: id,
  parentId: "root",
  name,
  label,
  task,
  tools: ["read_file"],
  depth: 1,
  model: "m",
  system: "sys",
});
const rootStarted = (task: string): EventInput => ({ type: "agent_started", agentId: "root", name: "root", task, tools: ["delegate"], depth: 0, model: "m", system: "sys" });
const usage = { input: 0, output: 0, cached: 0 };

/** A session killed while one sub-agent was in the middle of a bash call. */
function crashedSession(id = "sess-1234abcd"): OrcaEvent[] {
  return log(id, [
    sessionStarted(),
    { type: "user_message", agentId: "root", text: "fix the flaky test" },
    rootStarted("fix the flaky test"),
    { type: "model_request", agentId: "root", step: 1, messageCount: 2, tokenEstimate: 10 },
    { type: "text_delta", agentId: "root", text: "Looking at " },
    { type: "text_delta", agentId: "root", text: "it now." },
    {
      type: "assistant_message",
      agentId: "root",
      content: "Looking at it now.",
      toolCalls: [
        { id: "d1", name: "delegate", raw: "{}", args: { agent: "explorer", label: "map", task: "map the code" } },
        { id: "d2", name: "delegate", raw: "{}", args: { agent: "tester", label: "run", task: "run the tests" } },
      ],
    },
    { type: "usage", agentId: "root", input: 1200, output: 300, cached: 0 },
    agentStarted("explorer-1", "explorer", "map", "map the code"),
    agentStarted("tester-1", "tester", "run", "run the tests"),
    { type: "assistant_message", agentId: "explorer-1", content: "The test lives in a.test.ts.", toolCalls: [] },
    { type: "usage", agentId: "explorer-1", input: 500, output: 40, cached: 0 },
    { type: "agent_finished", agentId: "explorer-1", parentId: "root", status: "done", result: "mapped", steps: 1, usage: { input: 500, output: 40, cached: 0 }, filesChanged: [] },
    { type: "tool_finished", agentId: "root", callId: "d1", name: "delegate", ok: true, content: "mapped", durationMs: 5 },
    { type: "assistant_message", agentId: "tester-1", content: "", toolCalls: [{ id: "b1", name: "bash", raw: "{}", args: { command: "npm test" } }] },
    { type: "tool_queued", agentId: "tester-1", callId: "b1", name: "bash", args: { command: "npm test" }, access: "exclusive", waitsFor: [] },
    { type: "tool_started", agentId: "tester-1", callId: "b1", name: "bash" },
  ]);
}

describe("replaying a logged session into the dashboard state", () => {
  it("shows the conversation and every pane's final state; what was running is interrupted", () => {
    const state = replayState("root", crashedSession());
    const root = state.agents.root!;
    expect(texts(root.entries)).toEqual(["fix the flaky test", "Looking at it now.", "[delegate:ok]", "[delegate:cancelled]", "■ interrupted · the session stopped while it ran", RESUMED_NOTE]);
    expect(tool(root.entries, "d2")?.error).toBe(INTERRUPTED_CALL);
    expect(root.status).toBe("cancelled");

    expect(state.order).toEqual(["explorer-1", "tester-1"]);
    const explorer = state.agents["explorer-1"]!;
    expect(explorer.status).toBe("done");
    expect(texts(explorer.entries)).toEqual(["task: map the code", "The test lives in a.test.ts.", "✓ done · 1 step"]);

    const tester = state.agents["tester-1"]!;
    expect(tester.status).toBe("cancelled");
    expect(tester.currentTool).toBeUndefined();
    expect(tool(tester.entries, "b1")).toMatchObject({ state: "cancelled", error: INTERRUPTED_CALL });
    expect(texts(tester.entries).at(-1)).toBe("■ interrupted · the session stopped while it ran");

    // Nothing is left in the queue line, the tokens so far are counted, and the header says resumed.
    expect(state.active).toEqual({});
    expect(state.totals).toMatchObject({ input: 1700, output: 340 });
    expect(state.session).toMatchObject({ id: "sess-1234abcd", workspace: "/tmp/ws", resumed: true });
    // The header shows the model the resumed session runs with, not the logged one.
    expect(state.session.model).toBeUndefined();
  });

  it("treats each earlier resume in the log as a boundary: what ran before it was interrupted, then resumed", () => {
    const first = crashedSession();
    const second = log("sess-1234abcd", [
      sessionStarted("sess-1234abcd"),
      { type: "user_message", agentId: "root", text: "carry on" },
      rootStarted("carry on"),
      agentStarted("tester-1", "tester", "run", "run them again"),
      { type: "agent_finished", agentId: "tester-1", parentId: "root", status: "done", result: "green", steps: 1, usage, filesChanged: [] },
      { type: "agent_finished", agentId: "root", status: "done", result: "fixed", steps: 2, usage, filesChanged: [] },
      { type: "session_finished", agentId: "root", status: "idle", durationMs: 100 },
    ]);
    const state = replayState("root", [...first, ...second]);
    const root = state.agents.root!;
    const rootTexts = texts(root.entries);
    expect(rootTexts.indexOf("— resumed —")).toBeGreaterThan(rootTexts.indexOf("[delegate:cancelled]"));
    expect(rootTexts.indexOf("carry on")).toBeGreaterThan(rootTexts.indexOf("— resumed —"));
    expect(rootTexts.at(-1)).toBe(RESUMED_NOTE);
    expect(root.status).toBe("done");

    const tester = state.agents["tester-1"]!;
    expect(tester.status).toBe("done");
    const testerTexts = texts(tester.entries);
    expect(testerTexts).toContain("■ interrupted · the session stopped while it ran");
    expect(testerTexts.indexOf("— resumed: run them again")).toBeGreaterThan(testerTexts.indexOf("■ interrupted · the session stopped while it ran"));
    // Finished cleanly this time: no interruption line after the last resume.
    expect(testerTexts.at(-1)).toBe("✓ done · 1 step");
  });

  it("leaves a state with nothing running untouched", () => {
    const done = replayState("root", log("s", [sessionStarted(), rootStarted("hi"), { type: "agent_finished", agentId: "root", status: "done", result: "", steps: 1, usage, filesChanged: [] }]));
    expect(interruptRunning(done, 99)).toBe(done);
    expect(replayState("root", []).session.resumed).toBeUndefined();
  });

  it("the store starts from the replayed state and keeps the scheduler counts it follows", () => {
    const store = new DashboardStore({ rootAgentId: "root" });
    const session = new TestSession();
    store.replay(crashedSession());
    store.attachScheduler(session);
    session.setCounts({ running: 1, waiting: 0 });
    store.flush();
    const state = store.getSnapshot();
    expect(state.session.resumed).toBe(true);
    expect(state.scheduler).toEqual({ running: 1, waiting: 0 });
    expect(state.agents["tester-1"]?.status).toBe("cancelled");
    store.dispose();
  });
});


describe("runDashboard with a replay", () => {
  it("opens on the old conversation, says resumed, and emits nothing onto the bus", async () => {
    const out = new FakeOut(120, 36);
    const input = new FakeIn();
    const session = new TestSession();
    const seen: OrcaEvent[] = [];
    session.bus.subscribe((e) => seen.push(e));
    const done = runDashboard({
      session,
      approver: new DialogApprover(),
      stdout: out as unknown as NodeJS.WriteStream,
      stdin: input as unknown as NodeJS.ReadStream,
      replay: crashedSession(session.id),
    });
    await vi.waitFor(() => expect(out.text).toContain("Ctrl+C exit"));
    expect(out.text).toContain("fix the flaky test");
    expect(out.text).toContain("Looking at it now.");
    expect(out.text).toContain("tester-1 [run] cancelled");
    expect(out.text).toContain("explorer-1 [map] done");
    expect(out.text).toMatch(/ · resumed · /);
    expect(out.text).toContain("session sess-1234abcd");
    // The tokens so far: 1.2k + 300 + 500 + 40.
    expect(out.text).toContain("2.0k tok");
    expect(seen).toEqual([]);

    // Live events still arrive on top of the replayed state.
    session.emit({ type: "user_message", agentId: "root", text: "and now the docs" });
    await vi.waitFor(() => expect(out.text).toContain("and now the docs"));
    input.send("\u0003");
    await expect(done).resolves.toEqual({ exitCode: 0 });
    expect(out.text.endsWith(LEAVE)).toBe(true);
  });
});
