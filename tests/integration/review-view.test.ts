/**
 * The review view on a real session (scripted model over real HTTP, real tools, the session's own
 * ReviewDesk), driven with keys through Ink: move to a hunk, reject it, comment, send. Exactly that
 * hunk goes back on disk and the editor, resumed through its parent, reads the comment. A change
 * set of thousands of files draws only the rows on screen and diffs only the files near it, and a
 * file name or task carrying escape sequences is drawn inert.
 */
import fs from "node:fs";
import path from "node:path";
import { render } from "ink-testing-library";
import { createElement } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { EventBus } from "../../src/events/bus.js";
import type { OrcaEvent } from "../../src/events/types.js";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import type { SessionSetup } from "../../src/orchestrator/create.js";
import { ReviewDesk, type ReviewApi } from "../../src/orchestrator/review-desk.js";
import { ContentStore } from "../../src/sessions/content-store.js";
import { Workspace } from "../../src/tools/workspace.js";
import { contentHash } from "../../src/util/content-hash.js";
import { KeyLayerProvider } from "../../src/ui/hooks/key-layers.js";
import { DEFAULT_KEYMAP } from "../../src/ui/keymap.js";
import { ReviewView, type ReviewViewProps } from "../../src/ui/ReviewView.js";
import { pressKeys } from "../fixtures/ink.js";
import { agentOf, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
import { testOrchestra } from "../fixtures/orchestra.js";
import { BEFORE, editorChangesCalc, lines } from "../fixtures/review.js";

const ESC = "\u001B";
const ENTER = "\r";

let server: ScriptedServer | undefined;
let ws: TempWorkspace | undefined;
let orchestra: SessionSetup | undefined;
let mounted: ReturnType<typeof render> | undefined;

afterEach(async () => {
  mounted?.unmount();
  await orchestra?.session.close();
  await server?.close();
  ws?.cleanup();
  mounted = orchestra = server = ws = undefined;
});


function mount(review: ReviewApi, props: Partial<ReviewViewProps> = {}) {
  const notices: string[] = [];
  const submitted: string[] = [];
  const closed: number[] = [];
  const view = createElement(ReviewView, {
    review,
    width: 100,
    height: 30,
    onClose: () => void closed.push(1),
    notify: (l: string[]) => void notices.push(...l),
    submit: (t: string) => void submitted.push(t),
    ...props,
  });
  const r = (mounted = render(createElement(KeyLayerProvider, { keymap: DEFAULT_KEYMAP, children: view })));
  const frame = (): string => r.lastFrame() ?? "";
  const see = (text: string | RegExp) => vi.waitFor(() => (typeof text === "string" ? expect(frame()).toContain(text) : expect(frame()).toMatch(text)), { timeout: 10_000 });
  const press = (...keys: string[]) => pressKeys(r.stdin, keys);
  return { frame, see, press, notices, submitted, closed };
}

describe("the review view", () => {
  it("rejects one hunk with a comment: exactly it is restored, and the editor reads the comment", async () => {
    ws = tempWorkspace({ "calc.js": BEFORE });
    server = await startScriptedServer(editorChangesCalc());
    orchestra = await testOrchestra(ws, server.url, { config: "permissions:\n  mode: accept-edits\n" });
    const { session } = orchestra;
    expect((await session.run("edit calc")).status).toBe("done");

    const v = mount(session.review, { bus: session.bus });
    await v.see("editor-1 [calc] — 2 files");
    await v.see("modified calc.js (2 hunks)");
    await v.see("+LINE 25");
    // The agent, its first file, hunk 1, hunk 2.
    await v.press("j", "j", "j");
    await v.see(/›\s+@@ hunk 2:/);
    await v.press("r");
    await v.see(/›✗\s+@@ hunk 2:/);
    await v.press("c", ..."keep line 25", ENTER);
    await v.see("✎ keep line 25");
    await v.press("s");
    await vi.waitFor(() => expect(v.submitted.length).toBe(1));
    // Exactly the second hunk is back; the first stays; notes.txt is untouched.
    expect(ws.read("calc.js")).toBe(lines(30, (i) => (i === 2 ? "LINE TWO" : undefined)));
    expect(ws.read("notes.txt")).toBe("n1\n");
    expect(v.notices.join("\n")).toContain("review of editor-1: restored calc.js; editor-1 is not running");
    // The view follows the disk: one hunk is left.
    await v.see("modified calc.js (1 hunk)");
    // The editor has ended: the coordinator is asked to resume it, and it reads the comment.
    expect((await session.run(v.submitted[0]!)).status).toBe("done");
    const resumed = server.requests.filter((r) => agentOf(r) === "editor-1").at(-1)!;
    const told = JSON.stringify(resumed.body.messages.at(-1));
    expect(told).toContain("hunk 2 of your change to calc.js");
    expect(told).toContain("calc.js: hunk 2: keep line 25");
  });

  it("a large change set: only the rows on screen are drawn, only files near them are diffed; names are drawn inert", async () => {
    ws = tempWorkspace({});
    const bus = new EventBus("s-large");
    const contents = new ContentStore(path.join(ws.dataDir, "content"));
    const workspace = new Workspace(ws.dir);
    const prior: OrcaEvent[] = [];
    prior.push({ type: "agent_started", ts: 1, sessionId: "s-large", agentId: "editor-1", name: "editor", label: "many\u001b]0;pwned\u0007", parentId: "coordinator", task: "touch \u001b[2Jeverything", depth: 1, model: "m", system: "s", tools: [] } as const);
    const N = 3000;
    for (let i = 0; i < N; i++) {
      const name = i === 0 ? "a\u001b]52;c;ZXZpbA==\u0007.txt" : `f${String(i).padStart(4, "0")}.txt`;
      const body = `v${i}\n`;
      fs.writeFileSync(path.join(ws.dir, name), body);
      contents.keep(body);
      prior.push({ type: "file_changed", ts: 2, sessionId: "s-large", agentId: "editor-1", tool: "bash", path: name, before: null, after: contentHash(body) } as const);
    }
    const desk = new ReviewDesk({ bus, workspace, contents, rootAgentId: "coordinator", prior, held: () => [], acceptMerge: async () => null, tell: () => ({ ok: true }) });
    const asked: string[] = [];
    const counted: ReviewApi = Object.assign(Object.create(desk) as ReviewDesk, { diff: (f: Parameters<ReviewDesk["diff"]>[0]) => (asked.push(f.path), desk.diff(f)) });
    const v = mount(counted);
    await v.see(`editor-1 [many] — ${N} files: touch everything`);
    await v.see("+v1");
    const frame = v.frame();
    expect(frame.split("\n").length).toBeLessThanOrEqual(30);
    expect(frame).not.toMatch(/\u001b\]|\u001b\[2J/);
    // A control string goes whole, its content with it (util/terminal-text.ts).
    expect(frame).toContain("created a.txt");
    expect(frame).not.toContain("pwned");
    // A screen and two more of files at most, not three thousand.
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.length).toBeLessThan(100);
    await v.press("G");
    await v.see("f2999.txt");
    expect(asked).toContain("f2999.txt");
    expect(asked.length).toBeLessThan(200);
  });

  it("Esc with marks not sent warns first; the second Esc drops them and closes", async () => {
    ws = tempWorkspace({});
    const bus = new EventBus("s-close");
    const contents = new ContentStore(path.join(ws.dataDir, "content"));
    fs.writeFileSync(path.join(ws.dir, "x.txt"), "x\n");
    contents.keep("x\n");
    const prior: OrcaEvent[] = [
      { type: "agent_started", ts: 1, sessionId: "s-close", agentId: "editor-1", name: "editor", task: "x", depth: 1, model: "m", system: "s", tools: [] } as const,
      { type: "file_changed", ts: 2, sessionId: "s-close", agentId: "editor-1", tool: "bash", path: "x.txt", before: null, after: contentHash("x\n") } as const,
    ];
    const desk = new ReviewDesk({ bus, workspace: new Workspace(ws.dir), contents, rootAgentId: "coordinator", prior, held: () => [], acceptMerge: async () => null, tell: () => ({ ok: true }) });
    const v = mount(desk);
    await v.see("created x.txt");
    await v.press("j", "r");
    await v.see(/›✗\s+created x\.txt/);
    await v.press(ESC);
    await v.see("1 mark(s) not sent");
    expect(v.closed).toEqual([]);
    await v.press(ESC);
    await vi.waitFor(() => expect(v.closed).toEqual([1]));
    expect(ws.read("x.txt")).toBe("x\n");
  });
});
