import { describe, expect, it } from "vitest";
import type { EventInput, OrcaEvent } from "../../src/events/types.js";
import { computeLayout } from "../../src/ui/layout.js";
import { editorReducer, emptyEditor, type EditorAction } from "../../src/ui/state/editor.js";
import { initialState, reduce, subAgents } from "../../src/ui/state/reducer.js";
import { terminalSafe as sanitize } from "../../src/util/terminal-text.js";
import type { DashboardState, Entry, ToolEntry } from "../../src/ui/state/types.js";
import { initialView, viewReducer } from "../../src/ui/state/ui.js";
import { allRows, tailRows } from "../../src/ui/wrap.js";

let ts = 1000;
function ev(input: EventInput): OrcaEvent {
  ts += 10;
  return { ...input, ts, sessionId: "s" } as OrcaEvent;
}

function run(events: EventInput[], state: DashboardState = initialState("root")): DashboardState {
  return events.reduce((s, e) => reduce(s, ev(e)), state);
}

const texts = (entries: readonly Entry[]): string[] => entries.map((e) => (e.kind === "tool" ? `[${e.name}:${e.state}]` : e.text));
const started = (id: string, name: string, label?: string): EventInput => ({
  type: "agent_started",
  agentId: id,
  parentId: "root",
  name,
  label,
  task: "find the bug",
  tools: ["read_file"],
  depth: 1,
  model: "m",
  system: "s",
});

