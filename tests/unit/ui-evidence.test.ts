import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import type { EventInput, OrcaEvent } from "../../src/events/types.js";
import { initialState, reduce } from "../../src/ui/state/reducer.js";
import type { DashboardState, Entry } from "../../src/ui/state/types.js";
import { diffWindow, rowsOf } from "../../src/ui/wrap.js";

let ts = 1000;
const run = (events: EventInput[], state: DashboardState = initialState("coordinator")): DashboardState =>
  events.reduce((s, e) => reduce(s, { ...e, ts: (ts += 10), sessionId: "s" } as OrcaEvent), state);
const started = (id: string, label?: string): EventInput => ({ type: "agent_started", agentId: id, parentId: "coordinator", name: "explorer", label, task: "t", tools: [], depth: 1, model: "m", system: "s" });
const texts = (entries: readonly Entry[]) => entries.map((e) => (e.kind === "tool" ? `[${e.name}]` : `${e.kind}: ${e.text}`));

describe("inline diffs in a pane", () => {
  const body = ["@@ -1,8 +1,8 @@", " one", " two", " three", "-four", "+FOUR", " five", " six", " seven"];

  it("show the first changed line when the hunk opens with more context than fits", () => {
    expect(diffWindow(body, 4)).toEqual(["@@ -1,8 +1,8 @@", " three", "-four", "+FOUR"]);
    expect(diffWindow(body, 2)).toEqual([" three", "-four"]);
    expect(diffWindow(body, 1)).toEqual(["-four"]);
  });

  it("are left as they are when the first change fits", () => {
    const near = ["@@ -1,3 +1,3 @@", " one", "-two", "+TWO", " three"];
    expect(diffWindow(near, 4)).toEqual(near.slice(0, 4));
  });

  it("an edit's rows under its call hold its change, never only context", () => {
    const diff = ["--- a/f.txt", "+++ b/f.txt", ...body, ""].join("\n");
    const state = run([
      { type: "assistant_message", agentId: "coordinator", content: "", toolCalls: [{ id: "e1", name: "edit_file", raw: "{}", args: { path: "f.txt" } }] },
      { type: "tool_finished", agentId: "coordinator", callId: "e1", name: "edit_file", ok: true, status: "ok", content: "ok", durationMs: 2, diff },
    ]);
    const entry = state.agents.coordinator!.entries.find((e) => e.kind === "tool")!;
    const rows = rowsOf(entry, 80, "pane").map((r) => stripVTControlCharacters(r.text).trim());
    expect(rows).toContain("-four");
    expect(rows).toContain("+FOUR");
    expect(rows.at(-1)).toMatch(/… 5 more diff lines/);
  });
});

describe("background results and evidence in the panes", () => {
  it("a background sub-agent's result is a notice in its parent's pane, not a user turn", () => {
    const state = run([
      started("explorer-1", "scan docs"),
      { type: "user_message", agentId: "coordinator", text: "please look" },
      { type: "user_message", agentId: "coordinator", text: "[background sub-agent explorer-1 ended]\nagent: explorer-1 (explorer, \"scan docs\")\nstatus: done\n--- answer ---\nfound it" },
    ]);
    expect(texts(state.agents.coordinator!.entries)).toEqual([
      "user: please look",
      "notice: ↥ background sub-agent explorer-1 [scan docs] ended: done — its result is handed to this agent",
    ]);
  });

  it("verify runs and the change set are lines in the agent's pane; a flag is an error line", () => {
    const state = run([
      started("explorer-2"),
      { type: "verify_finished", agentId: "explorer-2", parentId: "coordinator", command: "npm test", exitCode: 1, status: "ok", durationMs: 2500, output: "", tests: { runner: "npm test", passed: 3, failed: 1 } },
      {
        type: "change_set",
        agentId: "explorer-2",
        parentId: "coordinator",
        label: "explorer-2",
        task: "t",
        status: "done",
        steps: 2,
        files: [{ path: "a.ts", status: "modified", added: 2, removed: 1 }],
        commands: [{ command: "npm test", exit: 1, ms: 2500, tests: { runner: "npm test", passed: 3, failed: 1 }, verify: true }],
        flags: [{ rule: "verify-failed", message: "verify command failed", evidence: [] }],
        usage: { input: 1, output: 1, cached: 0 },
      },
    ]);
    const entries = state.agents["explorer-2"]!.entries.slice(-2);
    expect(texts(entries)).toEqual([
      "error: ✗ verify: npm test — exit 1 · 2.5 s · npm test: 3 passed, 1 failed",
      "error: change set: 1 file (+2 −1) · 1 command · tests: npm test: 3 passed, 1 failed · ⚑ 1 flag: verify-failed",
    ]);
  });
});
