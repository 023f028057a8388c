import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import type { EventInput, OrcaEvent } from "../../src/events/types.js";
import { AgentPane } from "../../src/ui/AgentPane.js";
import { QueueLine } from "../../src/ui/StatusBar.js";
import { initialState, reduce } from "../../src/ui/state/reducer.js";
import type { DashboardState, ToolEntry } from "../../src/ui/state/types.js";
import { tailRows } from "../../src/ui/wrap.js";

let ts = 1000;
function run(events: EventInput[], state: DashboardState = initialState("coordinator")): DashboardState {
  return events.reduce((s, e) => reduce(s, { ...e, ts: (ts += 10), sessionId: "s" } as OrcaEvent), state);
}

const message = "write_file: shared.txt changed since you read it (edited by editor-2 [fix subtract] 3 s ago); read it again, then write";

function staleWrite(agentId: string, callId: string): EventInput[] {
  return [
    { type: "assistant_message", agentId, parentId: "coordinator", content: "", toolCalls: [{ id: callId, name: "write_file", raw: "{}", args: { path: "shared.txt", content: "x" } }] },
    { type: "tool_started", agentId, parentId: "coordinator", callId, name: "write_file" },
    {
      type: "write_conflict",
      agentId,
      parentId: "coordinator",
      callId,
      tool: "write_file",
      path: "shared.txt",
      reason: "stale",
      changedBy: { kind: "agent", agentId: "editor-2", name: "editor-2 [fix subtract]", via: "edit_file" },
      changedAt: 990,
      message,
    },
    { type: "tool_finished", agentId, parentId: "coordinator", callId, name: "write_file", ok: false, content: `Error: ${message}`, error: message, durationMs: 2 },
  ];
}

describe("write conflicts on the dashboard", () => {
  it("marks the refused call's row and counts conflicts on the queue line", () => {
    const s = run([
      { type: "agent_started", agentId: "editor-1", parentId: "coordinator", name: "editor", task: "t", tools: [], depth: 1, model: "m", system: "s" },
      ...staleWrite("editor-1", "c1"),
    ]);
    const row = s.agents["editor-1"]!.entries.find((e): e is ToolEntry => e.kind === "tool")!;
    expect(row).toMatchObject({ state: "failed", conflict: "stale: changed by editor-2" });
    expect(s.conflicts).toBe(1);

    const pane = render(<AgentPane agent={s.agents["editor-1"]!} rows={tailRows(s.agents["editor-1"]!.entries, 78, 5)} width={80} height={7} focused={false} frame={0} now={2000} />);
    expect(pane.lastFrame()).toMatch(/✗ write_file shared\.txt .*— stale: changed by editor-2 *│/);
    expect(render(<QueueLine state={s} />).lastFrame()).toContain("· 1 write conflict");

    const two = run(staleWrite("coordinator", "c2"), s);
    expect(two.conflicts).toBe(2);
    expect(render(<QueueLine state={two} />).lastFrame()).toContain("· 2 write conflicts");
    expect(render(<QueueLine state={initialState("coordinator")} />).lastFrame()).not.toContain("conflict");
  });
});
