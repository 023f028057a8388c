import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { eventSchema, type EventOf, type OrcaEvent } from "../../src/events/types.js";
import { conflictReport } from "../../src/orchestrator/conflict-report.js";
import { restoreAgents } from "../../src/orchestrator/agents.js";
import { rebuildSession } from "../../src/sessions/rebuild.js";
import { contentHash, statKey } from "../../src/tools/file-version.js";
import { FileVersions } from "../../src/tools/versions.js";
import { Workspace } from "../../src/tools/workspace.js";
import { conflictMark } from "../../src/ui/state/reducer.js";
import { toolRig, type ToolRig } from "../fixtures/tool-rig.js";

let rig: ToolRig | undefined;
/** Added to the real clock: how much time the test says has passed. */
let skew = 0;

afterEach(async () => {
  await rig?.cleanup();
  rig = undefined;
  skew = 0;
});

function setup(files: Record<string, string> = {}): ToolRig {
  rig = toolRig({ now: () => Date.now() + skew, labels: { "editor-2": "fix subtract", "tester-1": "run tests" } });
  for (const [rel, content] of Object.entries(files)) rig.write(rel, content);
  return rig;
}

const conflicts = (r: ToolRig) => r.events.filter((e): e is EventOf<"write_conflict"> => e.type === "write_conflict");
const read = (r: ToolRig, agent: string, path: string, extra: object = {}) => r.call(agent, "read_file", { path, ...extra });
const write = (r: ToolRig, agent: string, path: string, content: string) => r.call(agent, "write_file", { path, content });
const edit = (r: ToolRig, agent: string, path: string, old_string: string, new_string: string) => r.call(agent, "edit_file", { path, old_string, new_string });

describe("write_file against read versions", () => {
  it("refuses a rewrite based on a stale read, saying who changed the file and when; the change survives", async () => {
    const r = setup({ "shared.txt": "F=1\nG=1\n" });
    await read(r, "editor-1", "shared.txt");
    await read(r, "editor-2", "shared.txt");
    expect((await edit(r, "editor-2", "shared.txt", "F=1", "F=2")).ok).toBe(true);
    skew += 3_000;

    const refused = await write(r, "editor-1", "shared.txt", "F=1\nG=2\n");
    expect(refused.ok).toBe(false);
    expect(refused.error).toBe("write_file: shared.txt changed since you read it (edited by editor-2 [fix subtract] 3 s ago); read it again, then write");
    expect(refused.content).toBe(`Error: ${refused.error}`);
    expect(r.read("shared.txt")).toBe("F=2\nG=1\n");

    const [event] = conflicts(r);
    expect(event).toMatchObject({
      agentId: "editor-1",
      tool: "write_file",
      path: "shared.txt",
      reason: "stale",
      changedBy: { kind: "agent", agentId: "editor-2", name: "editor-2 [fix subtract]", via: "edit_file" },
      message: refused.error,
    });
    expect(event!.changedAt).toBeLessThanOrEqual(Date.now() + skew - 3_000);
    expect(conflictMark(event!)).toBe("stale: changed by editor-2");

    // Read again, then write: it lands, and the conflict counts as resolved.
    await read(r, "editor-1", "shared.txt");
    expect(await write(r, "editor-1", "shared.txt", "F=2\nG=2\n")).toMatchObject({ ok: true, content: "Overwrote shared.txt (8 bytes, was 8 bytes)" });
    expect(r.versions.conflictsOf("editor-1")).toMatchObject([{ tool: "write_file", reason: "stale", resolved: true }]);
  });

  it("creating a file needs no read, nor does rewriting one's own; an existing file never read is refused", async () => {
    const r = setup({ "old.txt": "before the session\n" });
    expect(await write(r, "editor-1", "new.txt", "one\n")).toMatchObject({ ok: true, content: "Created new.txt (4 bytes)" });
    expect((await write(r, "editor-1", "new.txt", "two\n")).ok).toBe(true);

    const other = await write(r, "editor-2", "new.txt", "mine\n");
    expect(other.error).toBe(
      "write_file: new.txt already exists and you have not read it (rewritten by editor-1 just now); read it first, then write (or change part of it with edit_file)",
    );
    const old = await write(r, "editor-1", "old.txt", "x");
    expect(old.error).toBe("write_file: old.txt already exists and you have not read it; read it first, then write (or change part of it with edit_file)");
    expect(r.read("new.txt")).toBe("two\n");
    expect(r.read("old.txt")).toBe("before the session\n");
    expect(conflicts(r).map((e) => [e.agentId, e.path, e.reason])).toEqual([
      ["editor-2", "new.txt", "unread"],
      ["editor-1", "old.txt", "unread"],
    ]);
    expect(conflicts(r).map(conflictMark)).toEqual(["not read first (written by editor-1)", "not read first"]);
  });

  it("refuses a FIFO at once instead of blocking on it", async () => {
    const r = setup();
    execFileSync("mkfifo", [r.file("pipe")]);
    expect(await write(r, "editor-1", "pipe", "x")).toMatchObject({ ok: false, error: "write_file: pipe is not a regular file" });
  });

  it("a window read with offset/limit counts as having seen that version", async () => {
    const r = setup({ "long.txt": Array.from({ length: 50 }, (_, i) => `line ${i}`).join("\n") });
    expect((await read(r, "editor-1", "long.txt", { offset: 10, limit: 2 })).ok).toBe(true);
    expect((await write(r, "editor-1", "long.txt", "short\n")).ok).toBe(true);
  });

  it("two agents rewriting from the same read in parallel: the first lands, the second is told", async () => {
    const r = setup({ "f.txt": "0\n" });
    await read(r, "editor-1", "f.txt");
    await read(r, "editor-2", "f.txt");
    const [a, b] = await Promise.all([write(r, "editor-1", "f.txt", "from 1\n"), write(r, "editor-2", "f.txt", "from 2\n")]);
    expect(a!.ok).toBe(true);
    expect(b!.error).toBe("write_file: f.txt changed since you read it (rewritten by editor-1 just now); read it again, then write");
    expect(r.read("f.txt")).toBe("from 1\n");
  });

  it("a tool_finished carries the versions the call saw and made", async () => {
    const r = setup({ "a.txt": "a\n" });
    await read(r, "editor-1", "a.txt");
    await write(r, "editor-1", "a.txt", "b\n");
    await write(r, "editor-1", "new.txt", "n\n");
    const finished = r.events.filter((e): e is EventOf<"tool_finished"> => e.type === "tool_finished");
    expect(finished.map((e) => e.versions)).toEqual([
      [{ path: "a.txt", hash: expect.stringMatching(/^[0-9a-f]{32}$/), change: "read" }],
      [{ path: "a.txt", hash: expect.any(String), change: "write" }],
      [{ path: "new.txt", hash: expect.any(String), change: "write", created: true }],
    ]);
    for (const e of r.events) expect(eventSchema().safeParse(JSON.parse(JSON.stringify(e))).success).toBe(true);
  });
});

