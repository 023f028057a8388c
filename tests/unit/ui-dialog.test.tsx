import { render } from "ink-testing-library";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PermissionRequest } from "../../src/tools/approver.js";
import { App } from "../../src/ui/App.js";
import { DialogApprover } from "../../src/ui/dialog-approver.js";
import { TestSession } from "./ui-session.js";
import { pressKeys } from "../fixtures/ink.js";

const ESC = "\u001B";
const ENTER = "\r";

function req(callId: string, over: Partial<PermissionRequest> = {}): PermissionRequest {
  return { callId, agentId: "a1", agentName: "editor", tool: "bash", args: { command: `echo ${callId}` }, rule: "mode:default", ...over };
}

describe("DialogApprover", () => {
  it("queues requests in arrival order and resolves each with its own answer", async () => {
    const approver = new DialogApprover();
    const c = new AbortController();
    const p1 = approver.request(req("1"), c.signal);
    const p2 = approver.request(req("2"), c.signal);
    const [a, b] = approver.getSnapshot();
    expect([a.request.callId, b.request.callId]).toEqual(["1", "2"]);
    approver.answer(b.id, { decision: "always" });
    approver.answer(a.id, { decision: "deny", reason: "no" });
    await expect(p1).resolves.toEqual({ decision: "deny", reason: "no" });
    await expect(p2).resolves.toEqual({ decision: "always" });
    expect(approver.getSnapshot()).toEqual([]);
  });

  it("drops a request whose signal aborts, and notifies subscribers", async () => {
    const approver = new DialogApprover();
    const c = new AbortController();
    const listener = vi.fn();
    approver.subscribe(listener);
    const p = approver.request(req("1"), c.signal);
    approver.request(req("2"), new AbortController().signal);
    c.abort();
    await expect(p).resolves.toMatchObject({ decision: "deny" });
    expect(approver.getSnapshot().map((x) => x.request.callId)).toEqual(["2"]);
    expect(listener).toHaveBeenCalledTimes(3);
  });

  it("denies at once when the signal is already aborted", async () => {
    const approver = new DialogApprover();
    const c = new AbortController();
    c.abort();
    await expect(approver.request(req("1"), c.signal)).resolves.toMatchObject({ decision: "deny" });
    expect(approver.getSnapshot()).toEqual([]);
  });
});