describe("dashboard reducer", () => {
  it("shows background, waiting and worktree events in the panes they belong to", () => {
    const s = run([
      started("a1", "wt-editor"),
      { type: "agent_backgrounded", agentId: "a1", parentId: "root", by: "delegate" },
      { type: "worktree", agentId: "a1", parentId: "root", action: "created", path: "/d/wt", branch: "orca/s/a1", message: "works in its own git worktree /d/wt (branch orca/s/a1)" },
      { type: "agent_waiting", agentId: "root", waitingFor: ["a1"] },
      { type: "worktree", agentId: "a1", parentId: "root", action: "conflict", files: ["f.txt"], message: "not merged: conflicts with the main tree in f.txt; branch orca/s/a1 kept" },
    ]);
    expect(s.agents.a1.background).toBe(true);
    expect(s.agents.a1.entries.map((e) => (e.kind === "tool" ? "" : `${e.kind}: ${e.text}`))).toEqual([
      "notice: task: find the bug",
      "notice: ↧ runs in the background: its parent goes on",
      "notice: worktree: works in its own git worktree /d/wt (branch orca/s/a1)",
      "error: worktree: not merged: conflicts with the main tree in f.txt; branch orca/s/a1 kept",
    ]);
    expect(texts(s.agents.root.entries)).toEqual(["… waiting for background sub-agents: a1"]);
  });

  it("creates a sub-agent on agent_started with its name, label, parent and task line", () => {
    const s = run([started("a1", "explorer", "auth")]);
    expect(subAgents(s).map((a) => [a.id, a.name, a.label, a.parentId, a.status])).toEqual([["a1", "explorer", "auth", "root", "running"]]);
    expect(texts(s.agents.a1.entries)).toEqual(["task: find the bug"]);
    expect(s.order).toEqual(["a1"]);
  });

  it("streams text deltas into lines, splitting at newlines, without duplicating the assistant message", () => {
    const s = run([
      { type: "model_request", agentId: "root", step: 1, messageCount: 2, tokenEstimate: 10 },
      { type: "text_delta", agentId: "root", text: "Hel" },
      { type: "text_delta", agentId: "root", text: "lo\nwor" },
      { type: "text_delta", agentId: "root", text: "ld" },
      { type: "assistant_message", agentId: "root", content: "Hello\nworld", toolCalls: [] },
      { type: "text_delta", agentId: "root", text: "next" },
    ]);
    // The finished message is one markdown block; the line still streaming stays raw.
    expect(texts(s.agents.root.entries)).toEqual(["Hello\nworld", "next"]);
    expect(s.agents.root.entries.map((e) => e.kind)).toEqual(["md", "text"]);
  });

  it("shows an assistant message that was not streamed", () => {
    const s = run([{ type: "assistant_message", agentId: "root", content: "whole answer", toolCalls: [] }]);
    expect(texts(s.agents.root.entries)).toEqual(["whole answer"]);
  });

  it("keeps thinking and text apart", () => {
    const s = run([
      { type: "thinking_delta", agentId: "root", text: "hmm" },
      { type: "text_delta", agentId: "root", text: "answer" },
    ]);
    expect(s.agents.root.entries.map((e) => e.kind)).toEqual(["thinking", "text"]);
  });

  it("follows a tool call through queued → waiting → running → done, with duration and the active set", () => {
    let s = run([
      started("a1", "editor"),
      { type: "tool_queued", agentId: "a1", callId: "c2", name: "edit_file", args: { path: "src/x.ts" }, access: { reads: [], writes: ["/w/src/x.ts"] }, waitsFor: ["c1"] },
    ]);
    const tool = (): ToolEntry => s.agents.a1.entries.find((e) => e.kind === "tool") as ToolEntry;
    expect(tool().state).toBe("waiting");
    expect(tool().summary).toBe("src/x.ts");
    expect(Object.values(s.active).map((c) => [c.callId, c.state, c.waitsFor])).toEqual([["c2", "waiting", ["c1"]]]);
    s = run([{ type: "tool_started", agentId: "a1", callId: "c2", name: "edit_file" }], s);
    expect(tool().state).toBe("running");
    expect(s.agents.a1.currentTool?.name).toBe("edit_file");
    s = run([{ type: "tool_finished", agentId: "a1", callId: "c2", name: "edit_file", ok: true, content: "ok", durationMs: 42 }], s);
    expect(tool()).toMatchObject({ state: "ok", durationMs: 42 });
    expect(s.agents.a1.currentTool).toBeUndefined();
    expect(s.active).toEqual({});
  });

  it("marks failed, cancelled and denied calls by their status, not by the wording of the error", () => {
    const q = (id: string): EventInput => ({ type: "tool_queued", agentId: "root", callId: id, name: "bash", args: { command: "ls" }, access: "exclusive", waitsFor: [] });
    const s = run([
      q("f"),
      { type: "tool_finished", agentId: "root", callId: "f", name: "bash", ok: false, status: "error", content: "Error: boom", error: "boom", durationMs: 1 },
      q("c"),
      { type: "tool_finished", agentId: "root", callId: "c", name: "bash", ok: false, status: "cancelled", content: "time budget reached (60s)", error: "time budget reached (60s)", durationMs: 1 },
      q("d"),
      { type: "permission_requested", agentId: "root", callId: "d", tool: "bash", args: {}, rule: "mode:default" },
      { type: "permission_decided", agentId: "root", callId: "d", tool: "bash", rule: "mode:default", decision: "deny", scope: "once", by: "user" },
      { type: "tool_finished", agentId: "root", callId: "d", name: "bash", ok: false, status: "denied", content: "denied", error: "denied by user", durationMs: 0 },
      // A failure whose text happens to say "cancel" (a test named so) is a failure.
      q("t"),
      { type: "tool_finished", agentId: "root", callId: "t", name: "bash", ok: false, status: "error", content: "FAIL test_cancel_order", error: "test_cancel_order failed", durationMs: 1 },
      q("o"),
      { type: "tool_finished", agentId: "root", callId: "o", name: "bash", ok: false, status: "timeout", content: "killed", error: "bash: command timed out", durationMs: 1 },
      // A denial by a hook or a rule, with no dialog before it.
      q("h"),
      { type: "tool_finished", agentId: "root", callId: "h", name: "bash", ok: false, status: "denied", content: "Error: denied by a PreToolUse hook", error: "denied by a PreToolUse hook", durationMs: 0 },
    ]);
    expect(texts(s.agents.root.entries)).toEqual(["[bash:failed]", "[bash:cancelled]", "[bash:denied]", "[bash:failed]", "[bash:failed]", "[bash:denied]"]);
  });

  it("reads a log written before tool statuses: ok decides", () => {
    const s = run([
      { type: "tool_queued", agentId: "root", callId: "x", name: "bash", args: { command: "ls" }, access: "exclusive", waitsFor: [] },
      { type: "tool_finished", agentId: "root", callId: "x", name: "bash", ok: false, content: "cancelled by user", error: "cancelled by user", durationMs: 1 },
    ]);
    expect(texts(s.agents.root.entries)).toEqual(["[bash:failed]"]);
  });

  it("shows a tool call as asking while a permission is pending", () => {
    const s = run([
      { type: "tool_queued", agentId: "root", callId: "c", name: "write_file", args: { path: "a" }, access: { reads: [], writes: ["/a"] }, waitsFor: [] },
      { type: "permission_requested", agentId: "root", callId: "c", tool: "write_file", args: {}, rule: "mode:default" },
    ]);
    expect(texts(s.agents.root.entries)).toEqual(["[write_file:asking]"]);
    const after = run([{ type: "permission_decided", agentId: "root", callId: "c", tool: "write_file", rule: "mode:default", decision: "allow", scope: "once", by: "user" }], s);
    expect(texts(after.agents.root.entries)).toEqual(["[write_file:queued]"]);
  });

  it("gives each call of an assistant message its line, with arguments, before any tool event", () => {
    let s = run([
      {
        type: "assistant_message",
        agentId: "root",
        content: "",
        toolCalls: [
          { id: "d1", name: "delegate", raw: "{}", args: { agent: "explorer", task: "map the repo", label: "map" } },
          { id: "b1", name: "bash", raw: "{oops", parseError: "bad json" },
        ],
      },
    ]);
    expect(texts(s.agents.root.entries)).toEqual(["[delegate:queued]", "[bash:queued]"]);
    expect((s.agents.root.entries[0] as ToolEntry).summary).toBe(`explorer "map"`);
    expect((s.agents.root.entries[1] as ToolEntry).summary).toContain("invalid arguments");
    // delegate is not scheduled: it starts without tool_queued and keeps its summary
    s = run([{ type: "tool_started", agentId: "root", callId: "d1", name: "delegate" }], s);
    expect(s.agents.root.entries[0]).toMatchObject({ state: "running", summary: `explorer "map"` });
    expect(s.agents.root.currentTool).toMatchObject({ name: "delegate", summary: `explorer "map"` });
  });

  it("follows the executor's order: permission first, then the queue", () => {
    let s = run([{ type: "permission_requested", agentId: "root", callId: "w", tool: "write_file", args: { path: "a.txt" }, rule: "mode:default" }]);
    expect(s.agents.root.entries[0]).toMatchObject({ state: "asking", summary: "a.txt" });
    s = run(
      [
        { type: "permission_decided", agentId: "root", callId: "w", tool: "write_file", rule: "mode:default", decision: "allow", scope: "once", by: "user" },
        { type: "tool_queued", agentId: "root", callId: "w", name: "write_file", args: { path: "a.txt" }, access: { reads: [], writes: ["/a.txt"] }, waitsFor: [] },
      ],
      s,
    );
    expect(texts(s.agents.root.entries)).toEqual(["[write_file:queued]"]);
  });

  it("keeps calls with the same model id apart across agents", () => {
    const s = run([
      started("a1", "x"),
      started("a2", "y"),
      { type: "tool_queued", agentId: "a1", callId: "call_1", name: "grep", args: {}, access: { reads: [], writes: [] }, waitsFor: [] },
      { type: "tool_queued", agentId: "a2", callId: "call_1", name: "glob", args: {}, access: { reads: [], writes: [] }, waitsFor: [] },
      { type: "tool_finished", agentId: "a1", callId: "call_1", name: "grep", ok: true, content: "", durationMs: 1 },
    ]);
    expect(Object.values(s.active).map((c) => [c.agentId, c.name])).toEqual([["a2", "glob"]]);
  });

  it("finishes an agent with status, steps and usage; sums usage and cost in totals", () => {
    const s = run([
      started("a1", "explorer"),
      { type: "usage", agentId: "a1", input: 100, output: 20, cached: 5, cost: 0.01 },
      { type: "usage", agentId: "root", input: 50, output: 10, cached: 0 },
      { type: "agent_finished", agentId: "a1", status: "cancelled", result: "partial", steps: 3, usage: { input: 100, output: 20, cached: 5 }, filesChanged: [] },
    ]);
    expect(s.agents.a1).toMatchObject({ status: "cancelled", steps: 3, tokens: { input: 100, output: 20 } });
    // The root's request had no price: the total's cost is only a part of it (issue 29: unknown, never $0).
    expect(s.totals).toEqual({ input: 150, output: 30, cached: 5, cost: 0.01, unpriced: true });
    expect(s.agents.a1!.tokens.unpriced).toBeUndefined();
    expect(s.agents.root!.tokens.unpriced).toBe(true);
    expect(texts(s.agents.a1.entries).at(-1)).toContain("cancelled");
  });

  it("leaves cost unknown until some usage reports one", () => {
    expect(run([{ type: "usage", agentId: "root", input: 1, output: 1, cached: 0 }]).totals.cost).toBeUndefined();
  });

  it("records session info, errors and compaction", () => {
    const s = run([
      { type: "session_started", agentId: "root", workspace: "/w", model: "gpt-x", configPath: null, version: "0.1.0" },
      { type: "error", agentId: "nobody", where: "model", message: "rate limited" },
      { type: "compacted", agentId: "root", beforeTokens: 900, afterTokens: 200, roundsSummarised: 4, summary: "", replacedMessages: 8 },
    ]);
    expect(s.session).toMatchObject({ model: "gpt-x", workspace: "/w", id: "s" });
    expect(texts(s.agents.root.entries)).toEqual(["error (model): rate limited", "context compacted: 900 → 200 tokens (4 rounds summarised)"]);
  });

  it("never modifies the state it is given", () => {
    const before = run([started("a1", "x"), { type: "text_delta", agentId: "a1", text: "abc" }]);
    const snapshot = JSON.stringify(before);
    run([{ type: "text_delta", agentId: "a1", text: "def\nghi" }, { type: "tool_started", agentId: "a1", callId: "c", name: "grep" }], before);
    expect(JSON.stringify(before)).toBe(snapshot);
  });

  it("bounds each pane's ring after 10k lines and counts what it dropped", () => {
    let s = initialState("root", 2000);
    for (let i = 0; i < 10_000; i++) s = reduce(s, ev({ type: "text_delta", agentId: "root", text: `line ${i}\n` }));
    const entries = s.agents.root.entries;
    expect(entries.length).toBe(2000);
    expect(entries.at(-2)).toMatchObject({ text: "line 9999" });
    expect(entries[0]).toMatchObject({ text: "line 8001" });
    expect(s.agents.root.dropped).toBe(10_001 - 2000);
  });

  it("breaks a huge unbroken line so one wrap never measures megabytes", () => {
    const s = run([{ type: "text_delta", agentId: "root", text: "x".repeat(10_000) }]);
    expect(s.agents.root.entries.every((e) => e.kind !== "tool" && e.text.length <= 4000)).toBe(true);
    expect(s.agents.root.entries.map((e) => (e.kind === "tool" ? "" : e.text)).join("")).toBe("x".repeat(10_000));
  });

  it("strips escape sequences and control characters from model output", () => {
    expect(sanitize("a\u001B[31mred\u001B[0m\u0007b\tc\r\nd")).toBe("aredb  c\nd");
    const s = run([{ type: "text_delta", agentId: "root", text: "\u001B[2Jclear" }]);
    expect(texts(s.agents.root.entries)).toEqual(["clear"]);
  });
});