describe("edit_file on a changed file", () => {
  it("still applies when old_string matches once, says who changed the file, and a rewrite then waits for a read", async () => {
    const r = setup({ "shared.txt": "one\ntwo\nthree\n" });
    await read(r, "editor-1", "shared.txt");
    await read(r, "editor-2", "shared.txt");
    await edit(r, "editor-2", "shared.txt", "one", "ONE");
    skew += 2_000;

    const merged = await edit(r, "editor-1", "shared.txt", "three", "THREE");
    expect(merged.ok).toBe(true);
    expect(merged.content).toMatch(/^Edited shared\.txt: replaced 1 occurrence at line 3\n/);
    expect(merged.content.endsWith(
      "\nNote: shared.txt had changed since you last read it (edited by editor-2 [fix subtract] 2 s ago). old_string still matched exactly once, " +
        "so the edit was applied to the current text; read the file again before relying on the rest of it.",
    )).toBe(true);
    expect(r.read("shared.txt")).toBe("ONE\ntwo\nTHREE\n");
    expect(conflicts(r)).toEqual([]);

    // It knows its own change, not editor-2's: a whole-file write from memory would drop "ONE".
    const rewrite = await write(r, "editor-1", "shared.txt", "one\ntwo\nTHREE\nfour\n");
    expect(rewrite.error).toBe(
      "write_file: shared.txt had changed under your last edit (edited by editor-2 [fix subtract] 2 s ago) and you have not read it since; read it again, then write",
    );
    expect(r.read("shared.txt")).toBe("ONE\ntwo\nTHREE\n");
    // Further edits by exact text are fine, and carry no note: nothing changed since its own edit.
    const again = await edit(r, "editor-1", "shared.txt", "two", "TWO");
    expect(again.content).not.toContain("Note:");
    await read(r, "editor-1", "shared.txt");
    expect((await write(r, "editor-1", "shared.txt", "ONE\nTWO\nTHREE\nfour\n")).ok).toBe(true);
  });

  it("an edit of an unchanged file has no note; an edit without a read works but does not allow a rewrite", async () => {
    const r = setup({ "a.txt": "x = 1\n", "b.txt": "y = 1\n" });
    await read(r, "editor-1", "a.txt");
    expect((await edit(r, "editor-1", "a.txt", "x = 1", "x = 2")).content).not.toContain("Note:");
    expect((await write(r, "editor-1", "a.txt", "x = 3\n")).ok).toBe(true);

    expect((await edit(r, "editor-1", "b.txt", "y = 1", "y = 2")).ok).toBe(true);
    expect((await write(r, "editor-1", "b.txt", "y = 3\n")).error).toBe(
      "write_file: you have changed b.txt without reading it whole; read it first, then write",
    );
  });

  it("an edit whose old_string is gone from a changed file is refused as a conflict, naming who changed it", async () => {
    const r = setup({ "f.txt": "x = 1\n" });
    await read(r, "editor-1", "f.txt");
    await read(r, "editor-2", "f.txt");
    await edit(r, "editor-2", "f.txt", "x = 1", "x = 2");
    const refused = await edit(r, "editor-1", "f.txt", "x = 1", "x = 3");
    expect(refused.error).toBe(
      "edit_file: old_string not found in f.txt; read the file again and copy the text exactly, whitespace and indentation included; " +
        "it changed since you read it (edited by editor-2 [fix subtract] just now)",
    );
    expect(r.read("f.txt")).toBe("x = 2\n");
    expect(conflicts(r)).toMatchObject([{ agentId: "editor-1", tool: "edit_file", reason: "stale", changedBy: { agentId: "editor-2" } }]);
  });
});

