import { render } from "ink-testing-library";
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "../../src/ui/App.js";
import { DialogApprover } from "../../src/ui/dialog-approver.js";
import type { DashboardHost } from "../../src/ui/host.js";
import { createTheme } from "../../src/ui/theme.js";
import { TestSession } from "./ui-session.js";
import { pressKeys } from "../fixtures/ink.js";

const ESC = "\u001B";
const TAB = "\t";
const ENTER = "\r";
const UP = "\u001B[A";
const PGDN = "\u001B[6~";
const END = "\u001B[F";

type Rendered = ReturnType<typeof render>;
let mounted: Rendered[] = [];
afterEach(() => {
  for (const r of mounted) r.unmount();
  mounted = [];
});

function mount(opts: { host?: DashboardHost; session?: TestSession } = {}) {
  const session = opts.session ?? new TestSession();
  const approver = new DialogApprover();
  const exits: number[] = [];
  const r = render(<App session={session} approver={approver} host={opts.host} onExit={(c) => exits.push(c)} />);
  mounted.push(r);
  const frame = (): string => r.lastFrame() ?? "";
  const see = (text: string | RegExp) => vi.waitFor(() => (typeof text === "string" ? expect(frame()).toContain(text) : expect(frame()).toMatch(text)), { timeout: 5000 });
  // Gone from a frame that shows `anchor`: a frame drawn after the change, not one drawn before it.
  const notSee = (text: string, anchor: string) =>
    vi.waitFor(
      () => {
        expect(frame()).toContain(anchor);
        expect(frame()).not.toContain(text);
      },
      { timeout: 5000 },
    );
  const press = (...keys: string[]) => pressKeys(r.stdin, keys);
  const type = async (text: string) => press(...[...text]);
  return { session, approver, r, frame, see, notSee, press, type, exits };
}

