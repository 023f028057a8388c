import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SessionLog, readLog } from "../../src/events/log.js";
import type { EventInput, OrcaEvent, ToolCall } from "../../src/events/types.js";
import { INTERRUPTED_RESULT, rebuildSession } from "../../src/sessions/rebuild.js";
import { loadSession, repairTornTail } from "../../src/sessions/resume-plan.js";
import { latestSession, listSessions, readSessionInfo } from "../../src/sessions/store.js";

let ts = 1_000;
function ev(sessionId: string, input: EventInput): OrcaEvent {
  return { ...input, ts: ts++, sessionId } as OrcaEvent;
}
const S = "s1";
const e = (input: EventInput) => ev(S, input);
const call = (id: string, name = "read_file"): ToolCall => ({ id, name, raw: "{}", args: {} });
const started = (workspace = "/w") => e({ type: "session_started", agentId: "coordinator", workspace, model: "m", configPath: null, version: "0" });
const agentStarted = (agentId: string, task: string, parentId?: string) =>
  e({ type: "agent_started", agentId, parentId, name: agentId.replace(/-\d+$/, ""), task, tools: [], depth: parentId ? 1 : 0, model: "m", system: `system of ${agentId}` });
const finished = (agentId: string, callId: string, content: string) => e({ type: "tool_finished", agentId, callId, name: "read_file", ok: true, content, durationMs: 1 });