describe("changes from outside the file tools", () => {
  it("files a write-bash command changed count as its agent's: other agents' versions go stale, its own does not", async () => {
    const r = setup({ "f.txt": "v1\n", "g.txt": "untouched\n" });
    await read(r, "editor-1", "f.txt");
    await read(r, "tester-1", "f.txt");
    await read(r, "tester-1", "g.txt");
    const bash = await r.call("tester-1", "bash", { command: "printf 'v2 from bash\\n' > f.txt" });
    expect(bash.ok).toBe(true);
    expect(bash.meta?.filesChanged).toEqual([r.file("f.txt")]);
    const finished = r.events.filter((e): e is EventOf<"tool_finished"> => e.type === "tool_finished").at(-1)!;
    expect(finished.versions).toEqual([{ path: "f.txt", hash: expect.any(String), change: "bash" }]);

    skew += 5_000;
    expect((await write(r, "editor-1", "f.txt", "v3\n")).error).toBe(
      "write_file: f.txt changed since you read it (changed by a bash command of tester-1 [run tests] 5 s ago); read it again, then write",
    );
    // tester-1 knew v1 whole and changed it itself: it may rewrite.
    expect((await write(r, "tester-1", "f.txt", "v3\n")).ok).toBe(true);
    expect(r.read("f.txt")).toBe("v3\n");
  });

  it("a bash command on top of a version its agent had not seen leaves it a partial view: no rewrite before a read", async () => {
    const r = setup({ "f.txt": "v1\n" });
    await read(r, "tester-1", "f.txt");
    await read(r, "editor-1", "f.txt");
    await edit(r, "editor-1", "f.txt", "v1", "v2");
    await r.call("tester-1", "bash", { command: "printf 'v3\\n' >> f.txt" });
    expect((await write(r, "tester-1", "f.txt", "mine\n")).error).toBe(
      "write_file: f.txt had changed under your last edit (edited by editor-1 just now) and you have not read it since; read it again, then write",
    );
    expect(r.read("f.txt")).toBe("v2\nv3\n");
  });

  it("a file deleted by a bash command may be written again by anyone", async () => {
    const r = setup({ "f.txt": "v1\n" });
    await read(r, "editor-1", "f.txt");
    const bash = await r.call("tester-1", "bash", { command: "rm f.txt" });
    expect(bash.meta?.filesChanged).toEqual([r.file("f.txt")]);
    expect((await write(r, "editor-2", "f.txt", "fresh\n"))).toMatchObject({ ok: true, content: "Created f.txt (6 bytes)" });
  });

  it("a change by the user's editor is caught at the next write, even with the same size and the old mtime", async () => {
    const r = setup({ "f.txt": "aaaa\n" });
    const old = new Date(Date.now() - 3_600_000);
    fs.utimesSync(r.file("f.txt"), old, old);
    await read(r, "editor-1", "f.txt");
    // The stat taken long after the last change vouches for the content: no re-hash needed…
    fs.writeFileSync(r.file("f.txt"), "bbbb\n");
    fs.utimesSync(r.file("f.txt"), old, old);
    // …but the inode change time moved, so the check hashes and finds the editor's change.
    const refused = await write(r, "editor-1", "f.txt", "cccc\n");
    expect(refused.error).toMatch(/^write_file: f\.txt changed since you read it \(changed outside orca \(by you or another program\) (60 min|1 h) ago\); read it again, then write$/);
    expect(conflicts(r)).toMatchObject([{ reason: "stale", changedBy: { kind: "outside" } }]);
    expect(conflictMark(conflicts(r)[0]!)).toBe("stale: changed outside orca");
    expect(r.read("f.txt")).toBe("bbbb\n");
    expect(r.events.filter((e): e is EventOf<"tool_finished"> => e.type === "tool_finished").at(-1)!.versions).toEqual([
      { path: "f.txt", hash: expect.any(String), change: "outside" },
    ]);
  });

  it("trusts a stat only when it was taken well after the file's last change (two writes in one tick look alike)", () => {
    const now = 1_700_000_000_000.5;
    const stat = (age: number, ctimeAge = age) => ({ size: 5, ino: 7, mtimeMs: now - age, ctimeMs: now - ctimeAge });
    expect(statKey(stat(10.25), now)).toBeNull();
    expect(statKey(stat(60.25), now)).toEqual({ size: 5, ino: 7, mtimeMs: now - 60.25, ctimeMs: now - 60.25 });
    // The inode change time counts too: utimes can put mtime back, never ctime.
    expect(statKey(stat(60_000.25, 10.25), now)).toBeNull();
    // Whole-second times: a coarse file system, where one tick is up to 2 s.
    const coarse = (age: number) => ({ size: 5, ino: 7, mtimeMs: 1_700_000_000_000 - age * 1000, ctimeMs: 1_700_000_000_000 - age * 1000 });
    expect(statKey(coarse(1), 1_700_000_000_000)).toBeNull();
    expect(statKey(coarse(3), 1_700_000_000_000)).not.toBeNull();
  });
});