describe("slash commands", () => {
  it("/help opens the keys and commands from the keymap; Esc closes it; ? on an empty input does too", async () => {
    const { press, type, see, notSee, session } = mount();
    await see("Ask orca");
    await type("/help");
    await press(ENTER);
    await see("Commands (type / for the list");
    await see("/mode [default|accept-edits|plan|bypass]");
    await press(ESC);
    await notSee("Commands (type / for the list", "? help");
    await press("?");
    await see("Commands (type / for the list");
    await press("q");
    await notSee("Commands (type / for the list", "? help");
    await type("what?");
    await see("what?");
    expect(session.runs).toEqual([]);
  });

  it("an unknown /command is a notice and never reaches the model; a path is a prompt", async () => {
    const { press, type, see, session } = mount();
    await type("/frobnicate");
    await press(ENTER);
    await see("unknown command /frobnicate");
    expect(session.runs).toEqual([]);
    await type("/etc/hosts is odd");
    await press(ENTER);
    await vi.waitFor(() => expect(session.runs).toEqual(["/etc/hosts is odd"]));
  });

  it("the popup completes: /mo offers /mode and /model, Tab completes, /mode plan switches and the header says so", async () => {
    const { press, type, see, session, frame } = mount();
    await type("/mo");
    await see("/model");
    expect(frame()).toContain("/mode");
    await press(TAB);
    await see("› /model ");
    await press("\u0015");
    await type("/mode plan");
    await press(ENTER);
    await see("mode: plan");
    expect(session.permissionMode).toBe("plan");
    await see("read-only tools only");
    await type("/mode nope");
    await press(ENTER);
    await see('"nope" is not a mode');
  });

  it("/cost lists tokens in, out, cached and cost per agent", async () => {
    const { session, press, type, see } = mount();
    session.startAgent("explorer-1", "explorer", "map");
    session.emit({ type: "usage", agentId: "root", input: 1200, output: 300, cached: 1000, cost: 0.0123 });
    session.emit({ type: "usage", agentId: "explorer-1", parentId: "root", input: 5000, output: 700, cached: 0, cost: 0.05 });
    await see("$0.06");
    await type("/cost");
    await press(ENTER);
    await see("Tokens and cost, per agent");
    await see(/coordinator\s+1\.2k\s+300\s+1\.0k\s+\$0\.01\s/);
    // A tree: the sub-agent under the coordinator, by its id.
    await see(/└ explorer-1 \[map\]\s+5\.0k\s+700\s+0\s+\$0\.05/);
    await see(/total\s+6\.2k\s+1\.0k\s+1\.0k\s+\$0\.06/);
  });

  it("the header shows the run's spend against its budget; a pane's title its agent's tokens, cost and own limit", async () => {
    const { session, see } = mount();
    session.emit({ type: "budget_set", agentId: "root", scope: "run", maxCostUsd: 0.5 });
    session.startAgent("a1", "explorer", "map");
    session.emit({ type: "budget_set", agentId: "a1", parentId: "root", scope: "agent", maxCostUsd: 0.2, asked: { maxCostUsd: 3 } });
    session.emit({ type: "usage", agentId: "a1", parentId: "root", input: 5000, output: 700, cached: 0, cost: 0.05 });
    await see(/· run \$0\.05 of \$0\.50/);
    await see(/a1 \[map\] running · [\d.]+s · 5\.7k tok · \$0\.05 of \$0\.20/);
  });

  it("/cost is a tree with background agents marked; a model without a price is unknown, never $0", async () => {
    const { session, press, type, see } = mount();
    session.startAgent("a1", "explorer", "map");
    session.emit({ type: "usage", agentId: "a1", parentId: "root", input: 5000, output: 700, cached: 0, cost: 0.05 });
    session.emit({ type: "agent_started", agentId: "a2", parentId: "a1", name: "tester", label: "deep", task: "t", tools: [], depth: 2, model: "m", system: "" });
    session.emit({ type: "agent_backgrounded", agentId: "a2", parentId: "a1", by: "delegate" });
    session.emit({ type: "usage", agentId: "a2", parentId: "a1", input: 100, output: 10, cached: 0 });
    await see(/· 5\.8k tok · ≥ \$0\.05 \(part unknown\) ·/);
    await type("/cost");
    await press(ENTER);
    await see(/\ba1 \[map\]\s+5\.0k\s+700\s+0\s+\$0\.05/);
    await see(/└ a2 \[deep\] \(bg\)\s+100\s+10\s+0\s+cost unknown/);
    await see(/total\s+5\.1k\s+710\s+0\s+≥ \$0\.05 \(part unknown\)/);
    await see("never counted as $0.");
  });

  it("/model switches the model in the header; a bad one is a notice; /compact asks the session", async () => {
    const { session, press, type, see } = mount();
    await type("/model other-model");
    await press(ENTER);
    await see("model: other-model from the next request on");
    await see(/orca · other-model/);
    await type("/model nope/x");
    await press(ENTER);
    await see('/model: no provider named "nope"');
    await type("/compact");
    await press(ENTER);
    await vi.waitFor(() => expect(session.compactions).toBe(1));
    await see("nothing to compact yet");
  });

  it("/clear switches to the session the host starts; /sessions and /agents read the host", async () => {
    const next = new TestSession();
    const host: DashboardHost = {
      catalog: () => ({ agents: [{ name: "explorer", description: "reads the code" }], skills: [] }),
      listSessions: () => [{ id: "20260101-aaaa", startedAt: 0, status: "done", firstPrompt: "fix the tests" }],
      switchSession: async () => ({ session: next, notices: ["a fresh start"] }),
    };
    const { press, type, see, session } = mount({ host });
    await type("hello");
    await press(ENTER);
    await vi.waitFor(() => expect(session.runs).toEqual(["hello"]));
    session.finishRun();
    await vi.waitFor(() => expect(session.busy).toBe(false));
    await type("/agents");
    await press(ENTER);
    await see("reads the code");
    await press(ESC);
    await type("/sessions");
    await press(ENTER);
    await see("fix the tests");
    await press(ESC);
    await type("/clear");
    await press(ENTER);
    await see("a fresh start");
    await type("again");
    await press(ENTER);
    await vi.waitFor(() => expect(next.runs).toEqual(["again"]));
    expect(session.runs).toEqual(["hello"]);
  });
});

