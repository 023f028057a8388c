import chalk from "chalk";
import { render } from "ink-testing-library";
import stringWidth from "string-width";
import { afterEach, describe, expect, it } from "vitest";
import type { EventInput, OrcaEvent } from "../../src/events/types.js";
import { AgentPane, rowLine } from "../../src/ui/AgentPane.js";
import { initialState, reduce } from "../../src/ui/state/reducer.js";
import type { DashboardState } from "../../src/ui/state/types.js";
import { tailRows } from "../../src/ui/wrap.js";

let ts = 1000;
function run(events: EventInput[], state: DashboardState = initialState("coordinator")): DashboardState {
  return events.reduce((s, e) => reduce(s, { ...e, ts: (ts += 10), sessionId: "s" } as OrcaEvent), state);
}

const level = chalk.level;
afterEach(() => {
  chalk.level = level;
});

const started: EventInput = { type: "agent_started", agentId: "a", parentId: "coordinator", name: "reader", task: "t", tools: [], depth: 1, model: "m", system: "s" };
const longPath = "src/some/very/deeply/nested/folder/with/a/long/file-name.ts";

function withToolCall(): DashboardState {
  return run([
    started,
    { type: "text_delta", agentId: "a", text: "First paragraph.\n\nSecond one.\n" },
    { type: "assistant_message", agentId: "a", parentId: "coordinator", content: "", toolCalls: [{ id: "c1", name: "read_file", raw: "{}", args: { path: longPath } }] },
    { type: "tool_started", agentId: "a", parentId: "coordinator", callId: "c1", name: "read_file" },
  ]);
}

describe("a pane's body, drawn as one text", () => {
  it("keeps every row inside the border, cuts a long tool row with an ellipsis, and keeps blank rows", () => {
    const s = withToolCall();
    const agent = s.agents.a!;
    const pane = render(<AgentPane agent={agent} rows={tailRows(agent.entries, 28, 8)} width={30} height={11} focused={false} frame={0} now={2000} />);
    const lines = pane.lastFrame()!.split("\n");
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(30);
    // Both borders on every inner row: nothing spilled past the right edge.
    for (const line of lines.slice(1, -1)) expect(line).toMatch(/^│.*│$/);
    const tool = lines.find((l) => l.includes("read_file"))!;
    expect(tool).toMatch(/read_file src\/some.*… *│$/);
    const first = lines.findIndex((l) => l.includes("First paragraph."));
    expect(lines[first + 1]).toMatch(/^│ +│$/);
    expect(lines[first + 2]).toContain("Second one.");
  });

  it("cuts a row wider than the pane instead of wrapping it over the rows below", () => {
    const s = run([started, { type: "text_delta", agentId: "a", text: "short line\n" }]);
    const agent = s.agents.a!;
    const rows = tailRows(agent.entries, 28, 8);
    // A styled row that came out wider than asked (a wide table, a long diff line).
    const wide = { ...rows[rows.length - 1]!, key: "wide", text: `\u001B[1m${"x".repeat(40)}\u001B[22m`, styled: true as const };
    const below = { ...wide, key: "below", text: "the row below" };
    const pane = render(<AgentPane agent={agent} rows={[wide, below]} width={30} height={5} focused={false} frame={0} now={2000} />);
    const lines = pane.lastFrame()!.replace(/\u001B\[[0-9;]*m/g, "").split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[2]).toMatch(/^│x{27}…│$/);
    expect(lines[3]).toContain("the row below");
  });

  it("draws the selected call inverse and the others plain", () => {
    chalk.level = 1;
    const s = withToolCall();
    const rows = tailRows(s.agents.a!.entries, 60, 8);
    const tool = rows.find((r) => r.entry.kind === "tool" && !r.note)!;
    const text = rows.find((r) => r.entry.kind !== "tool")!;
    expect(rowLine(tool, 0, 2000, true, true, 60)).toContain("\u001B[7m");
    expect(rowLine(tool, 0, 2000, false, true, 60)).not.toContain("\u001B[7m");
    expect(rowLine(text, 0, 2000, false, true, 60)).not.toContain("\u001B[7m");
  });
});