describe("hooks in the dashboard", () => {
  const call = { id: "c1", name: "bash", raw: "{}", args: { command: "rm -rf build" } };
  const finished = (patch: Record<string, unknown>): EventInput =>
    ({ type: "hook_finished", agentId: "root", hookId: "h1", hookEvent: "PreToolUse", command: "./check.sh", exitCode: 0, durationMs: 12, outcome: "ok", decision: "none", ...patch }) as EventInput;

  it("marks a tool call's hook runs under its row, and a hook's denial on the row itself", () => {
    const s = run([
      { type: "assistant_message", agentId: "root", content: "", toolCalls: [call] },
      finished({ callId: "c1", exitCode: 2, decision: "deny", message: "no rm here" }),
      { type: "permission_decided", agentId: "root", callId: "c1", tool: "bash", rule: "hook PreToolUse: ./check.sh", decision: "deny", scope: "once", by: "hook", reason: "no rm here" },
      { type: "tool_finished", agentId: "root", callId: "c1", name: "bash", ok: false, content: "Error: denied by a PreToolUse hook: no rm here", error: "denied by a PreToolUse hook: no rm here", durationMs: 0 },
    ]);
    const tool = s.agents.root.entries[0] as ToolEntry;
    expect(tool).toMatchObject({ state: "denied", hooks: ["PreToolUse deny 12ms"], error: "denied by a PreToolUse hook: no rm here" });
    expect(allRows(s.agents.root.entries, 60, "pane").map((r) => r.text)).toEqual(["", "  ⚙ hook PreToolUse deny 12ms"]);
    // Zoomed, the whole error follows the hook line.
    expect(allRows(s.agents.root.entries, 60, "zoom").map((r) => r.text)).toEqual(["", "  ⚙ hook PreToolUse deny 12ms", "  denied by a PreToolUse hook: no rm here"]);
  });

  it("shows a hook outside a tool call only when it did something or has a message", () => {
    const s = run([
      finished({ hookEvent: "Stop" }),
      finished({ hookEvent: "Stop", decision: "block", message: "run the tests first" }),
      finished({ hookEvent: "SessionStart", exitCode: null, outcome: "timeout", message: "timed out after 1 s and was killed" }),
      finished({ hookEvent: "Notification", systemMessage: "pinged your phone" }),
    ]);
    expect(texts(s.agents.root.entries)).toEqual([
      "⚙ hook Stop block 12ms — run the tests first",
      "⚙ hook SessionStart timeout 12ms — timed out after 1 s and was killed",
      "⚙ hook Notification 12ms — pinged your phone",
    ]);
  });
});

