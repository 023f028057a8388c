import { FakeIn, FakeOut } from "./fake-terminal.js";
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SessionInfo } from "../../src/sessions/store.js";
import { pickSession } from "../../src/ui/pick.js";
import { ENTER as ENTER_SCREEN, LEAVE } from "../../src/ui/screen.js";
import { filterSessions, formatStart, SessionPicker, windowStart } from "../../src/ui/SessionPicker.js";
import { pressKeys } from "../fixtures/ink.js";

const UP = "\u001B[A";
const DOWN = "\u001B[B";
const ENTER = "\r";
const ESC = "\u001B";
const CTRL_C = "\u0003";
const CTRL_U = "\u0015";
const BACKSPACE = "\u007F";

function info(id: string, workspace: string, firstPrompt: string, status: string, startedAt: number): SessionInfo {
  return { id, file: `/data/sessions/${id}.jsonl`, workspace, model: "gpt-4o-mini", startedAt, lastActiveAt: startedAt + 1000, firstPrompt, status, resumes: 0, answered: true, demo: false };
}

const SESSIONS: SessionInfo[] = [
  info("20250301-101500-aaaaaa", "/home/u/projects/api", "add rate limiting to the API", "idle", Date.UTC(2025, 2, 1, 10, 15)),
  info("20250228-090000-bbbbbb", "/home/u/projects/web", "fix the flaky login test", "interrupted", Date.UTC(2025, 1, 28, 9, 0)),
  info("20250227-080000-cccccc", "/home/u/projects/api", "write the README", "failed", Date.UTC(2025, 1, 27, 8, 0)),
];

type Rendered = ReturnType<typeof render>;
let mounted: Rendered[] = [];
afterEach(() => {
  for (const r of mounted) r.unmount();
  mounted = [];
});

function mount(sessions: SessionInfo[] = SESSIONS) {
  const picked: (string | null)[] = [];
  const r = render(<SessionPicker sessions={sessions} home="/home/u" onDone={(id) => picked.push(id)} />);
  mounted.push(r);
  const frame = (): string => r.lastFrame() ?? "";
  const selectedLine = (): string => frame().split("\n").find((l) => l.includes("▸")) ?? "";
  const press = (...keys: string[]) => pressKeys(r.stdin, keys);
  return { r, frame, selectedLine, press, picked };
}

describe("filterSessions", () => {
  it("keeps the sessions holding every word, in any field, ignoring case", () => {
    expect(filterSessions(SESSIONS, "").map((s) => s.id)).toEqual(SESSIONS.map((s) => s.id));
    expect(filterSessions(SESSIONS, "API").map((s) => s.id)).toEqual(["20250301-101500-aaaaaa", "20250227-080000-cccccc"]);
    expect(filterSessions(SESSIONS, "api readme").map((s) => s.id)).toEqual(["20250227-080000-cccccc"]);
    expect(filterSessions(SESSIONS, "interrupted").map((s) => s.id)).toEqual(["20250228-090000-bbbbbb"]);
    expect(filterSessions(SESSIONS, "bbbb").map((s) => s.id)).toEqual(["20250228-090000-bbbbbb"]);
    expect(filterSessions(SESSIONS, "nothing like it")).toEqual([]);
  });
});

