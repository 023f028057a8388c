/**
 * Attacks on the input box from what a repository holds: file names and custom commands reach the
 * frame and the prompt. Frame-level (the real App, the real userInput over a temp folder), so what
 * is asserted is what the terminal would receive.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { render } from "ink-testing-library";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { userInput } from "../../src/orchestrator/user-input.js";
import type { CustomCommand } from "../../src/skills/commands.js";
import { Workspace } from "../../src/tools/workspace.js";
import { App } from "../../src/ui/App.js";
import { DialogApprover } from "../../src/ui/dialog-approver.js";
import type { DashboardHost } from "../../src/ui/host.js";
import { pressKeys } from "../fixtures/ink.js";
import { TestSession } from "./ui-session.js";

const ENTER = "\r";
const SECRET = "SECRET-MARKER-91c2";
/** OSC 0 (window title) and OSC 52 (clipboard) in a name. */
const EVIL = "a\u001B]0;PWNED\u0007\u001B]52;c;ZWNobyBoaQ==\u0007.md";

let root: string;
let mounted: ReturnType<typeof render>[] = [];
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "orca-input-attack-"));
});
afterEach(() => {
  for (const r of mounted) r.unmount();
  mounted = [];
  fs.rmSync(root, { recursive: true, force: true });
});

function command(over: Partial<CustomCommand>): CustomCommand {
  return { name: "audit", description: "audit", argumentHint: "", allowedTools: [], body: "Review $ARGUMENTS", file: path.join(root, ".orca/commands/audit.md"), origin: "project", ...over };
}

function mount(commands: CustomCommand[] = [], writeRaw?: (s: string) => void) {
  const session = new TestSession();
  const attached: string[] = [];
  const real = userInput({ workspace: new Workspace(root), readDenied: () => undefined, mode: () => "default" });
  session.input = { ...real, attach: (p) => (attached.push(p), real.attach(p)) };
  const host: DashboardHost = { commands: () => ({ commands, skipped: [] }) } as DashboardHost;
  const r = render(<App session={session} approver={new DialogApprover()} host={host} writeRaw={writeRaw} onExit={() => undefined} />);
  mounted.push(r);
  const frame = (): string => r.lastFrame() ?? "";
  const see = (text: string) => vi.waitFor(() => expect(frame()).toContain(text), { timeout: 5000 });
  const type = (text: string) => pressKeys(r.stdin, [...text]);
  return { session, attached, r, frame, see, type, press: (...k: string[]) => pressKeys(r.stdin, k) };
}

/** Any control string (OSC, DCS…) or BEL in a frame: the dashboard's own styles are CSI only. */
const CONTROL_STRING = /\u001B[\]PX^_]|[\u0007\u0090\u009D]/;

describe("the @ popup and custom commands from an untrusted repository", () => {
  it("a file name with OSC 0 / OSC 52 never reaches the frame when @ is typed", async () => {
    fs.writeFileSync(path.join(root, EVIL), "x");
    fs.writeFileSync(path.join(root, "plain.md"), "y");
    const { frame, see, type } = mount();
    await type("@");
    await see("@plain.md");
    expect(frame()).not.toMatch(CONTROL_STRING);
    expect(frame()).not.toContain("PWNED");
  });

  it("a custom command's description and argument hint are shown inert in the popup", async () => {
    const { frame, see, type } = mount([command({ description: `d\u001B]52;c;ZWNobyBoaQ==\u0007esc`, argumentHint: "\u001B]0;PWNED\u0007<x>" })]);
    await type("/aud");
    await see("/audit");
    await see("desc");
    expect(frame()).not.toMatch(CONTROL_STRING);
    expect(frame()).not.toContain("PWNED");
  });
});

describe("custom commands attach only what the person typed", () => {
  it("an @path in a command's body is text, not an attachment; an @path in its arguments is attached", async () => {
    fs.writeFileSync(path.join(root, ".env"), SECRET);
    fs.writeFileSync(path.join(root, "notes.txt"), "NOTES-CONTENT");
    const { session, attached, type, press } = mount([command({ body: "Check @.env then $ARGUMENTS" })]);
    await type("/audit @notes.txt");
    await press(ENTER);
    await vi.waitFor(() => expect(session.runs).toHaveLength(1), { timeout: 5000 });
    expect(attached).toEqual(["notes.txt"]);
    expect(session.runs[0]).toContain("NOTES-CONTENT");
    expect(session.runs[0]).not.toContain(SECRET);
  });
});

describe("a custom command's model", () => {
  it("is put back after its run, unless the person chose another model with /model meanwhile", async () => {
    const { session, type, press, see } = mount([command({ model: "cmd-model" })]);
    await type("/audit x");
    await press(ENTER);
    await vi.waitFor(() => expect(session.runs).toHaveLength(1), { timeout: 5000 });
    expect(session.modelName).toBe("cmd-model");
    await type("/model chosen-model");
    await press(ENTER);
    await see("model: chosen-model");
    session.finishRun();
    await vi.waitFor(() => expect(session.busy).toBe(false));
    await type("/model");
    await press(ENTER);
    await see("model: chosen-model (");
    expect(session.modelName).toBe("chosen-model");

    // Untouched during the run, the session's model comes back.
    await type("/audit y");
    await press(ENTER);
    await vi.waitFor(() => expect(session.runs).toHaveLength(2), { timeout: 5000 });
    expect(session.modelName).toBe("cmd-model");
    session.finishRun();
    await vi.waitFor(() => expect(session.modelName).toBe("chosen-model"), { timeout: 5000 });
  });
});

describe("/copy", () => {
  it("copies terminal-safe text: a model's answer cannot end a bracketed paste or carry escapes to the clipboard", async () => {
    const written: string[] = [];
    const { session, type, press, see } = mount([], (seq) => written.push(seq));
    await type("go");
    await press(ENTER);
    await vi.waitFor(() => expect(session.runs).toHaveLength(1), { timeout: 5000 });
    // Pasted into a shell, `ESC[201~` would end the paste and the rest would run as typed.
    session.finishRun("done", "safe line\n\tindented\r\n\u001B[201~touch /tmp/pwned\r\u001B]0;PWNED\u0007\u009B2Jend\u0000");
    await vi.waitFor(() => expect(session.busy).toBe(false));
    await type("/copy");
    await press(ENTER);
    await see("copied the last answer without its escape sequences and control characters");
    expect(written).toHaveLength(1);
    const copied = Buffer.from(/\]52;c;([A-Za-z0-9+/=]*)\u0007/.exec(written[0]!)![1]!, "base64").toString("utf8");
    expect(copied).toBe("safe line\n\tindented\ntouch /tmp/pwned\nend");
  });
});
