import { EventEmitter } from "node:events";
import fc from "fast-check";
import { render } from "ink";
import stripAnsi from "strip-ansi";
import stringWidth from "string-width";
import { describe, expect, it, vi } from "vitest";
import { App } from "../../src/ui/App.js";
import { DialogApprover } from "../../src/ui/dialog-approver.js";
import { TestSession } from "./ui-session.js";
import { pressKeys } from "../fixtures/ink.js";

/** A terminal of a given size: Ink writes whole frames to it (debug mode), the last one is the screen. */
class FakeTerminal extends EventEmitter {
  frames: string[] = [];
  isTTY = true;
  constructor(
    readonly columns: number,
    readonly rows: number,
  ) {
    super();
  }
  write(chunk: string): boolean {
    this.frames.push(chunk);
    return true;
  }
}

/** Keys the way Ink reads them: 'readable', then read() until null. */
class FakeInput extends EventEmitter {
  isTTY = true;
  private queue: string[] = [];
  setRawMode(): void {}
  setEncoding(): void {}
  ref(): void {}
  unref(): void {}
  read(): string | null {
    return this.queue.shift() ?? null;
  }
  send(data: string): void {
    this.queue.push(data);
    this.emit("readable");
  }
}

describe("the rendered dashboard (property)", () => {
  it("at any size, with any sub-agents, dialog open or not: no row wider than the terminal, at most rows - 1 rows, every box closed, the focused pane and the dialog whole", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 60, max: 240 }),
        fc.integer({ min: 20, max: 80 }),
        fc.array(fc.boolean(), { maxLength: 12 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 12 }),
        async (columns, rows, running, dialog, tabs) => {
          const session = new TestSession();
          const approver = new DialogApprover();
          const out = new FakeTerminal(columns, rows);
          const input = new FakeInput();
          const app = render(<App session={session} approver={approver} />, {
            stdout: out as unknown as NodeJS.WriteStream,
            stdin: input as unknown as NodeJS.ReadStream,
            debug: true,
            exitOnCtrlC: false,
            patchConsole: false,
          });
          try {
            running.forEach((r, i) => {
              session.startAgent(`a${i}`, `agent${i}`, `label ${i}`, "a task ".repeat(20));
              for (let k = 0; k < 15; k++) session.emit({ type: "text_delta", agentId: `a${i}`, text: `line ${k} of agent ${i} `.repeat(3) + "\n" });
              if (!r) session.emit({ type: "agent_finished", agentId: `a${i}`, parentId: "root", status: "done", result: "", steps: 1, usage: { input: 0, output: 0, cached: 0 }, filesChanged: [] });
            });
            if (dialog) void approver.request({ callId: "c", agentId: "a0", agentName: "agent0", tool: "bash", args: { command: `echo ${"x ".repeat(400)}` }, rule: "mode:default" }, new AbortController().signal);
            // Tab cycles over the agents the dashboard knows: wait until the store has flushed them.
            const lastFrame = () => stripAnsi(out.frames[out.frames.length - 1] ?? "");
            // A pane is titled by its agent id (a0 [label 0]).
            if (running.length) await vi.waitFor(() => expect(lastFrame()).toMatch(/a\d \[|more sub-agent/), { timeout: 10_000, interval: 10 });
            // Ink subscribes to keys in a passive effect: let it settle before each Tab.
            for (let t = 0; t < tabs % (running.length + 1); t++) await pressKeys({ write: (d) => input.send(d) }, ["\t"]);
            const focused = tabs % (running.length + 1);
            const focusedTitle = new RegExp(`│. a${focused - 1} \\[label ${focused - 1}\\]`);
            // The screen once the store has flushed what was emitted and the keys: a frame that
            // shows the dialog, the focused pane and the running agents, whichever apply.
            const frame = await vi.waitFor(
              () => {
                const shown = lastFrame();
                if (dialog) expect(shown).toContain("Permission:");
                if (focused > 0) expect(shown).toMatch(focusedTitle);
                if (running.some(Boolean)) expect(shown).toMatch(/running|waiting/);
                if (running.length) expect(shown).toMatch(/a\d \[|more sub-agent/);
                expect(shown).toMatch(/^orca · /);
                return shown;
              },
              { timeout: 10_000, interval: 10 },
            );
            const lines = frame.replace(/\n$/, "").split("\n");
            expect(lines.length).toBeLessThanOrEqual(rows - 1);
            for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(columns);
            const opens = lines.filter((l) => /^[╭╔]/.test(l)).length;
            const closes = lines.filter((l) => /^[╰╚]/.test(l)).length;
            // Side-by-side panes open and close on the same rows.
            expect(lines.map((l) => (l.match(/╭/g) ?? []).length).reduce((a, b) => a + b, 0)).toBe(lines.map((l) => (l.match(/╰/g) ?? []).length).reduce((a, b) => a + b, 0));
            expect(opens).toBe(closes);
            if (dialog) {
              expect(lines.filter((l) => l.startsWith("╔"))).toHaveLength(1);
              expect(lines.filter((l) => l.startsWith("╚"))).toHaveLength(1);
              expect(frame).toContain("Permission:");
            }
            expect(lines[0]).toMatch(/^orca · /);
            if (running.length) expect(/a\d \[|more sub-agent/.test(frame)).toBe(true);
            // Tab focused a sub-agent: its pane is drawn, title and borders.
            if (focused > 0) expect(lines.some((l) => focusedTitle.test(l))).toBe(true);
          } finally {
            app.unmount();
            app.cleanup();
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
