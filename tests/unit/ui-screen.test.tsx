import { EventEmitter } from "node:events";
import { FakeIn, FakeOut } from "./fake-terminal.js";
import { describe, expect, it, vi } from "vitest";
import { DialogApprover } from "../../src/ui/dialog-approver.js";
import { runDashboard } from "../../src/ui/render.js";
import { ENTER, LEAVE, Screen, type ScreenProcess } from "../../src/ui/screen.js";
import { DashboardStore } from "../../src/ui/state/store.js";
import { TestSession } from "./ui-session.js";


const asProc = (e: EventEmitter): ScreenProcess => e as unknown as ScreenProcess;

// A frame waits its turn behind the CPU budget the store keeps; on a loaded machine that is seconds.
const FRAME = { timeout: 20_000 };

describe("screen", () => {
  it("enters the alternate screen once and restores the terminal once", () => {
    const out = new FakeOut();
    const proc = new EventEmitter();
    const screen = new Screen({ stdout: out, proc: asProc(proc) });
    screen.enter();
    screen.enter();
    expect(out.text).toBe(ENTER);
    expect(out.text).toContain("\u001B[?1049h");
    expect(out.text).toContain("\u001B[?25l");
    screen.leave();
    screen.leave();
    expect(out.text).toBe(ENTER + LEAVE);
    expect(LEAVE).toContain("\u001B[?1049l");
    expect(LEAVE).toContain("\u001B[?25h");
    expect(proc.listenerCount("exit") + proc.listenerCount("SIGTERM") + proc.listenerCount("uncaughtException")).toBe(0);
  });

  it("restores the terminal on process exit, on a crash and on SIGTERM / SIGHUP / SIGINT", () => {
    for (const trigger of ["exit", "uncaughtException", "SIGTERM", "SIGHUP", "SIGINT"] as const) {
      const out = new FakeOut();
      const proc = new EventEmitter();
      const onSignal = vi.fn();
      const onCrash = vi.fn();
      const screen = new Screen({ stdout: out, proc: asProc(proc), onSignal, onCrash });
      screen.enter();
      proc.emit(trigger, trigger === "uncaughtException" ? new Error("boom") : trigger);
      expect(out.text.endsWith(LEAVE)).toBe(true);
      expect(screen.isActive).toBe(false);
      if (trigger.startsWith("SIG")) expect(onSignal).toHaveBeenCalledWith(trigger);
      if (trigger === "uncaughtException") expect(onCrash).toHaveBeenCalledWith(expect.objectContaining({ message: "boom" }));
    }
  });
});

describe("store", () => {
  it("folds a burst of events into one notification", async () => {
    const session = new TestSession();
    const store = new DashboardStore({ rootAgentId: "root", flushIntervalMs: 30 });
    store.attach(session.bus);
    const listener = vi.fn();
    store.subscribe(listener);
    for (let i = 0; i < 500; i++) session.emit({ type: "text_delta", agentId: "root", text: "x" });
    expect(listener).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(listener).toHaveBeenCalledTimes(1));
    const entry = store.getSnapshot().agents.root.entries[0];
    expect(entry).toMatchObject({ text: "x".repeat(500) });
    store.dispose();
  });

  it("folds scheduler changes into the next flush", () => {
    const session = new TestSession();
    const store = new DashboardStore({ rootAgentId: "root" });
    store.attachScheduler(session);
    session.setCounts({ running: 2, waiting: 1 });
    store.flush();
    expect(store.getSnapshot().scheduler).toEqual({ running: 2, waiting: 1 });
    store.dispose();
  });
});

describe("runDashboard", () => {
  it("puts the terminal in raw mode before the first frame, so an early Ctrl+C is a key, not a SIGINT", async () => {
    const out = new FakeOut();
    const input = new FakeIn();
    const order: string[] = [];
    const write = out.write;
    out.write = (chunk: string) => {
      if (chunk !== ENTER) order.push("frame");
      return write(chunk);
    };
    input.setRawMode = (on: boolean) => void order.push(`raw ${on}`);
    const session = new TestSession();
    const done = runDashboard({ session, approver: new DialogApprover(), stdout: out as unknown as NodeJS.WriteStream, stdin: input as unknown as NodeJS.ReadStream });
    await vi.waitFor(() => expect(out.text).toContain("Ctrl+C exit"), FRAME);
    expect(order[0]).toBe("raw true");
    input.send("\u0003");
    await expect(done).resolves.toEqual({ exitCode: 0 });
    expect(order.filter((o) => o.startsWith("raw")).at(-1)).toBe("raw false");
  });

  it("draws inside the alternate screen, submits the initial prompt and restores the terminal on exit", async () => {
    const out = new FakeOut();
    const input = new FakeIn();
    const session = new TestSession();
    const ours = () => ["SIGTERM", "SIGHUP", "SIGINT", "exit", "uncaughtException"].flatMap((e) => process.listeners(e as "exit")).filter((l) => l.name.startsWith("orcaScreen")).length;
    const done = runDashboard({
      session,
      approver: new DialogApprover(),
      initialPrompt: "hello",
      stdout: out as unknown as NodeJS.WriteStream,
      stdin: input as unknown as NodeJS.ReadStream,
    });
    await vi.waitFor(() => expect(session.runs).toEqual(["hello"]));
    await vi.waitFor(() => expect(out.text).toContain("Esc cancel run"), FRAME);
    expect(out.chunks[0]).toBe(ENTER);
    expect(ours()).toBe(5);
    // No frame is as tall as the terminal (ink 6.8 would clear the screen on every render).
    expect(out.text).not.toContain("\u001B[2J\u001B[3J");
    session.finishRun();
    // The idle hints are drawn after the running ones.
    await vi.waitFor(() => expect(out.text.lastIndexOf("Ctrl+C exit")).toBeGreaterThan(out.text.lastIndexOf("Esc cancel run")), FRAME);
    input.send("\u0003");
    await expect(done).resolves.toEqual({ exitCode: 0 });
    expect(out.text.endsWith(LEAVE)).toBe(true);
    expect(ours()).toBe(0);
  });

  it("cancels the run and exits 130 on a double Ctrl+C", async () => {
    const out = new FakeOut();
    const input = new FakeIn();
    const session = new TestSession();
    session.cancel = (id?: string) => void session.cancels.push(id);
    const done = runDashboard({ session, approver: new DialogApprover(), initialPrompt: "work", stdout: out as unknown as NodeJS.WriteStream, stdin: input as unknown as NodeJS.ReadStream });
    await vi.waitFor(() => expect(session.busy).toBe(true));
    await vi.waitFor(() => expect(out.text).toContain("Esc cancel run"), FRAME);
    input.send("\u0003");
    await vi.waitFor(() => expect(session.cancels.length).toBe(1));
    input.send("\u0003");
    await expect(done).resolves.toEqual({ exitCode: 130 });
    expect(out.text.endsWith(LEAVE)).toBe(true);
  });
});
