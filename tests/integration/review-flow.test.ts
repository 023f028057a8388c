/**
 * The review flow on a real session (scripted model over real HTTP, real tools, the dashboard's own
 * command handlers): /review shows the editor's diff with its hunks; rejecting one hunk with a
 * comment restores exactly that hunk on disk and the editor, resumed through its parent, receives
 * the comment; /diff shows the session's change; /rewind to the turn's checkpoint restores every
 * file the turn changed.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { SessionSetup } from "../../src/orchestrator/create.js";
import { readLog } from "../../src/events/log.js";
import { rebuildSession } from "../../src/sessions/rebuild.js";
import { runCommand, type CommandContext } from "../../src/ui/slash-commands.js";
import { parseSlash } from "../../src/ui/slash.js";
import { DashboardStore } from "../../src/ui/state/store.js";
import type { DocLine, ViewAction } from "../../src/ui/state/ui.js";
import { DEFAULT_KEYMAP } from "../../src/ui/keymap.js";
import { agentOf, perAgent } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";
import { orchestra } from "../fixtures/rig-orchestra.js";
import { AFTER, BEFORE, editorChangesCalc, lines } from "../fixtures/review.js";


/** The dashboard's command handlers on `session`, with the documents they open and the prompts they send kept. */
function dashboard(session: SessionSetup["session"]) {
  const store = new DashboardStore({ rootAgentId: session.rootAgentId });
  const opened: Array<{ title: string; lines: readonly DocLine[] }> = [];
  const submitted: string[] = [];
  const restored: string[] = [];
  const ctx: CommandContext = {
    session,
    store,
    keymap: DEFAULT_KEYMAP,
    busy: false,
    dispatchView: (a: ViewAction) => void (a.type === "open" && a.target.kind === "doc" && opened.push({ title: a.target.title, lines: a.target.lines })),
    refresh: () => undefined,
    exit: () => undefined,
    switchTo: () => undefined,
    submit: (text) => void submitted.push(text),
    restoreInput: (text) => void restored.push(text),
  };
  return { store, opened, submitted, restored, ctx };
}