describe("reads beside a command", () => {
  it("a read runs while a command runs; a write based on what it saw is refused once the command changed the file", async () => {
    const r = setup({ "f.txt": "v1\n" });
    await read(r, "tester-1", "f.txt");
    // The command holds until the test lets it go: the read below can only finish if it does not wait for it.
    const command = r.call("tester-1", "bash", { command: "while [ ! -e go ]; do sleep 0.01; done; printf 'v2\\n' > f.txt" });
    await vi.waitFor(() => expect(r.events.some((e) => e.type === "tool_started" && e.name === "bash")).toBe(true));
    expect((await read(r, "explorer", "f.txt")).content).toContain("v1");
    fs.writeFileSync(r.file("go"), "");
    expect((await command).ok).toBe(true);
    expect((await write(r, "explorer", "f.txt", "from v1\n")).error).toMatch(/^write_file: f\.txt changed since you read it \(changed by a bash command of tester-1 \[run tests\]/);
    // The command's own agent knew v1 whole and changed it: it may rewrite.
    expect((await write(r, "tester-1", "f.txt", "v3\n")).ok).toBe(true);
    expect(r.read("f.txt")).toBe("v3\n");
  });

  it("a read that overlapped a command tells its agent what it saw, never the session: a version from before the command is not put back after its scan", async () => {
    const r = setup({ "f.txt": "v0\n" });
    await read(r, "tester-1", "f.txt");
    const abs = r.file("f.txt");
    const call = (agentId: string, tool: string) => r.versions.forCall({ agentId, callId: `${agentId}-${tool}`, tool, emit: () => undefined });
    // The explorer's read starts and reads v0…
    const late = call("explorer", "read_file");
    late.begin();
    const stat = fs.statSync(abs);
    const data = fs.readFileSync(abs);
    // …editor-1's command changes the file and is scanned…
    const editorCommand = call("editor-1", "bash");
    await editorCommand.beforeExclusive();
    fs.writeFileSync(abs, "v1 by editor-1\n");
    await editorCommand.afterExclusive();
    // …and only then does the read record what it saw (read_file awaits between reading and recording).
    late.read(abs, stat, data);
    // Before: the session took v0 back as the file's version, and a command starting then was scanned
    // from v0 — crediting tester-1, who knew v0 whole, with knowing a result built on v1.
    expect(r.versions.knownHashes().get(abs)).toBe(contentHash("v1 by editor-1\n"));
    const testerCommand = call("tester-1", "bash");
    await testerCommand.beforeExclusive();
    fs.appendFileSync(abs, "tested\n");
    await testerCommand.afterExclusive();
    expect(testerCommand.touches).toEqual([{ path: "f.txt", hash: contentHash("v1 by editor-1\ntested\n"), change: "bash", partial: true }]);
    expect((await write(r, "tester-1", "f.txt", "rewrite\n")).ok).toBe(false);
    expect((await write(r, "explorer", "f.txt", "rewrite\n")).ok).toBe(false);
    expect(r.read("f.txt")).toBe("v1 by editor-1\ntested\n");
  });
});

describe("the coordinator's view of conflicts", () => {
  it("a delegate result lists the sub-agent's refused writes of this run, and whether it wrote them later", async () => {
    const r = setup({ "a.txt": "1\n", "b.txt": "1\n" });
    await read(r, "editor-1", "a.txt");
    await read(r, "editor-1", "b.txt");
    await read(r, "editor-2", "a.txt");
    await read(r, "editor-2", "b.txt");
    await write(r, "editor-2", "a.txt", "2\n");
    await write(r, "editor-2", "b.txt", "2\n");
    const mark = r.versions.conflictCount("editor-1");
    await write(r, "editor-1", "a.txt", "3\n");
    await write(r, "editor-1", "b.txt", "3\n");
    await read(r, "editor-1", "a.txt");
    await write(r, "editor-1", "a.txt", "3\n");
    expect(conflictReport(r.versions, "editor-1", mark)).toEqual([
      "write conflicts: 2 refused (1 not written since) — the file had changed or was not read first",
      expect.stringMatching(/^ {2}a\.txt: write_file refused, changed since read \(rewritten by editor-2 \[fix subtract\] (just now|\d+ s ago)\); written later by this agent$/),
      expect.stringMatching(/^ {2}b\.txt: write_file refused, changed since read \(rewritten by editor-2 \[fix subtract\] .*\); NOT written$/),
    ]);
    expect(conflictReport(r.versions, "editor-1", r.versions.conflictCount("editor-1"))).toEqual([]);
  });
});

describe("resume", () => {
  it("rebuilds every agent's versions from the logged tool_finished events", async () => {
    const r = setup({ "a.txt": "a1\n", "b.txt": "b1\n" });
    await read(r, "editor-1", "a.txt");
    await read(r, "editor-1", "b.txt");
    await read(r, "editor-2", "b.txt");
    await edit(r, "editor-2", "b.txt", "b1", "b2");
    await r.call("tester-1", "bash", { command: "printf 'c\\n' > a.txt.new && mv a.txt.new a.txt" });

    // What a resumed process has: the log, read back through the one event schema.
    const logged = r.events.map((e) => eventSchema().parse(JSON.parse(JSON.stringify(e))) as OrcaEvent);
    const rebuilt = rebuildSession([{ type: "session_started", ts: 0, sessionId: "rig", agentId: "coordinator", workspace: r.dir, model: "m", configPath: null, version: "0" }, ...logged]);
    const fresh = new FileVersions(new Workspace(r.dir), { nameOf: (id) => id });
    restoreAgents(rebuilt, {
      definitions: new Map(),
      modelFor: () => {
        throw new Error("no agents to restore");
      },
      workspaceRoot: r.dir,
      restoreAgent: () => undefined,
      restoreVersions: (agentId, touches, ts) => fresh.replay(agentId, touches, ts),
    });

    // editor-2 saw b2 whole (its own edit of what it read); tester-1's mv counts as its change.
    const check = async (agentId: string, rel: string) => {
      const stat = fs.statSync(r.file(rel));
      const call = fresh.forCall({ agentId, callId: "x", tool: "write_file", emit: () => undefined });
      return call.checkWrite(r.file(rel), stat);
    };
    expect(await check("editor-2", "b.txt")).toEqual({ ok: true });
    expect(await check("editor-1", "b.txt")).toMatchObject({ ok: false, message: expect.stringMatching(/^write_file: b\.txt changed since you read it \(edited by editor-2 .*\)/) });
    expect(await check("editor-1", "a.txt")).toMatchObject({ ok: false, message: expect.stringMatching(/\(changed by a bash command of tester-1 /) });
    expect(await check("tester-1", "a.txt")).toMatchObject({ ok: false, message: "write_file: you have changed a.txt without reading it whole; read it first, then write" });
    // After the resume the user changes a file: caught like any outside change.
    fs.writeFileSync(r.file("b.txt"), "user\n");
    expect(await check("editor-2", "b.txt")).toMatchObject({ ok: false, message: expect.stringMatching(/changed outside orca/) });
  });
});