describe("the sandbox in the dashboard", () => {
  it("marks under each command's row where it runs, and a command outside any sandbox stands out", () => {
    const calls = ["ls", "make", "npm i"].map((command, i) => ({ id: `c${i}`, name: "bash", raw: "{}", args: { command } }));
    const decided = (callId: string, sandbox: "read-only" | "workspace-write" | "none"): EventInput => ({
      type: "permission_decided",
      agentId: "root",
      callId,
      tool: "bash",
      rule: "mode:default",
      decision: "allow",
      scope: "once",
      by: "mode",
      sandboxed: sandbox !== "none",
      sandbox,
    });
    const s = run([{ type: "assistant_message", agentId: "root", content: "", toolCalls: calls }, decided("c0", "read-only"), decided("c1", "workspace-write"), decided("c2", "none")]);
    expect(s.agents.root.entries.map((e) => (e as ToolEntry).sandbox)).toEqual(["read-only", "workspace-write", "none"]);
    expect(allRows(s.agents.root.entries, 60).map((r) => r.text)).toEqual(["", "  ⛨ read-only sandbox", "", "  ⛨ sandbox", "", "  ⚠ no sandbox"]);
  });
});

describe("wrapping", () => {
  it("pre-wraps lines to the pane width and returns only the tail", () => {
    const s = run([{ type: "text_delta", agentId: "root", text: "aaaa bbbb cccc dddd\nshort" }]);
    const rows = allRows(s.agents.root.entries, 10);
    expect(rows.map((r) => r.text.trimEnd())).toEqual(["aaaa bbbb", "cccc dddd", "short"]);
    expect(tailRows(s.agents.root.entries, 10, 2).map((r) => r.text.trimEnd())).toEqual(["cccc dddd", "short"]);
    expect(tailRows(s.agents.root.entries, 40, 5).map((r) => r.text)).toEqual(["aaaa bbbb cccc dddd", "short"]);
  });

  it("re-wraps on a width change and reuses the wrap otherwise", () => {
    const s = run([{ type: "text_delta", agentId: "root", text: "one two three" }]);
    const a = allRows(s.agents.root.entries, 8);
    expect(allRows(s.agents.root.entries, 8)[0]).toBe(a[0]);
    expect(allRows(s.agents.root.entries, 80).length).toBe(1);
  });
});

