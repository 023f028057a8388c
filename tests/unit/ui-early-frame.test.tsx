/**
 * The demo's first frame (src/ui/early-frame.tsx), drawn before the runtime loads, and the
 * dashboard that takes it over (runDashboard): one alternate screen, the App's frames written as
 * changes from the early one, and the App's first frame written as soon as it is rendered.
 */
import { describe, expect, it, vi } from "vitest";
import { DialogApprover } from "../../src/ui/dialog-approver.js";
import { dismissEarlyFrame, takeEarlyFrame } from "../../src/ui/early-frame-slot.js";
import { paintEarlyFrame } from "../../src/ui/early-frame.js";
import { runDashboard } from "../../src/ui/render.js";
import { CLEAR, ENTER, LEAVE } from "../../src/ui/screen.js";
import { FakeIn, FakeOut } from "./fake-terminal.js";
import { TestSession } from "./ui-session.js";

const tty = (out: FakeOut, input: FakeIn) => ({ stdout: out as unknown as NodeJS.WriteStream, stdin: input as unknown as NodeJS.ReadStream });

function painted(): { out: FakeOut; input: FakeIn; raw: boolean[] } {
  const out = new FakeOut(120, 40);
  const input = new FakeIn();
  const raw: boolean[] = [];
  input.setRawMode = (on: boolean) => void raw.push(on);
  paintEarlyFrame({ ...tty(out, input), demo: true, model: "orca-demo" });
  return { out, input, raw };
}

/** Blocks the thread, as loading and starting the runtime does, for at least `ms`. */
function block(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe("the early frame", () => {
  it("is drawn at once, on the alternate screen in raw mode: the badge, the model, the input box", () => {
    const { out, raw } = painted();
    try {
      expect(out.chunks[0]).toBe(ENTER);
      expect(raw).toEqual([true]);
      expect(out.text).toContain("SCRIPTED DEMO");
      expect(out.text).toContain("orca · ");
      expect(out.text).toContain("orca-demo");
      expect(out.text).toContain("›");
      // Nothing of a session yet.
      expect(out.text).not.toContain("mode:");
    } finally {
      dismissEarlyFrame();
    }
  });

  it("dismissed (orca ends without the dashboard): the terminal is given back, and no dashboard can take it", () => {
    const interrupts = process.listenerCount("SIGINT");
    const { out, raw } = painted();
    // Held, the frame's screen restores the terminal on a SIGINT before orca exits (tests/e2e/demo-first-frame.test.ts); dismissed, it listens no more.
    expect(process.listenerCount("SIGINT")).toBe(interrupts + 1);
    dismissEarlyFrame();
    expect(process.listenerCount("SIGINT")).toBe(interrupts);
    expect(out.text.endsWith(LEAVE)).toBe(true);
    expect(raw).toEqual([true, false]);
    expect(takeEarlyFrame(out as unknown as NodeJS.WriteStream)).toBeUndefined();
  });

  it("a resize before the dashboard is up: the screen is cleared and the frame drawn whole at the new size", () => {
    const { out } = painted();
    try {
      const before = out.chunks.length;
      out.columns = 90;
      out.emit("resize");
      const after = out.chunks.slice(before).join("");
      expect(after).toContain(CLEAR);
      expect(after).toContain(`╭${"─".repeat(88)}╮`);
      expect(after).toContain("SCRIPTED DEMO");
    } finally {
      dismissEarlyFrame();
    }
  });

  it("is taken over by the dashboard on its own stdout only", () => {
    const { out } = painted();
    try {
      expect(takeEarlyFrame(new FakeOut() as unknown as NodeJS.WriteStream)).toBeUndefined();
    } finally {
      dismissEarlyFrame();
    }
    expect(out.text.endsWith(LEAVE)).toBe(true);
  });

  it("taken over by the dashboard: one SIGINT listener, the screen's, which the dashboard's close removes", () => {
    const interrupts = process.listenerCount("SIGINT");
    const { out } = painted();
    const taken = takeEarlyFrame(out as unknown as NodeJS.WriteStream);
    try {
      expect(taken).toBeDefined();
      expect(process.listenerCount("SIGINT")).toBe(interrupts + 1);
    } finally {
      taken?.terminal.close();
    }
    expect(process.listenerCount("SIGINT")).toBe(interrupts);
  });
});

describe("runDashboard over the early frame", () => {
  it("keeps the screen, and writes the App's first frame before the session's first work runs, however long the start took", async () => {
    const { out, input } = painted();
    // Loading and starting the runtime holds the thread longer than Ink's frame interval (1/30 s).
    block(50);
    const session = new TestSession();
    let onScreenAtRun = "";
    const run = session.run.bind(session);
    session.run = (text) => {
      onScreenAtRun = out.text;
      // The first request's work (its HTTP stack loading) holds the thread too.
      block(50);
      return run(text);
    };
    const done = runDashboard({ session, approver: new DialogApprover(), demo: true, initialPrompt: "work", ...tty(out, input) });
    await expect.poll(() => session.runs).toEqual(["work"]);
    expect(onScreenAtRun).toContain("mode: default");
    // One alternate screen from the early frame to the end.
    expect(out.chunks.filter((c) => c === ENTER)).toHaveLength(1);
    session.cancel = (id?: string) => void session.cancels.push(id);
    // Ctrl+C cancels the run, a second one leaves.
    input.send("\u0003");
    await vi.waitFor(() => expect(session.cancels).toHaveLength(1));
    input.send("\u0003");
    await expect(done).resolves.toEqual({ exitCode: 130 });
    expect(out.text.endsWith(LEAVE)).toBe(true);
    expect(out.chunks.filter((c) => c === LEAVE)).toHaveLength(1);
  });
});
