import { render } from "ink-testing-library";
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "../../src/ui/App.js";
import { DialogApprover } from "../../src/ui/dialog-approver.js";
import { TestSession } from "./ui-session.js";
import { pressKeys } from "../fixtures/ink.js";

const ESC = "\u001B";
const TAB = "\t";
const SHIFT_TAB = "\u001B[Z";
const ENTER = "\r";
const PGUP = "\u001B[5~";
const CTRL_C = "\u0003";

type Rendered = ReturnType<typeof render>;
let mounted: Rendered[] = [];

function mount(opts: { demo?: boolean; initialPrompt?: string } = {}) {
  const session = new TestSession();
  const approver = new DialogApprover();
  const exits: number[] = [];
  const r = render(<App session={session} approver={approver} demo={opts.demo} initialPrompt={opts.initialPrompt} onExit={(c) => exits.push(c)} />);
  mounted.push(r);
  const frame = (): string => r.lastFrame() ?? "";
  const see = (text: string) => vi.waitFor(() => expect(frame()).toContain(text), { timeout: 5000 });
  /**
   * Absence means something only in a frame that would show the text: `anchor` must be in the same
   * frame (a blank or half-drawn frame would pass a bare "not in it").
   */
  const notSee = (text: string, anchor: string) =>
    vi.waitFor(
      () => {
        const shown = frame();
        expect(shown).toContain(anchor);
        expect(shown).not.toContain(text);
      },
      { timeout: 5000 },
    );
  const press = (...keys: string[]) => pressKeys(r.stdin, keys);
  return { session, approver, r, frame, see, notSee, press, exits };
}

afterEach(() => {
  for (const r of mounted) r.unmount();
  mounted = [];
});

