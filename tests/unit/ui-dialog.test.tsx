import { render } from "ink-testing-library";
import React from "react";
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

  function mount() {
    const session = new TestSession();
    const approver = new DialogApprover();
    r = render(<App session={session} approver={approver} />);
    const rr = r;
    const frame = () => rr.lastFrame() ?? "";
    const see = (t: string) => vi.waitFor(() => expect(frame()).toContain(t), { timeout: 5000 });
    const press = (...keys: string[]) => pressKeys(rr.stdin, keys);
    return { session, approver, frame, see, press };
  }

  it("shows who asks for which tool and arguments; y approves once", async () => {
    const { session, approver, see, press } = mount();
    session.startAgent("a1", "editor", "fix auth");
    const p = approver.request(req("c1"), new AbortController().signal);
    await see("Permission: editor [fix auth] wants to run bash");
    await see("echo c1");
    await press("y");
    await expect(p).resolves.toEqual({ decision: "once" });
  });

  it("a answers always", async () => {
    const { approver, see, press } = mount();
    const p = approver.request(req("c1"), new AbortController().signal);
    await see("wants to run bash");
    await press("a");
    await expect(p).resolves.toEqual({ decision: "always" });
  });

  it("n asks for an optional reason the model receives; Enter submits", async () => {
    const { approver, see, press } = mount();
    const p = approver.request(req("c1"), new AbortController().signal);
    await see("wants to run bash");
    await press("n");
    await see("Reason for the model");
    await press("use the test script", ENTER);
    await expect(p).resolves.toEqual({ decision: "deny", reason: "use the test script" });
  });

  it("Esc denies only that call and the next queued request then shows; no run is cancelled", async () => {
    const { session, approver, see, press } = mount();
    const p1 = approver.request(req("c1"), new AbortController().signal);
    const p2 = approver.request(req("c2", { agentName: "tester" }), new AbortController().signal);
    await see("(+1 more waiting)");
    await press(ESC);
    await expect(p1).resolves.toEqual({ decision: "deny" });
    await see("Permission: tester");
    await see("echo c2");
    expect(approver.getSnapshot().length).toBe(1);
    expect(session.cancels).toEqual([]);
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
    await see("wants to run bash");
    await press("x", "q");
    expect(approver.getSnapshot().length).toBe(1);
    await press("y");
    await see("Ask orca");
    expect(frame()).not.toContain("xq");
  });
});