describe("view state", () => {
  it("cycles focus coordinator → sub-agents → coordinator, both ways", () => {
    const ids = ["a", "b"];
    let v = viewReducer(initialView, { type: "focus_next", ids });
    expect(v.focus).toBe("a");
    v = viewReducer(v, { type: "focus_next", ids });
    expect(v.focus).toBe("b");
    v = viewReducer(v, { type: "focus_next", ids });
    expect(v.focus).toBeNull();
    expect(viewReducer(v, { type: "focus_prev", ids }).focus).toBe("b");
  });

  it("clamps zoom scrolling", () => {
    let v = viewReducer(initialView, { type: "zoom", id: "a" });
    v = viewReducer(v, { type: "scroll", by: 50, max: 20 });
    expect(v.scroll).toBe(20);
    v = viewReducer(v, { type: "scroll", by: -100, max: 20 });
    expect(v.scroll).toBe(0);
    expect(viewReducer(v, { type: "unzoom" })).toEqual(initialView);
  });
});

describe("input editor", () => {
  const apply = (actions: EditorAction[]) => actions.reduce(editorReducer, emptyEditor);

  it("inserts, moves and deletes at the cursor, keeping pasted newlines", () => {
    const s = apply([{ type: "insert", text: "hello\r\nworld" }, { type: "home" }, { type: "insert", text: ">" }]);
    expect(s).toMatchObject({ text: "hello\n>world", cursor: 7 });
    expect(apply([{ type: "insert", text: "ab" }, { type: "left" }, { type: "backspace" }, { type: "delete" }]).text).toBe("");
  });

  it("walks history with up/down and restores the draft", () => {
    let s = apply([{ type: "insert", text: "first" }, { type: "submitted" }, { type: "insert", text: "second" }, { type: "submitted" }, { type: "insert", text: "dra" }]);
    s = editorReducer(s, { type: "history_prev" });
    expect(s.text).toBe("second");
    s = editorReducer(s, { type: "history_prev" });
    expect(s.text).toBe("first");
    s = editorReducer(s, { type: "history_prev" });
    expect(s.text).toBe("first");
    s = editorReducer(editorReducer(s, { type: "history_next" }), { type: "history_next" });
    expect(s.text).toBe("dra");
  });

  it("deletes whole surrogate pairs", () => {
    expect(apply([{ type: "insert", text: "a😀" }, { type: "backspace" }]).text).toBe("a");
  });
});