describe("dashboard", () => {
  it("shows the header with model, session and the demo badge", async () => {
    const { see } = mount({ demo: true });
    await see("SCRIPTED DEMO");
    await see("test-model");
    await see("session sess-123");
  });

  it("adds a pane with name and label when a sub-agent starts, and streams its text", async () => {
    const { session, see } = mount();
    session.startAgent("explorer-1", "explorer", "auth module");
    await see("explorer-1 [auth module]");
    session.emit({ type: "text_delta", agentId: "explorer-1", text: "Reading the " });
    session.emit({ type: "text_delta", agentId: "explorer-1", text: "login flow" });
    await see("Reading the login flow");
    session.emit({ type: "text_delta", agentId: "root", text: "Delegating now" });
    await see("Delegating now");
  });

  it("draws one line per tool call with its state and duration", async () => {
    const { session, see } = mount();
    session.emit({ type: "tool_queued", agentId: "root", callId: "c1", name: "write_file", args: { path: "src/a.ts" }, access: { reads: [], writes: ["/w/src/a.ts"] }, waitsFor: [] });
    session.emit({ type: "tool_queued", agentId: "root", callId: "c2", name: "edit_file", args: { path: "src/a.ts" }, access: { reads: [], writes: ["/w/src/a.ts"] }, waitsFor: ["c1"] });
    await see("◌ edit_file src/a.ts waiting");
    await see("◌ write_file src/a.ts");
    // Under the waiting call, and in the queue line: what it waits for.
    await see("↳ waits for write_file src/a.ts");
    await see("root waits for write_file src/a.ts: edit_file src/a.ts");
    session.emit({ type: "tool_started", agentId: "root", callId: "c1", name: "write_file" });
    await see("1 running");
    session.emit({ type: "tool_finished", agentId: "root", callId: "c1", name: "write_file", ok: true, content: "ok", durationMs: 1234 });
    await see("✓ write_file src/a.ts 1.2s");
    session.emit({ type: "tool_started", agentId: "root", callId: "c2", name: "edit_file" });
    session.emit({ type: "tool_finished", agentId: "root", callId: "c2", name: "edit_file", ok: false, content: "Error: no match", error: "no match", durationMs: 5 });
    await see("✗ edit_file src/a.ts 5ms — no match");
    await see("↳ waited");
  });

  it("says which agent a call waited for, while it waits and after it ran", async () => {
    const { session, see, frame } = mount();
    session.startAgent("editor-1", "editor", "fix subtract", "fix subtract");
    session.startAgent("editor-2", "editor", "add multiply", "add multiply");
    const write = { reads: [], writes: ["/w/src/math.js"] };
    session.emit({ type: "tool_queued", agentId: "editor-1", callId: "x1", name: "edit_file", args: { path: "src/math.js" }, access: write, waitsFor: [] });
    session.emit({ type: "tool_started", agentId: "editor-1", callId: "x1", name: "edit_file" });
    session.emit({ type: "tool_queued", agentId: "editor-2", callId: "x2", name: "edit_file", args: { path: "src/math.js" }, access: write, waitsFor: ["x1"] });
    await see("↳ waits for editor-1 [fix subtract]");
    await see("editor-2 [add multiply] waits for editor-1 [fix subtract]: edit_file");
    session.emit({ type: "tool_finished", agentId: "editor-1", callId: "x1", name: "edit_file", ok: true, content: "ok", durationMs: 20 });
    session.emit({ type: "tool_started", agentId: "editor-2", callId: "x2", name: "edit_file" });
    session.emit({ type: "tool_finished", agentId: "editor-2", callId: "x2", name: "edit_file", ok: true, content: "ok", durationMs: 3 });
    await vi.waitFor(() => expect(frame()).toMatch(/↳ waited \d+ms for editor-1 \[fix subtract\]/), { timeout: 5000 });
  });

  it("shows the current tool of a sub-agent and collapses it to one line when it finishes", async () => {
    const { session, see, notSee } = mount();
    session.startAgent("explorer-1", "explorer", "scan");
    session.emit({ type: "tool_queued", agentId: "explorer-1", callId: "g", name: "grep", args: { pattern: "TODO" }, access: { reads: ["/w"], writes: [] }, waitsFor: [] });
    session.emit({ type: "tool_started", agentId: "explorer-1", callId: "g", name: "grep" });
    await see("running");
    await vi.waitFor(() => expect(mountedFrame()).toMatch(/explorer-1 \[scan\] running .* grep TODO/));
    session.emit({ type: "agent_finished", agentId: "explorer-1", parentId: "root", status: "done", result: "found 3", steps: 2, usage: { input: 10, output: 5, cached: 0 }, filesChanged: [] });
    await see("✓ explorer-1 [scan] done · 2 steps");
    await notSee("task: look around", "✓ explorer-1 [scan] done · 2 steps");
  });

  it("submits with Enter, keeps pasted newlines and recalls history with ↑", async () => {
    const { session, press, see } = mount();
    await press("first line\rsecond line");
    await see("second line");
    expect(session.runs).toEqual([]);
    await press(ENTER);
    await vi.waitFor(() => expect(session.runs).toEqual(["first line\nsecond line"]));
    session.finishRun();
    await press("\u001B[A");
    await see("› first line");
  });

  it("a line and its Enter arriving in one read submit the line", async () => {
    const { session, press } = mount();
    await press("hello in one go\r");
    await vi.waitFor(() => expect(session.runs).toEqual(["hello in one go"]));
  });

  it("moves focus with Tab; Shift+Tab cycles the permission mode shown in the header", async () => {
    const { session, press, see } = mount();
    session.startAgent("explorer-1", "explorer");
    session.startAgent("editor-1", "editor");
    await see("editor");
    await see("mode: default");
    await press(TAB);
    await see("Esc stop explorer");
    await press(TAB);
    await see("Esc stop editor");
    await press(SHIFT_TAB);
    await see("mode: accept-edits");
    expect(session.permissionMode).toBe("accept-edits");
    await see("Esc stop editor");
    await press(SHIFT_TAB, SHIFT_TAB, SHIFT_TAB);
    await see("mode: default");
  });

  it("Esc with the coordinator focused cancels the whole run", async () => {
    const { session, press, see } = mount({ initialPrompt: "do it" });
    await vi.waitFor(() => expect(session.busy).toBe(true));
    await see("Esc cancel run");
    await press(ESC);
    await vi.waitFor(() => expect(session.cancels).toEqual([undefined]));
  });

  it("Esc with a sub-agent focused cancels that sub-agent only", async () => {
    const { session, press, see } = mount({ initialPrompt: "do it" });
    session.startAgent("explorer-1", "explorer");
    session.startAgent("editor-1", "editor");
    await see("editor");
    await press(TAB, TAB);
    await see("Esc stop editor");
    await press(ESC);
    await vi.waitFor(() => expect(session.cancels).toEqual(["editor-1"]));
    expect(session.busy).toBe(true);
  });

  it("with a running sub-agent focused, the input box addresses it: its name in the prompt, Enter queues a message for it", async () => {
    const { session, press, see } = mount({ initialPrompt: "do it" });
    session.startAgent("explorer-1", "explorer", "auth");
    await see("explorer-1 [auth]");
    await press(TAB);
    await see("explorer-1 [auth] › ");
    await press("only src/", ENTER);
    await vi.waitFor(() => expect(session.messages).toEqual([["explorer-1", "only src/"]]));
    await see("sent to explorer: it reads it before its next step");
    // Not a new prompt for the coordinator.
    expect(session.runs).toEqual(["do it"]);
    // Shown in its pane once delivered (the loop emits it before its next request).
    session.emit({ type: "user_message", agentId: "explorer-1", parentId: "root", text: "only src/" });
    await see("only src/");
  });

  it("x on a focused running sub-agent stops it; Ctrl+B sends it to the background", async () => {
    const { session, press, see } = mount({ initialPrompt: "do it" });
    session.startAgent("explorer-1", "explorer");
    session.startAgent("editor-1", "editor");
    await see("editor");
    await press(TAB);
    await see("Ctrl+B background");
    await press("\u0002");
    await vi.waitFor(() => expect(session.backgrounds).toEqual(["explorer-1"]));
    await see("explorer moved to the background");
    session.emit({ type: "agent_backgrounded", agentId: "explorer-1", parentId: "root", by: "user" });
    await see("moved to the background: its parent goes on");
    await see("running · bg");
    await press(TAB);
    await see("x/Esc stop editor");
    await press("x");
    await vi.waitFor(() => expect(session.cancels).toEqual(["editor-1"]));
    expect(session.messages).toEqual([]);
  });

  it("while the coordinator waits for background sub-agents, Enter wakes it with a message instead of queueing", async () => {
    const { session, press, see } = mount({ initialPrompt: "do it" });
    await vi.waitFor(() => expect(session.busy).toBe(true));
    await press("after the run", ENTER);
    await see("1 message queued");
    session.summaries = [{ id: "root", name: "coordinator", status: "running", steps: 1, usage: { input: 0, output: 0, cached: 0 }, waiting: true }];
    await press("and also this", ENTER);
    await vi.waitFor(() => expect(session.messages).toEqual([["root", "and also this"]]));
    expect(session.runs).toEqual(["do it"]);
  });

  it("with a sub-agent addressed, a /command still runs as a command; a message it cannot take stays in the box with why", async () => {
    const { session, press, see } = mount({ initialPrompt: "do it" });
    session.startAgent("explorer-1", "explorer");
    await see("explorer-1 running");
    await press(TAB);
    await see("explorer-1 › ");
    await press(..."/mode plan", ENTER);
    await vi.waitFor(() => expect(session.permissionMode).toBe("plan"));
    expect(session.messages).toEqual([]);
    session.message = () => ({ ok: false, error: "explorer-1 is not running" });
    await press(..."hello", ENTER);
    await see("explorer-1 is not running");
    await see("explorer-1 › hello");
    expect(session.runs).toEqual(["do it"]);
  });

  it("Ctrl+B is no cursor key: with no sub-agent focused it does nothing to the text", async () => {
    const { session, press, see } = mount();
    await press("a", "b", "\u0002", "c", ENTER);
    await vi.waitFor(() => expect(session.runs).toEqual(["abc"]));
    expect(session.backgrounds).toEqual([]);
    await see("abc");
  });

  it("zooms a pane with z to its whole transcript, scrolls with PgUp, and Esc only leaves the zoom", async () => {
    const { session, press, see, notSee, frame } = mount({ initialPrompt: "go" });
    session.startAgent("explorer-1", "explorer");
    session.startAgent("editor-1", "editor");
    for (let i = 0; i < 120; i++) session.emit({ type: "text_delta", agentId: "explorer-1", text: `finding ${i}\n` });
    await see("finding 119");
    expect(frame()).not.toMatch(/finding 0\s/);
    await press(TAB);
    await see("Esc stop explorer");
    await press("z");
    await see("PgUp scroll");
    await press(PGUP, PGUP, PGUP, PGUP, PGUP, PGUP, PGUP, PGUP, PGUP);
    await see("task: look around");
    await vi.waitFor(() => expect(frame()).toMatch(/finding 0\s/));
    await press(ESC);
    // Back on the dashboard, explorer's pane still focused: its hint is there, the zoom's is gone.
    await notSee("PgUp scroll", "Esc stop explorer");
    await see("editor");
    expect(session.cancels).toEqual([]);
  });

  it("Enter on an empty input zooms the focused sub-agent pane", async () => {
    const { session, press, see } = mount();
    session.startAgent("explorer-1", "explorer");
    await see("explorer");
    await press(TAB, ENTER);
    await see("zoom");
    expect(session.runs).toEqual([]);
  });

  it("Ctrl+C cancels a running run, a second one within 2 s exits with 130", async () => {
    const { session, press, exits, see } = mount({ initialPrompt: "long task" });
    await vi.waitFor(() => expect(session.busy).toBe(true));
    // Keep the run alive after the cancel to model a slow stop.
    session.cancel = (id?: string) => void session.cancels.push(id);
    await press(CTRL_C);
    await see("Ctrl+C again to exit");
    expect(session.cancels).toEqual([undefined]);
    expect(exits).toEqual([]);
    await press(CTRL_C);
    await vi.waitFor(() => expect(exits).toEqual([130]));
  });

  it("Ctrl+C when idle exits with 0", async () => {
    const { press, exits } = mount();
    await press(CTRL_C);
    await vi.waitFor(() => expect(exits).toEqual([0]));
  });

  it("exits with 130 when the last run was cancelled", async () => {
    const { session, press, exits } = mount({ initialPrompt: "x" });
    await vi.waitFor(() => expect(session.busy).toBe(true));
    await press(ESC);
    await vi.waitFor(() => expect(session.busy).toBe(false));
    await press(CTRL_C);
    await vi.waitFor(() => expect(exits).toEqual([130]));
  });

  it("shows scheduler counts in the queue line", async () => {
    const { session, see } = mount();
    session.setCounts({ running: 3, waiting: 2 });
    await see("3 running · 2 waiting");
  });

  it("redraws at the new size on resize", async () => {
    const { r, see, frame } = mount();
    await see("Ask orca");
    const widthOf = () => Math.max(...frame().split("\n").map((l) => l.length));
    expect(widthOf()).toBe(100);
    Object.defineProperty(r.stdout, "columns", { get: () => 60, configurable: true });
    r.stdout.emit("resize");
    await vi.waitFor(() => expect(widthOf()).toBe(60));
  });
});

function mountedFrame(): string {
  return mounted.at(-1)?.lastFrame() ?? "";
}