describe("SessionPicker", () => {
  it("lists every session in the given order with id, start time, status, workspace and first prompt", async () => {
    const { frame, selectedLine } = mount();
    await vi.waitFor(() => expect(frame()).toContain("resume a session"));
    const lines = frame().split("\n");
    const row = (id: string) => lines.findIndex((l) => l.includes(id));
    expect(row("aaaaaa")).toBeLessThan(row("bbbbbb"));
    expect(row("bbbbbb")).toBeLessThan(row("cccccc"));
    const first = lines[row("aaaaaa")]!;
    expect(first).toContain(formatStart(SESSIONS[0]!.startedAt));
    expect(first).toContain("idle");
    expect(first).toContain("~/projects/api");
    // The prompt gets the rest of the row; at 100 columns its end is cut.
    expect(first).toContain("add rate limiting to");
    expect(lines[row("bbbbbb")]).toContain("interrupted");
    expect(selectedLine()).toContain("aaaaaa");
  });

  it("moves with ↑/↓ (staying inside the list) and opens the selected session with Enter", async () => {
    const { frame, selectedLine, press, picked } = mount();
    await vi.waitFor(() => expect(frame()).toContain("resume a session"));
    await press(UP);
    expect(selectedLine()).toContain("aaaaaa");
    await press(DOWN, DOWN, DOWN);
    expect(selectedLine()).toContain("cccccc");
    await press(UP);
    expect(selectedLine()).toContain("bbbbbb");
    await press(ENTER);
    expect(picked).toEqual(["20250228-090000-bbbbbb"]);
    // One answer only, whatever comes after.
    await press(ENTER, ESC);
    expect(picked).toEqual(["20250228-090000-bbbbbb"]);
  });

  it("filters as the user types, selects the first match, and edits the filter with Backspace and Ctrl+U", async () => {
    const { frame, selectedLine, press, picked } = mount();
    await vi.waitFor(() => expect(frame()).toContain("resume a session"));
    await press(DOWN);
    await press(..."readme".split(""));
    expect(frame()).toContain("filter › readme");
    expect(frame()).toContain("1 of 3 sessions");
    expect(frame()).not.toContain("aaaaaa");
    expect(selectedLine()).toContain("cccccc");
    await press("x");
    expect(frame()).toContain("no session matches “readmex”");
    // Enter on an empty list does nothing.
    await press(ENTER);
    expect(picked).toEqual([]);
    await press(BACKSPACE);
    expect(selectedLine()).toContain("cccccc");
    await press(CTRL_U);
    expect(frame()).toContain("aaaaaa");
    expect(frame()).toContain("bbbbbb");
    await press("w", "e", "b", ENTER);
    expect(picked).toEqual(["20250228-090000-bbbbbb"]);
  });

  it("quits with null on Esc and on Ctrl+C", async () => {
    const a = mount();
    await vi.waitFor(() => expect(a.frame()).toContain("resume a session"));
    await a.press(DOWN, ESC);
    await vi.waitFor(() => expect(a.picked).toEqual([null]));
    const b = mount();
    await vi.waitFor(() => expect(b.frame()).toContain("resume a session"));
    await b.press("a", CTRL_C);
    expect(b.picked).toEqual([null]);
  });

  it("scrolls a long list so the selection stays on screen", async () => {
    const many = Array.from({ length: 60 }, (_, i) => info(`20250101-0000${String(i).padStart(2, "0")}-s${String(i).padStart(5, "0")}`, "/w", `prompt ${i}`, "idle", 1_000_000 - i));
    const { frame, selectedLine, press } = mount(many);
    await vi.waitFor(() => expect(frame()).toContain("resume a session"));
    expect(frame()).not.toContain("s00059");
    for (let i = 0; i < 40; i++) await press(DOWN);
    expect(selectedLine()).toContain("s00040");
    expect(frame()).not.toContain("s00000");
    // Going back up moves the selection inside the window; the window follows only at its top.
    const topRow = (): string => frame().split("\n").find((l) => /s000\d\d/.test(l)) ?? "";
    const before = topRow();
    await press(UP, UP);
    expect(selectedLine()).toContain("s00038");
    expect(topRow()).toBe(before);
  });

  it("windowStart keeps the window still until the selection leaves it", () => {
    expect(windowStart(0, 5, 10, 3)).toBe(0);
    expect(windowStart(0, 12, 10, 60)).toBe(3);
    expect(windowStart(3, 11, 10, 60)).toBe(3);
    expect(windowStart(3, 2, 10, 60)).toBe(2);
    expect(windowStart(50, 59, 10, 60)).toBe(50);
    expect(windowStart(55, 59, 10, 60)).toBe(50);
  });
});


describe("pickSession", () => {
  const ours = () => ["SIGTERM", "SIGHUP", "exit", "uncaughtException"].flatMap((e) => process.listeners(e as "exit")).filter((l) => l.name.startsWith("orcaScreen")).length;

  it("draws on the alternate screen, resolves with the chosen id and restores the terminal", async () => {
    const out = new FakeOut(120, 30);
    const input = new FakeIn();
    const result = pickSession({ sessions: SESSIONS, stdout: out as unknown as NodeJS.WriteStream, stdin: input as unknown as NodeJS.ReadStream });
    await vi.waitFor(() => expect(out.text).toContain("fix the flaky login test"));
    expect(out.chunks[0]).toBe(ENTER_SCREEN);
    expect(ours()).toBe(4);
    input.send(DOWN);
    await vi.waitFor(() => expect(out.text).toMatch(/▸ 20250228-090000-bbbbbb/));
    input.send(ENTER);
    await expect(result).resolves.toBe("20250228-090000-bbbbbb");
    expect(out.text.endsWith(LEAVE)).toBe(true);
    expect(ours()).toBe(0);
  });

  it("resolves with null when the user quits", async () => {
    const out = new FakeOut(120, 30);
    const input = new FakeIn();
    const result = pickSession({ sessions: SESSIONS, stdout: out as unknown as NodeJS.WriteStream, stdin: input as unknown as NodeJS.ReadStream });
    await vi.waitFor(() => expect(out.text).toContain("resume a session"));
    input.send(ESC);
    await expect(result).resolves.toBeNull();
    expect(out.text.endsWith(LEAVE)).toBe(true);
  });
});