describe("rebuildSession", () => {
  it("puts results in call order, answers unfinished calls as interrupted, and marks running agents cancelled", () => {
    const events = [
      started(),
      e({ type: "user_message", agentId: "coordinator", text: "first" }),
      agentStarted("coordinator", "first"),
      e({ type: "model_request", agentId: "coordinator", step: 1, messageCount: 2, tokenEstimate: 10 }),
      e({ type: "usage", agentId: "coordinator", input: 10, output: 2, cached: 1 }),
      e({ type: "assistant_message", agentId: "coordinator", content: "reading", toolCalls: [call("a"), call("b"), call("c"), call("d")] }),
      e({ type: "tool_queued", agentId: "coordinator", callId: "c", name: "read_file", args: {}, access: { reads: [], writes: [] }, waitsFor: [] }),
      e({ type: "tool_started", agentId: "coordinator", callId: "b", name: "read_file" }),
      finished("coordinator", "b", "B"),
      finished("coordinator", "a", "A"),
      e({ type: "tool_started", agentId: "coordinator", callId: "c", name: "read_file" }),
    ];
    const rebuilt = rebuildSession(events);
    expect(rebuilt).toMatchObject({ sessionId: S, workspace: "/w", rootAgentId: "coordinator" });
    const [coordinator] = rebuilt.agents;
    expect(coordinator!.history).toEqual([
      { role: "system", content: "system of coordinator" },
      { role: "user", content: "first" },
      { role: "assistant", content: "reading", toolCalls: [call("a"), call("b"), call("c"), call("d")] },
      { role: "tool", toolCallId: "a", content: "A" },
      { role: "tool", toolCallId: "b", content: "B" },
      { role: "tool", toolCallId: "c", content: INTERRUPTED_RESULT },
      { role: "tool", toolCallId: "d", content: INTERRUPTED_RESULT },
    ]);
    expect(coordinator).toMatchObject({ status: "cancelled", steps: 1, usage: { input: 10, output: 2, cached: 1 }, interruptedCalls: ["c", "d"] });
  });

  it("replays a conversation rewind to the history at that turn's checkpoint, compaction after it notwithstanding", () => {
    const cp = (id: string) => e({ type: "checkpoint", agentId: "coordinator", id, reason: "turn", label: id });
    const events = [
      started(),
      cp("t1"),
      e({ type: "user_message", agentId: "coordinator", text: "one" }),
      agentStarted("coordinator", "one"),
      e({ type: "assistant_message", agentId: "coordinator", content: "answer one", toolCalls: [] }),
      cp("t2"),
      e({ type: "user_message", agentId: "coordinator", text: "two" }),
      e({ type: "assistant_message", agentId: "coordinator", content: "answer two", toolCalls: [] }),
      e({ type: "compacted", agentId: "coordinator", summary: "all of it", roundsSummarised: 2, replacedMessages: 3, beforeTokens: 10, afterTokens: 2 }),
      e({ type: "conversation_rewound", agentId: "coordinator", checkpoint: "t2", label: "two", removed: 2 }),
    ];
    const rebuilt = rebuildSession(events);
    expect(rebuilt.agents[0]!.history).toEqual([
      { role: "system", content: "system of coordinator" },
      { role: "user", content: "one" },
      { role: "assistant", content: "answer one", toolCalls: [] },
    ]);
    expect(rebuilt.conversationAt.get("t2")!.prompt).toBe("two");
    expect(rebuilt.conversationAt.get("t1")).toEqual({ history: [], prompt: "one" });
    // Back to before the first prompt: nothing, so the next turn starts the coordinator afresh.
    const again = rebuildSession([...events, e({ type: "conversation_rewound", agentId: "coordinator", checkpoint: "t1", label: "one", removed: 3 })]);
    expect(again.agents[0]!.history).toEqual([]);
  });

  it("replays follow-up turns, sub-agents, their continuation and compaction", () => {
    const events = [
      started(),
      e({ type: "user_message", agentId: "coordinator", text: "one" }),
      agentStarted("coordinator", "one"),
      e({ type: "assistant_message", agentId: "coordinator", content: "", toolCalls: [call("d1", "delegate")] }),
      e({ type: "tool_started", agentId: "coordinator", callId: "d1", name: "delegate" }),
      agentStarted("explorer-1", "look", "coordinator"),
      e({ type: "assistant_message", agentId: "explorer-1", parentId: "coordinator", content: "", toolCalls: [call("x1")] }),
      finished("explorer-1", "x1", "X1"),
      e({ type: "assistant_message", agentId: "explorer-1", parentId: "coordinator", content: "", toolCalls: [call("x2")] }),
      finished("explorer-1", "x2", "X2"),
      e({ type: "compacted", agentId: "explorer-1", parentId: "coordinator", beforeTokens: 9, afterTokens: 5, roundsSummarised: 1, summary: "looked at x1", replacedMessages: 2 }),
      e({ type: "assistant_message", agentId: "explorer-1", parentId: "coordinator", content: "found it", toolCalls: [] }),
      e({ type: "agent_finished", agentId: "explorer-1", parentId: "coordinator", status: "done", result: "found it", steps: 3, usage: { input: 0, output: 0, cached: 0 }, filesChanged: ["a.txt"] }),
      finished("coordinator", "d1", "agent: explorer-1 … found it"),
      e({ type: "assistant_message", agentId: "coordinator", content: "done one", toolCalls: [] }),
      e({ type: "agent_finished", agentId: "coordinator", status: "done", result: "done one", steps: 2, usage: { input: 0, output: 0, cached: 0 }, filesChanged: [] }),
      e({ type: "session_finished", agentId: "coordinator", status: "done", durationMs: 5 }),
      e({ ...started(), resumedFrom: S } as EventInput),
      e({ type: "user_message", agentId: "coordinator", text: "two" }),
      e({ type: "user_message", agentId: "explorer-1", parentId: "coordinator", text: "look again" }),
    ];
    const { agents } = rebuildSession(events);
    expect(agents.map((a) => [a.id, a.status, a.parentId])).toEqual([
      ["coordinator", "cancelled", undefined],
      ["explorer-1", "cancelled", "coordinator"],
    ]);
    const [coordinator, explorer] = agents;
    expect(coordinator!.history.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
    expect(coordinator!.history.at(-1)).toEqual({ role: "user", content: "two" });
    expect(explorer!.history).toEqual([
      { role: "system", content: "system of explorer-1" },
      { role: "user", content: "look" },
      { role: "user", content: expect.stringMatching(/^\[Summary of the earlier conversation \(1 rounds\).*\nlooked at x1$/s) },
      { role: "assistant", content: "", toolCalls: [call("x2")] },
      { role: "tool", toolCallId: "x2", content: "X2" },
      { role: "assistant", content: "found it", toolCalls: [] },
      { role: "user", content: "look again" },
    ]);
    expect(explorer!.filesChanged).toEqual(["a.txt"]);
    expect(explorer!.label).toBeUndefined();
  });

  it("refuses a log without session_started", () => {
    expect(() => rebuildSession([])).toThrow(/no session_started/);
  });
});

describe("session files", () => {
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function writeSession(id: string, workspace: string, events: EventInput[]): string {
    const file = path.join(dir, "sessions", `${id}.jsonl`);
    const log = new SessionLog(file);
    for (const input of events) log.append(ev(id, input));
    log.close();
    return file;
  }

  it("lists by last activity, reads status from the tail, and picks the latest of a workspace", () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-sessions-"));
    const ws1 = fs.mkdtempSync(path.join(dir, "ws1-"));
    const ws2 = fs.mkdtempSync(path.join(dir, "ws2-"));
    const head = (ws: string): EventInput[] => [
      { type: "session_started", agentId: "coordinator", workspace: ws, model: "m", configPath: null, version: "0" },
      { type: "user_message", agentId: "coordinator", text: `hello from ${path.basename(ws)}` },
    ];
    writeSession("a", ws1, [...head(ws1), { type: "session_finished", agentId: "coordinator", status: "done", durationMs: 1 }]);
    // A long session: the tail window does not reach the head.
    const filler: EventInput[] = Array.from({ length: 2000 }, () => ({ type: "text_delta", agentId: "coordinator", text: "x".repeat(60) }));
    writeSession("b", ws2, [...head(ws2), ...filler]);
    writeSession("c", ws1, [...head(ws1), { type: "session_finished", agentId: "coordinator", status: "budget", durationMs: 1 }]);

    const list = listSessions(dir);
    expect(list.map((s) => [s.id, s.status, s.firstPrompt])).toEqual([
      ["c", "budget", `hello from ${path.basename(ws1)}`],
      ["b", "interrupted", `hello from ${path.basename(ws2)}`],
      ["a", "done", `hello from ${path.basename(ws1)}`],
    ]);
    expect(latestSession(dir, ws2)?.id).toBe("b");
    expect(latestSession(dir, ws1)?.id).toBe("c");
    expect(latestSession(dir)?.id).toBe("c");
    expect(latestSession(dir, path.join(dir, "elsewhere"))).toBeNull();
  });

  it("a torn tail is reported by the reader, then cut so appends start on a line of their own", () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-sessions-"));
    const file = writeSession("t", dir, [
      { type: "session_started", agentId: "coordinator", workspace: dir, model: "m", configPath: null, version: "0" },
      { type: "user_message", agentId: "coordinator", text: "hi" },
    ]);
    fs.appendFileSync(file, '{"type":"user_mess');
    expect(readLog(file).skipped).toEqual([{ line: 3, reason: "torn last line" }]);
    expect(readSessionInfo(file)?.firstPrompt).toBe("hi");
    const loaded = loadSession(file);
    expect(loaded.skipped).toHaveLength(1);
    expect(fs.readFileSync(file, "utf8").endsWith("}\n")).toBe(true);
    expect(repairTornTail(file)).toBe(false);
    const log = new SessionLog(file);
    log.append(ev("t", { type: "user_message", agentId: "coordinator", text: "after" }));
    log.close();
    const after = readLog(file);
    expect(after.skipped).toEqual([]);
    expect(after.events.map((x) => x.type)).toEqual(["session_started", "user_message", "user_message"]);
  });
});