describe("seeing everything", () => {
  it("↑ selects a tool row in a focused pane, Enter opens its whole output, / searches, Esc goes back", async () => {
    const { session, press, type, see, notSee, frame } = mount();
    session.startAgent("tester-1", "tester", "run");
    const output = Array.from({ length: 300 }, (_, i) => String(i + 1)).join("\n");
    session.emit({ type: "assistant_message", agentId: "tester-1", parentId: "root", content: "", toolCalls: [{ id: "b1", name: "bash", raw: "{}", args: { command: "seq 1 300" } }] });
    session.emit({ type: "tool_started", agentId: "tester-1", parentId: "root", callId: "b1", name: "bash" });
    session.emit({ type: "tool_finished", agentId: "tester-1", parentId: "root", callId: "b1", name: "bash", ok: true, content: output, durationMs: 11 });
    await see("✓ bash seq 1 300 11ms");
    await press(TAB);
    await see("Esc stop tester");
    await press(UP);
    await see("Enter open");
    await press(ENTER);
    await see("lines 1–");
    await see("of 300");
    expect(frame()).toMatch(/│1\s/);
    await press(END);
    await see("300");
    await press("/");
    await type("150");
    await press(ENTER);
    await see(/│150\s/);
    await see('"150": 1 of 1');
    await press(ESC);
    await notSee("of 300", "✓ bash seq 1 300 11ms");
  });

  it("keys that arrive in one read act in turn: ↑ then Enter opens the call ↑ just selected", async () => {
    const { session, r, press, see } = mount();
    session.startAgent("tester-1", "tester", "run");
    session.emit({ type: "assistant_message", agentId: "tester-1", parentId: "root", content: "", toolCalls: [{ id: "b1", name: "bash", raw: "{}", args: { command: "seq 1 3" } }] });
    session.emit({ type: "tool_finished", agentId: "tester-1", parentId: "root", callId: "b1", name: "bash", ok: true, content: "1\n2\n3", durationMs: 4 });
    await see("✓ bash seq 1 3 4ms");
    await press(TAB);
    await see("Esc stop tester");
    // One chunk, as a fast typist, a key-repeat or a tmux send-keys under load delivers them.
    r.stdin.write(UP + ENTER);
    await see("of 3");
  });

  it("shows the applied diff under an edit, and the whole error when zoomed", async () => {
    const { session, press, see, frame } = mount();
    session.startAgent("editor-1", "editor", "fix");
    const diff = "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-const a = 1;\n+const a = 2;\n";
    session.emit({ type: "assistant_message", agentId: "editor-1", parentId: "root", content: "", toolCalls: [{ id: "e1", name: "edit_file", raw: "{}", args: { path: "src/a.ts" } }] });
    session.emit({ type: "tool_finished", agentId: "editor-1", parentId: "root", callId: "e1", name: "edit_file", ok: true, content: "Edited src/a.ts", durationMs: 3, diff });
    await see("+const a = 2;");
    expect(frame()).toContain("-const a = 1;");
    const long = `edit_file: old_string not found in src/b.ts; read the file again and copy the text exactly, whitespace and indentation included — END-OF-ERROR`;
    session.emit({ type: "assistant_message", agentId: "editor-1", parentId: "root", content: "", toolCalls: [{ id: "e2", name: "edit_file", raw: "{}", args: { path: "src/b.ts" } }] });
    session.emit({ type: "tool_finished", agentId: "editor-1", parentId: "root", callId: "e2", name: "edit_file", ok: false, content: `Error: ${long}`, error: long, durationMs: 2 });
    await see("✗ edit_file src/b.ts");
    await press(TAB, "z");
    await see("zoom");
    await see("END-OF-ERROR");
  });

  it("renders the assistant's markdown: emphasis, code blocks, lists; blank lines between paragraphs stay", async () => {
    const { session, see, frame } = mount();
    const text = "# Summary\n\nThe **bold** claim and `inline code`.\n\n- one\n- two\n\n```js\nconst x = 1;\n```\n\nLast paragraph.";
    session.emit({ type: "assistant_message", agentId: "root", content: text, toolCalls: [] });
    await see("Last paragraph.");
    const f = frame();
    expect(f).toContain("The bold claim and inline code.");
    expect(f).not.toContain("**");
    expect(f).not.toContain("```");
    expect(f).toContain("• one");
    expect(f).toContain("│ const x = 1;");
    const lines = f.split("\n");
    const at = lines.findIndex((l) => l.includes("The bold claim"));
    expect(lines[at + 1]).toMatch(/^│\s*│$/);
  });
});

describe("the header and footer tell the truth", () => {
  it("shows MCP servers up; a failed one is a notice with its reason", async () => {
    const session = new TestSession();
    session.mcp = [
      { server: "fs", state: "connected", tools: 3 },
      { server: "broken", state: "failed", reason: "spawn nope ENOENT" },
    ];
    const { see } = mount({ session });
    await see("mcp 1/2 up");
    await see("⚠ MCP server broken failed: spawn nope ENOENT");
    session.emit({ type: "mcp_status", agentId: "root", server: "broken", state: "restarted", tools: 2 });
    await see("mcp 2/2 up");
    await see("MCP server broken restarted (2 tools)");
  });

  it("'cancelling X…' shows while X runs and goes when it has ended", async () => {
    const { session, press, see, notSee } = mount();
    await press("x", ENTER);
    session.startAgent("explorer-1", "explorer");
    await see("explorer");
    await press(TAB, ESC);
    await see("cancelling explorer…");
    expect(session.cancels).toEqual(["explorer-1"]);
    session.emit({ type: "agent_finished", agentId: "explorer-1", parentId: "root", status: "cancelled", result: "", steps: 1, usage: { input: 0, output: 0, cached: 0 }, filesChanged: [] });
    await notSee("cancelling explorer", "cancelled");
  });

  it("NO_COLOR drops every colour, keeps the rest", () => {
    expect(createTheme({ NO_COLOR: "1" }).color("error")).toBeUndefined();
    expect(createTheme({}).color("error")).toBe("red");
    expect(createTheme({ NO_COLOR: "" }).noColor).toBe(false);
  });
});

void PGDN;