describe("permission dialog", () => {
  let r: ReturnType<typeof render> | undefined;
  afterEach(() => r?.unmount());

  /** The answer keys are shown once the dialog is armed (DIALOG_ARM_MS after it appeared, untouched). */
  const ARMED = "y once";

  function mount() {
    const session = new TestSession();
    const approver = new DialogApprover();
    r = render(<App session={session} approver={approver} />);
    const rr = r;
    const frame = () => rr.lastFrame() ?? "";
    const see = (t: string) => vi.waitFor(() => expect(frame()).toContain(t), { timeout: 5000 });
    const press = (...keys: string[]) => pressKeys(rr.stdin, keys);
    return { session, approver, frame, see, press, r: rr };
  }

  it("shows who asks for which tool and arguments; y approves once", async () => {
    const { session, approver, see, press } = mount();
    session.startAgent("a1", "editor", "fix auth");
    const p = approver.request(req("c1"), new AbortController().signal);
    await see("Permission: a1 (editor) [fix auth] wants to run bash");
    await see("echo c1");
    await see(ARMED);
    await press("y");
    await expect(p).resolves.toEqual({ decision: "once" });
  });

  it("attack: a burst of keys ending in y, in one read as the dialog opens, does not answer it", async () => {
    const { approver, see, r: rr } = mount();
    const p = approver.request(req("c1"), new AbortController().signal);
    let answered = false;
    void p.then(() => (answered = true));
    await see("Permission: a1 (editor) wants to run bash");
    // Keys of one read are handled one per render (KeyQueue): the burst spans many turns, in order,
    // and the y at its end must still count as typed before the dialog was quiet.
    rr.stdin.write(`${"\u001B[B".repeat(60)}y`);
    // The dialog arms only once the burst has been handled and DIALOG_ARM_MS of quiet followed.
    await see(ARMED);
    expect(answered).toBe(false);
    expect(approver.getSnapshot()).toHaveLength(1);
  });

  it("a answers always", async () => {
    const { approver, see, press } = mount();
    const p = approver.request(req("c1"), new AbortController().signal);
    await see(ARMED);
    await press("a");
    await expect(p).resolves.toEqual({ decision: "always" });
  });

  it("Esc before the dialog arms neither cancels the run nor answers; the hint says what Esc does", async () => {
    const { session, approver, see, press } = mount();
    const p = approver.request(req("c1"), new AbortController().signal);
    await see("Permission: a1 (editor)");
    await press(ESC);
    await see(ARMED);
    await see("deny this call (the run goes on)");
    expect(session.cancels).toEqual([]);
    expect(approver.getSnapshot().length).toBe(1);
    await press("y");
    await expect(p).resolves.toEqual({ decision: "once" });
  });

  it("e edits the suggested rule before a saves it; a rule that does not parse is named and not saved", async () => {
    const { approver, see, press } = mount();
    const p = approver.request(req("c1", { always: { rule: "bash(npm test *)", broader: false, exact: "bash(npm test)" } }), new AbortController().signal);
    await see(ARMED);
    await see('"always" adds the session rule bash(npm test *)');
    await press("e");
    await see("Rule (Enter keeps it");
    for (let i = 0; i < " *)".length; i++) await press("\u007F");
    await press("(", ENTER);
    await see("invalid permission rule");
    await press("\u007F", ")", ENTER);
    await see('"always" adds the session rule bash(npm test)');
    await press("a");
    await expect(p).resolves.toEqual({ decision: "always", rule: "bash(npm test)" });
  });

  it("n asks for an optional reason the model receives; Enter submits", async () => {
    const { approver, see, press } = mount();
    const p = approver.request(req("c1"), new AbortController().signal);
    await see(ARMED);
    await press("n");
    await see("Reason for the model");
    await press("use the test script", ENTER);
    await expect(p).resolves.toEqual({ decision: "deny", reason: "use the test script" });
  });

  it("Esc denies only that call and the next queued request then shows; no run is cancelled", async () => {
    const { session, approver, see, press } = mount();
    const p1 = approver.request(req("c1"), new AbortController().signal);
    const p2 = approver.request(req("c2", { agentName: "tester" }), new AbortController().signal);
    await see("(+1 more waiting: a1)");
    await see(ARMED);
    await press(ESC);
    await expect(p1).resolves.toEqual({ decision: "deny" });
    await see("Permission: a1 (tester)");
    await see("echo c2");
    expect(approver.getSnapshot().length).toBe(1);
    expect(session.cancels).toEqual([]);
    await see(ARMED);
    await press("y");
    await expect(p2).resolves.toEqual({ decision: "once" });
  });

  it("shows the colourised preview diff for file edits and hides a request whose signal aborts", async () => {
    const { approver, see, frame } = mount();
    const c = new AbortController();
    approver.request(
      req("e1", { tool: "edit_file", args: { path: "src/a.ts", old_string: "a", new_string: "b" }, preview: "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-const a = 1;\n+const a = 2;" }),
      c.signal,
    );
    await see("wants to run edit_file src/a.ts");
    await see("+const a = 2;");
    expect(frame()).not.toContain("old_string");
    c.abort();
    await vi.waitFor(() => expect(frame()).not.toContain("Permission:"));
  });

  it("keeps typed keys away from the input box while the dialog is open", async () => {
    const { approver, see, press, frame } = mount();
    approver.request(req("c1"), new AbortController().signal);
    await see(ARMED);
    await press("x", "q");
    expect(approver.getSnapshot().length).toBe(1);
    await press("y");
    await see("Ask orca");
    expect(frame()).not.toContain("xq");
  });

  it("keys typed as the dialog appears go to the input box and never answer it; Enter queues the text", async () => {
    const { session, approver, see, frame, r } = mount();
    r.stdin.write("fix the bug\r");
    await vi.waitFor(() => expect(session.runs).toEqual(["fix the bug"]));
    const p = approver.request(req("c1"), new AbortController().signal);
    await see("wants to run bash");
    // "m", "a", Enter within a few ms: the "a" must not approve always, the text is queued.
    r.stdin.write("m");
    r.stdin.write("a");
    r.stdin.write("\r");
    await see("1 message queued");
    expect(approver.getSnapshot().length).toBe(1);
    await see(ARMED);
    let settled = false;
    void p.then(() => (settled = true));
    await new Promise((res) => setImmediate(res));
    expect(settled).toBe(false);
    expect(frame()).toContain("1 message queued");
  });

  it("a paste never answers the dialog; its text goes to the input box", async () => {
    const { approver, see, press, frame } = mount();
    approver.request(req("c1"), new AbortController().signal);
    await see(ARMED);
    await press("\u001B[200~", "y", "a", "\u001B[201~");
    await press("yes");
    expect(approver.getSnapshot().length).toBe(1);
    await vi.waitFor(() => expect(frame()).toContain("yayes"));
  });

  it("attack: a paste without bracketed paste never answers by a y that a control character or an escape sequence parts from the rest", async () => {
    const { approver, see, press } = mount();
    approver.request(req("c1"), new AbortController().signal);
    await see(ARMED);
    // One read each, as a terminal without bracketed paste (or text echoed into it) sends a paste:
    // split into keys at its control characters (and by Ink at its escape sequences), the y must
    // still be pasted text, never the approve key.
    await press("x\u0015y", "\u0001a", "\u0015y\r", "\u001b[Ay", "a\u001b[B", "\u001b[Cy\r");
    expect(approver.getSnapshot().length).toBe(1);
  });

  it("p and u save the rule for the project or the user; a wider rule asks for the same key again", async () => {
    const { approver, see, press } = mount();
    const p1 = approver.request(req("c1", { always: { rule: "bash(npm test *)", broader: false } }), new AbortController().signal);
    await see(ARMED);
    await see("a always (p project · u you)");
    await press("p");
    await expect(p1).resolves.toEqual({ decision: "always", scope: "project" });
    const p2 = approver.request(req("m1", { tool: "mcp__github__create_issue", args: { title: "x" }, always: { rule: "mcp__github__create_issue", broader: true } }), new AbortController().signal);
    await see(ARMED);
    await press("u");
    await see("Allow every mcp__github__create_issue call for you (~/.config/orca/config.yaml)?");
    await press("a");
    await see(ARMED);
    expect(approver.getSnapshot().length).toBe(1);
    await press("u", "u");
    await expect(p2).resolves.toEqual({ decision: "always", scope: "user" });
  });

  it("leaving the sandbox offers no project or user rule: p and u do not answer", async () => {
    const { approver, see, press, frame } = mount();
    const p = approver.request(req("c1", { outsideSandbox: true }), new AbortController().signal);
    await see(ARMED);
    expect(frame()).not.toContain("p project");
    await press("p", "u");
    expect(approver.getSnapshot().length).toBe(1);
    await press("y");
    await expect(p).resolves.toEqual({ decision: "once" });
  });

  it("a for a whole tool (a rule wider than the call) asks for a second a", async () => {
    const { approver, see, press } = mount();
    const p = approver.request(
      req("m1", { tool: "mcp__github__create_issue", args: { title: "x" }, always: { rule: "mcp__github__create_issue", broader: true } }),
      new AbortController().signal,
    );
    await see(ARMED);
    await press("a");
    await see("Allow every mcp__github__create_issue call for this session?");
    await press("x");
    await see(ARMED);
    expect(approver.getSnapshot().length).toBe(1);
    await press("a", "a");
    await expect(p).resolves.toEqual({ decision: "always" });
  });

  it("shows a command whole: a long run of spaces cannot push the rest of it out of sight, control characters are visible", async () => {
    const { approver, see, frame } = mount();
    approver.request(req("x1", { args: { command: `echo safe${" ".repeat(300)}&& touch X` } }), new AbortController().signal);
    await see("&& touch X");
    expect(frame()).toContain("⟨300 spaces⟩");
    approver.answer(approver.getSnapshot()[0]!.id, { decision: "deny" });
    approver.request(req("x2", { args: { command: "echo ok\u001b[2K\u202etxt.exe" } }), new AbortController().signal);
    await see("\\x1b[2K");
    expect(frame()).toContain("\\u{202e}");
  });

  it("scrolls a request longer than the dialog, saying how much is below", async () => {
    const { approver, see, press, frame } = mount();
    const command = Array.from({ length: 60 }, (_, i) => `echo line${i}`).join("\n");
    approver.request(req("l1", { args: { command } }), new AbortController().signal);
    await see("more lines");
    await see(ARMED);
    expect(frame()).not.toContain("echo line59");
    await press(...Array.from({ length: 60 }, () => "\u001B[B"));
    await see("echo line59");
  });
});
