import { describe, expect, it } from "vitest";
import type { EventInput, OrcaEvent } from "../../src/events/types.js";
import { titleLine } from "../../src/ui/AgentPane.js";
import { summarizeArgs } from "../../src/ui/format.js";
import { initialState, reduce } from "../../src/ui/state/reducer.js";
import { replayState } from "../../src/ui/state/replay.js";
import type { DashboardState } from "../../src/ui/state/types.js";
import { tasksDocument } from "../../src/ui/task-panel.js";
import { stripVTControlCharacters as stripAnsi } from "node:util";

let ts = 0;
const ev = (e: EventInput): OrcaEvent => ({ ts: ++ts, sessionId: "s", ...e }) as OrcaEvent;
const run = (events: EventInput[], state: DashboardState = initialState("coordinator")) => events.reduce((s, e) => reduce(s, ev(e)), state);
const texts = (s: DashboardState, id: string) => s.agents[id]!.entries.map((e) => ("text" in e ? e.text : `[${e.kind}]`));

const TEAM: EventInput[] = [
  { type: "agent_started", agentId: "editor-1", parentId: "coordinator", name: "editor", label: "fix", task: "fix it", tools: [], depth: 1, model: "m", system: "" },
  { type: "agent_started", agentId: "tester-1", parentId: "coordinator", name: "tester", task: "test it", tools: [], depth: 1, model: "m", system: "" },
  { type: "task_created", agentId: "coordinator", taskId: "t1", title: "fix subtract", dependsOn: [], scope: ["src/math.js"] },
  { type: "task_created", agentId: "coordinator", taskId: "t2", title: "run tests", dependsOn: ["t1"], scope: [] },
  { type: "task_updated", agentId: "coordinator", taskId: "t1", owner: "editor-1", status: "in_progress", by: "orca" },
];

describe("the team on the dashboard", () => {
  it("a message between agents shows in both panes, from its sender; its delivery is not shown again as the person's words", () => {
    const s = run([
      ...TEAM,
      { type: "agent_message", agentId: "editor-1", parentId: "coordinator", to: "tester-1", text: "wait for my edit" },
      { type: "user_message", agentId: "tester-1", parentId: "coordinator", text: "[message from editor-1]\nwait for my edit", from: "editor-1" },
    ]);
    expect(texts(s, "editor-1")).toContain("✉ to tester-1: wait for my edit");
    expect(texts(s, "tester-1")).toContain("✉ from editor-1: wait for my edit");
    expect(s.agents["tester-1"]!.entries.filter((e) => e.kind === "user")).toEqual([]);
    // The sender's tool line names the receiver only: the ✉ line under it carries the text once.
    expect(summarizeArgs("message_agent", { id: "tester-1", text: "wait for my edit" })).toBe("→ tester-1");
  });

  it("keeps the board, titles an owner's pane with its task, and /tasks lists status, owner and blockers", () => {
    const s = run(TEAM);
    expect(s.tasks?.tasks.map((t) => `${t.id}:${t.status}:${t.owner ?? "-"}`)).toEqual(["t1:in_progress:editor-1", "t2:pending:-"]);
    expect(stripAnsi(titleLine(s.agents["editor-1"]!, 0, ts, false))).toMatch(/^. editor-1 \[fix\] running ▸ t1 fix subtract · /);
    const doc = tasksDocument(s).lines.map((l) => l.text);
    expect(doc).toContain("● t1 in_progress fix subtract · editor-1 [fix]");
    expect(doc).toContain("○ t2 pending     run tests · no owner · blocked by t1 in_progress");
    expect(doc).toContain("    depends on t1");
  });

  it("a pane named as a task's owner before its agent starts heads with its task, not as resumed", () => {
    const s = run([
      { type: "task_created", agentId: "coordinator", taskId: "t1", title: "fix subtract", dependsOn: [], scope: [] },
      { type: "task_updated", agentId: "coordinator", taskId: "t1", owner: "editor-1", status: "in_progress", by: "orca" },
      { type: "agent_started", agentId: "editor-1", parentId: "coordinator", name: "editor", task: "fix it", tools: [], depth: 1, model: "m", system: "" },
    ]);
    expect(texts(s, "editor-1")).toEqual(["task: fix it"]);
    expect(s.agents["editor-1"]!.boardTask).toEqual({ id: "t1", title: "fix subtract" });
  });

  it("an overlap is a notice in the delegating pane; a resumed session's replay restores the board", () => {
    const s = run([...TEAM, { type: "task_overlap", agentId: "coordinator", taskId: "t3", otherTaskId: "t1", otherAgentId: "editor-1", files: ["src/math.js"], policy: "warn", decision: "warned", decidedBy: "config" }]);
    expect(texts(s, "coordinator")).toContain("⚠ scope overlap: t3 and t1 (editor-1) both match src/math.js — warned");
    const replayed = replayState("coordinator", TEAM.map(ev));
    expect(replayed.tasks).toEqual(run(TEAM).tasks);
  });
});