describe("layout", () => {
  const agents = (n: number, running = true) => Array.from({ length: n }, (_, i) => ({ id: `a${i}`, running }));

  it("is one row shorter than the terminal and gives the coordinator everything without sub-agents", () => {
    const l = computeLayout({ columns: 100, rows: 40, inputLines: 1, agents: [], focus: null });
    expect(l.height).toBe(39);
    expect(l.coordinator.height).toBe(l.bodyHeight);
    expect(1 + l.bodyHeight + 1 + l.inputHeight + 1).toBe(l.height);
  });

  it("lays running sub-agents out in a grid that fits the body", () => {
    for (const [columns, rows, n] of [
      [100, 30, 2],
      [160, 50, 6],
      [80, 24, 8],
      [200, 60, 3],
    ]) {
      const l = computeLayout({ columns, rows, inputLines: 1, agents: agents(n), focus: null });
      const gridRows = Math.ceil(l.grid.panes.length / l.grid.columns);
      const used = l.coordinator.height + gridRows * l.grid.paneHeight + l.grid.collapsed.length + (l.grid.hidden ? 1 : 0);
      expect(used).toBeLessThanOrEqual(l.bodyHeight);
      expect(l.grid.panes.length + l.grid.hidden).toBe(n);
      expect(l.grid.paneWidth * l.grid.columns).toBeLessThanOrEqual(columns);
    }
  });

  it("collapses finished sub-agents to one line each and keeps the focused pane visible", () => {
    const l = computeLayout({ columns: 100, rows: 40, inputLines: 1, agents: [...agents(2, false), { id: "r", running: true }], focus: null });
    expect(l.grid.collapsed).toEqual(["a0", "a1"]);
    expect(l.grid.panes).toEqual(["r"]);
    const tight = computeLayout({ columns: 60, rows: 20, inputLines: 1, agents: agents(10), focus: "a9" });
    expect(tight.grid.panes).toContain("a9");
    expect(tight.grid.hidden).toBeGreaterThan(0);
  });
});
