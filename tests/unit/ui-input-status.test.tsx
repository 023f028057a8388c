/**
 * The dashboard's input conveniences through the App with a stand-in session: the status has its
 * own place (a separator from the key hints) and clears on the next key; a long paste shows as a
 * token, Ctrl+O expands it, and what is sent is the whole text; /hooks asks the host.
 */
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "../../src/ui/App.js";
import { DialogApprover } from "../../src/ui/dialog-approver.js";
import type { DashboardHost } from "../../src/ui/host.js";
import { STATUS_SEPARATOR } from "../../src/ui/StatusBar.js";
import { TestSession } from "./ui-session.js";
import { pressKeys } from "../fixtures/ink.js";

const ENTER = "\r";
const PASTE_START = "\u001B[200~";
const PASTE_END = "\u001B[201~";

let mounted: ReturnType<typeof render>[] = [];
afterEach(() => {
  for (const r of mounted) r.unmount();
  mounted = [];
});

function mount(host?: DashboardHost) {
  const session = new TestSession();
  const r = render(<App session={session} approver={new DialogApprover()} host={host} />);
  mounted.push(r);
  const frame = (): string => r.lastFrame() ?? "";
  const see = (text: string) => vi.waitFor(() => expect(frame()).toContain(text), { timeout: 5000 });
  const press = (...keys: string[]) => pressKeys(r.stdin, keys);
  return { session, frame, see, press };
}

describe("status and input", () => {
  it("shows the status apart from the hints and clears it on the next key", async () => {
    const { session, frame, see, press } = mount();
    await see("Ask orca");
    await press(..."hi", ENTER);
    await vi.waitFor(() => expect(session.runs).toEqual(["hi"]));
    session.finishRun("failed");
    await see(`run failed${STATUS_SEPARATOR}`);
    await press("x");
    await vi.waitFor(() => {
      expect(frame()).toContain("› x");
      expect(frame()).not.toContain("run failed");
    });
  });

  it("collapses a long paste, sends it whole, and Ctrl+O puts it back", async () => {
    const { session, frame, see, press } = mount();
    await see("Ask orca");
    const text = Array.from({ length: 40 }, (_, i) => `row ${i}`).join("\r");
    const sent = text.replace(/\r/g, "\n");
    await press(PASTE_START, text, PASTE_END);
    await see(`[pasted ${sent.length} chars, 40 lines]`);
    expect(frame()).not.toContain("row 20");
    await press(..." tail", ENTER);
    await vi.waitFor(() => expect(session.runs).toEqual([`${sent} tail`]));
    // The transcript shows the turn as the box did; the session got the whole text.
    await see(`[pasted ${sent.length} chars, 40 lines] tail`);
    expect(frame()).not.toContain("row 20");
    session.finishRun();
    await press(PASTE_START, text, PASTE_END);
    await see(`[pasted ${sent.length} chars, 40 lines]`);
    await press("\u000F"); // Ctrl+O: the text itself, to edit
    await see("row 39");
    const box = frame().slice(frame().lastIndexOf("╭"));
    expect(box).toContain("row 39");
    expect(box).not.toContain("[pasted");
    await press(ENTER);
    await vi.waitFor(() => expect(session.runs).toEqual([`${sent} tail`, sent]));
  });

  it("a command that takes no argument refuses one in a line, and does not run", async () => {
    const { see, press, session } = mount();
    await see("Ask orca");
    await press(..."/exit now", ENTER);
    await see("✗ /exit takes no argument (it was not run)");
    expect(session.runs).toEqual([]);
  });

  it("/hooks opens what the host reports", async () => {
    const { see, press } = mount({ report: async (what) => [`${what}: 2 configured`, "  PreToolUse"] });
    await see("Ask orca");
    await press(..."/hooks", ENTER);
    await see("hooks: 2 configured");
  });
});