describe("review, diff and rewind on a real session", () => {
  it("rejects one hunk with a comment: exactly it is restored, and the editor reads the comment", async () => {
    const ws = workspace({ "calc.js": BEFORE });
    const server = await scriptedServer(editorChangesCalc());
    const setup = await orchestra(ws, server.url, { config: "permissions:\n  mode: accept-edits\n" });
    const { session } = setup;
    const { store, opened, submitted, ctx } = dashboard(session);
    const slash = (text: string) => runCommand(parseSlash(text)!, ctx);
    const notices = () => store.getSnapshot().agents[session.rootAgentId]?.entries.map((e) => ("text" in e ? e.text : "")).join("\n") ?? "";

    expect((await session.run("edit calc")).status).toBe("done");
    expect(ws.read("calc.js")).toBe(AFTER);

    slash("/review text editor-1");
    await vi.waitFor(() => expect(opened.length).toBe(1));
    const review = opened[0]!.lines.map((l) => l.text).join("\n");
    expect(review).toContain("editor-1 [calc] — 2 files");
    expect(review).toContain("modified calc.js (2 hunks)");
    expect(review).toContain("-line 25\n+LINE 25");

    slash("/diff");
    await vi.waitFor(() => expect(opened.length).toBe(2));
    expect(opened[1]!.lines.map((l) => l.text).join("\n")).toMatch(/2 files[\s\S]*-line 2\n\+LINE TWO[\s\S]*created notes\.txt[\s\S]*\+n1/);

    slash("/review reject editor-1 calc.js 2 -- keep line 25 as it was");
    await vi.waitFor(() => expect(submitted.length).toBe(1));
    // Exactly the second hunk is back; the first stays.
    expect(ws.read("calc.js")).toBe(lines(30, (i) => (i === 2 ? "LINE TWO" : undefined)));
    expect(notices()).toContain("rejected hunk 2 of calc.js: restored on disk; editor-1 is not running");
    // The editor has ended: its parent is asked to resume it, and it reads the comment.
    expect((await session.run(submitted[0]!)).status).toBe("done");
    const resumed = server.requests.filter((r) => agentOf(r) === "editor-1").at(-1)!;
    expect(JSON.stringify(resumed.body.messages.at(-1))).toContain("Their comment: keep line 25 as it was");
  });

  it("/rewind to the turn's checkpoint restores every file the turn changed", async () => {
    const ws = workspace({ "a.txt": "a0\n", "b.txt": "b0\n" });
    const server = await scriptedServer([
      { toolCalls: [{ name: "read_file", args: { path: "a.txt" } }] },
      { toolCalls: [{ name: "write_file", args: { path: "a.txt", content: "a1\n" } }] },
      { toolCalls: [{ name: "write_file", args: { path: "c.txt", content: "new\n" } }] },
      { text: "done" },
    ]);
    const setup = await orchestra(ws, server.url, { config: "permissions:\n  mode: accept-edits\n" });
    const { session } = setup;
    const { opened, ctx } = dashboard(session);
    expect((await session.run("change a, add c")).status).toBe("done");
    expect([ws.read("a.txt"), ws.read("c.txt")]).toEqual(["a1\n", "new\n"]);
    runCommand(parseSlash("/rewind")!, ctx);
    expect(opened[0]!.lines.map((l) => l.text).join("\n")).toMatch(/ {2}1 {2}turn +change a, add c/);
    runCommand(parseSlash("/rewind 1")!, ctx);
    await vi.waitFor(() => expect(ws.read("a.txt")).toBe("a0\n"));
    await vi.waitFor(() => expect(() => ws.read("c.txt")).toThrow());
    expect(ws.read("b.txt")).toBe("b0\n");
  });

  it("/rewind N both: the files and the coordinator's conversation go back to before that prompt; the log keeps what was set aside, and a resume rebuilds the rewound history", async () => {
    const ws = workspace({ "a.txt": "a0\n" });
    const server = await scriptedServer([
      { text: "noted: the colour is blue" },
      { toolCalls: [{ name: "read_file", args: { path: "a.txt" } }] },
      { toolCalls: [{ name: "write_file", args: { path: "a.txt", content: "a1\n" } }] },
      { text: "wrote a1 because of the secret word swordfish" },
      { text: "after the rewind" },
    ]);
    const setup = await orchestra(ws, server.url, { config: "permissions:\n  mode: accept-edits\n" });
    const { session } = setup;
    const { restored, ctx, store } = dashboard(session);
    expect((await session.run("the colour is blue")).status).toBe("done");
    expect((await session.run("change a.txt, the secret word is swordfish")).status).toBe("done");
    expect(ws.read("a.txt")).toBe("a1\n");
    const before = session.agentState(session.rootAgentId)!.history.length;

    const off = store.attach(session.bus);
    runCommand(parseSlash("/rewind 2 both")!, ctx);
    await vi.waitFor(() => expect(restored).toEqual(["change a.txt, the secret word is swordfish"]));
    expect(ws.read("a.txt")).toBe("a0\n");
    const history = session.agentState(session.rootAgentId)!.history;
    expect(JSON.stringify(history)).not.toContain("swordfish");
    expect(JSON.stringify(history)).toContain("noted: the colour is blue");
    const notes = () => store.getSnapshot().agents[session.rootAgentId]!.entries.map((e) => ("text" in e ? e.text : "")).join("\n");
    expect(notes()).toContain("rewound to change a.txt, the secret word is swordfish: 1 file restored (a.txt)");
    await vi.waitFor(() => expect(notes()).toContain(`conversation rewound to before "change a.txt, the secret word is swordfish": ${before - history.length} messages set aside`));
    off();

    // The next request no longer carries the rewound turn.
    expect((await session.run("what now?")).status).toBe("done");
    const last = server.requests.at(-1)!;
    expect(JSON.stringify(last.body.messages)).not.toContain("swordfish");
    expect(JSON.stringify(last.body.messages)).toContain("the colour is blue");

    // Nothing is deleted: the log still has the turn; replayed, it gives the history the session has.
    const live = session.agentState(session.rootAgentId)!.history;
    await session.close();
    const logged = readLog(session.logFile!);
    expect(logged.events.some((e) => e.type === "user_message" && e.text.includes("swordfish"))).toBe(true);
    expect(logged.events.filter((e) => e.type === "conversation_rewound")).toHaveLength(1);
    const rebuilt = rebuildSession(logged.events).agents.find((a) => a.id === session.rootAgentId)!;
    expect(rebuilt.history).toEqual(live);
  });

  it("/rewind N conversation on a sub-agent's checkpoint is refused in one line, and nothing changes", async () => {
    const ws = workspace({ "a.txt": "a0\n" });
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [{ name: "delegate", args: { agent: "editor", task: "write a.txt" } }] }, { text: "done" }],
        "editor-1": [{ toolCalls: [{ name: "write_file", args: { path: "b.txt", content: "b1\n" } }] }, { text: "wrote" }],
      }),
    );
    const setup = await orchestra(ws, server.url, { config: "permissions:\n  mode: bypass\n" });
    const { session } = setup;
    const { ctx, store } = dashboard(session);
    expect((await session.run("go")).status).toBe("done");
    const history = [...session.agentState(session.rootAgentId)!.history];
    runCommand(parseSlash("/rewind 2 conversation")!, ctx);
    const notes = store.getSnapshot().agents[session.rootAgentId]!.entries.map((e) => ("text" in e ? e.text : "")).join("\n");
    expect(notes).toContain("✗ /rewind: checkpoint 2 is a sub-agent's start");
    expect(session.agentState(session.rootAgentId)!.history).toEqual(history);
    expect(ws.read("b.txt")).toBe("b1\n");
  });

  it("/rewind and a rejected hunk restore a file changed in an additional dir", async () => {
    const ws = workspace({});
    const extra = path.join(path.dirname(ws.dir), "extra");
    fs.mkdirSync(extra);
    fs.writeFileSync(path.join(extra, "e.txt"), BEFORE);
    fs.writeFileSync(path.join(extra, "f.txt"), "f0\n");
    const server = await scriptedServer([
      { toolCalls: [{ name: "read_file", args: { path: path.join(extra, "e.txt") } }] },
      { toolCalls: [{ name: "write_file", args: { path: path.join(extra, "e.txt"), content: AFTER } }] },
      { toolCalls: [{ name: "read_file", args: { path: path.join(extra, "f.txt") } }] },
      { toolCalls: [{ name: "write_file", args: { path: path.join(extra, "f.txt"), content: "f1\n" } }] },
      { text: "done" },
    ]);
    const setup = await orchestra(ws, server.url, { config: `permissions:\n  mode: bypass\n  additional_dirs: [${JSON.stringify(extra)}]\n` });
    const { session } = setup;
    expect((await session.run("change the extra dir")).status).toBe("done");
    const e = path.join(extra, "e.txt");
    const file = session.review.changeSets().agents[0]!.files.find((f) => f.path === e)!;
    expect(await session.review.reject(session.rootAgentId, file, [1])).toEqual({ ok: true });
    expect(fs.readFileSync(e, "utf8")).toBe(lines(30, (i) => (i === 2 ? "LINE TWO" : undefined)));
    const { ctx } = dashboard(session);
    runCommand(parseSlash("/rewind 1")!, ctx);
    await vi.waitFor(() => expect(fs.readFileSync(path.join(extra, "f.txt"), "utf8")).toBe("f0\n"));
    await vi.waitFor(() => expect(fs.readFileSync(e, "utf8")).toBe(BEFORE));
  });
  it("a hunk of a binary file is refused (it has none): the file stays as it is, rejecting it whole still works", async () => {
    const ws = workspace({});
    const server = await scriptedServer([
      { toolCalls: [{ name: "write_file", args: { path: "bin.dat", content: "head\u0000one\n" } }] },
      { text: "done" },
    ]);
    const setup = await orchestra(ws, server.url, { config: "permissions:\n  mode: bypass\n" });
    const { session } = setup;
    expect((await session.run("write a binary file")).status).toBe("done");
    const file = session.review.changeSets().agents[0]!.files.find((f) => f.path === "bin.dat")!;
    const refused = await session.review.reject(session.rootAgentId, file, [0]);
    expect(refused.ok).toBe(false);
    expect(refused.ok ? "" : refused.error).toContain("binary");
    expect(ws.read("bin.dat")).toBe("head\u0000one\n");
    expect(await session.review.reject(session.rootAgentId, file, "all")).toEqual({ ok: true });
    expect(fs.existsSync(path.join(ws.dir, "bin.dat"))).toBe(false);
  });
});
