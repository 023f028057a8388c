import { describe, expect, it } from "vitest";
import { eventSchema, type OrcaEvent } from "../../src/events/types.js";
import { ChangeSetBuilder, buildChangeSets } from "../../src/review/change-set.js";
import { diffVersions, withoutHunks } from "../../src/review/file-diff.js";

/** Events as the log reader would hand them: each parsed by the schema, so a wrong field fails here. */
function log(events: Array<Record<string, unknown>>): OrcaEvent[] {
  return events.map((e, i) => eventSchema().parse({ ts: 1000 + i, sessionId: "s1", ...e }));
}

const started = (agentId: string, name: string, extra: Record<string, unknown> = {}) => ({
  type: "agent_started",
  agentId,
  name,
  task: `task of ${agentId}`,
  tools: [],
  depth: agentId === "main" ? 0 : 1,
  model: "m",
  system: "",
  ...extra,
});
const write = (agentId: string, callId: string, path: string, before: string | null, after: string, tool = "write_file") => ({ type: "file_write", agentId, callId, tool, path, before, after, temp: `${path}.tmp` });
const finished = (agentId: string, callId: string, touches: Array<{ path: string; hash: string | null; change: string }>, status = "ok") => ({
  type: "tool_finished",
  agentId,
  callId,
  name: "write_file",
  ok: status === "ok",
  status,
  content: "",
  durationMs: 1,
  versions: touches,
});

describe("change sets from the log", () => {
  it("per agent: the version before its first change and after its last; a refused write does not count", () => {
    const events = log([
      { type: "session_started", agentId: "main", workspace: "/ws", model: "m", configPath: null, version: "1" },
      started("main", "coordinator"),
      { type: "checkpoint", agentId: "main", id: "turn-1", reason: "turn", label: "fix it" },
      started("editor-1", "editor", { parentId: "main", label: "fix subtract" }),
      write("editor-1", "c1", "calc.js", "h0", "h1", "edit_file"),
      finished("editor-1", "c1", [{ path: "calc.js", hash: "h1", change: "edit" }]),
      write("editor-1", "c2", "calc.js", "h1", "h2", "edit_file"),
      finished("editor-1", "c2", [{ path: "calc.js", hash: "h2", change: "edit" }]),
      write("editor-1", "c3", "new.js", null, "n1"),
      finished("editor-1", "c3", [{ path: "new.js", hash: "n1", change: "write", created: true } as never]),
      // Logged, then the write failed: the tool_finished names no such version.
      write("editor-1", "c4", "other.js", "o0", "o1"),
      finished("editor-1", "c4", [], "error"),
      { type: "file_changed", agentId: "editor-1", callId: "c5", tool: "bash", path: "old.js", before: "d0", after: null },
      started("editor-2", "editor", { parentId: "main" }),
      write("editor-2", "c6", "calc.js", "h2", "h3"),
      finished("editor-2", "c6", [{ path: "calc.js", hash: "h3", change: "write" }]),
    ]);
    const run = buildChangeSets(events);
    const one = run.agents.find((a) => a.agentId === "editor-1")!;
    expect(one).toMatchObject({ name: "editor", label: "fix subtract", parentId: "main", task: "task of editor-1" });
    expect(one.files.map((f) => [f.path, f.status, f.before, f.after, f.tools])).toEqual([
      ["calc.js", "modified", "h0", "h2", ["edit_file"]],
      ["new.js", "created", null, "n1", ["write_file"]],
      ["old.js", "deleted", "d0", null, ["bash"]],
    ]);
    expect(run.agents.find((a) => a.agentId === "editor-2")!.files.map((f) => [f.path, f.before, f.after])).toEqual([["calc.js", "h2", "h3"]]);
    expect(run.files.find((f) => f.path === "calc.js")).toMatchObject({ before: "h0", after: "h3", changes: 3 });
    expect(run.agents.find((a) => a.agentId === "main")!.files).toEqual([]);
    expect(run.checkpoints.map((c) => c.id)).toEqual(["turn-1"]);
  });

  it("a checkpoint's files are the versions before the first change after it; a file changed back is not in it", () => {
    const b = new ChangeSetBuilder();
    for (const e of log([
      started("main", "coordinator"),
      write("main", "c1", "a.txt", "a0", "a1"),
      finished("main", "c1", [{ path: "a.txt", hash: "a1", change: "write" }]),
      { type: "checkpoint", agentId: "main", id: "turn-2", reason: "turn", label: "second" },
      write("main", "c2", "a.txt", "a1", "a2"),
      finished("main", "c2", [{ path: "a.txt", hash: "a2", change: "write" }]),
      write("main", "c3", "b.txt", "b0", "b1"),
      finished("main", "c3", [{ path: "b.txt", hash: "b1", change: "write" }]),
      write("main", "c4", "b.txt", "b1", "b0"),
      finished("main", "c4", [{ path: "b.txt", hash: "b0", change: "write" }]),
    ]))
      b.add(e);
    expect(b.since("turn-2")!.map((f) => [f.path, f.before, f.after])).toEqual([["a.txt", "a1", "a2"]]);
    expect(b.since("nope")).toBeUndefined();
    expect(b.lastChange("b.txt")).toMatchObject({ after: "b0", callId: "c4" });
  });

  it("an isolated agent's changes are in its worktree until the merge-back; then the merge's versions are its change", () => {
    const run = buildChangeSets(
      log([
        started("editor-1", "editor", { parentId: "main" }),
        { type: "worktree", agentId: "editor-1", action: "created", path: "/wt/editor-1", branch: "orca/editor-1", message: "" },
        write("editor-1", "c1", "calc.js", "h0", "h1"),
        finished("editor-1", "c1", [{ path: "calc.js", hash: "h1", change: "write" }]),
      ]),
    );
    expect(run.agents[0]!.files).toMatchObject([{ path: "calc.js", worktree: "/wt/editor-1" }]);
    expect(run.files).toEqual([]);
    const merged = buildChangeSets(
      log([
        started("editor-1", "editor", { parentId: "main" }),
        { type: "worktree", agentId: "editor-1", action: "created", path: "/wt/editor-1", branch: "orca/editor-1", message: "" },
        write("editor-1", "c1", "calc.js", "h0", "h1"),
        finished("editor-1", "c1", [{ path: "calc.js", hash: "h1", change: "write" }]),
        { type: "file_write", agentId: "editor-1", tool: "merge_worktree", path: "calc.js", before: "m0", after: "m1", temp: "t" },
        { type: "file_changed", agentId: "editor-1", tool: "merge_worktree", path: "gone.js", before: "g0", after: null },
        { type: "worktree", agentId: "editor-1", action: "merged", files: ["calc.js"], message: "" },
      ]),
    );
    expect(merged.agents[0]!.files.map((f) => [f.path, f.status, f.before, f.after, f.worktree])).toEqual([
      ["calc.js", "modified", "m0", "m1", undefined],
      ["gone.js", "deleted", "g0", null, undefined],
    ]);
  });
});

describe("file diffs", () => {
  const before = Buffer.from(["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"].join("\n") + "\n");
  const after = Buffer.from(["one", "TWO", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "ELEVEN", "twelve", "thirteen"].join("\n") + "\n");

  it("numbers the hunks, and undoing one restores exactly its lines", () => {
    const d = diffVersions("f.txt", "modified", before, after);
    expect(d.hunks).toHaveLength(2);
    expect(d.text).toContain("--- a/f.txt");
    expect(d.text).toContain("-two\n+TWO");
    const undone = withoutHunks("f.txt", before.toString(), after.toString(), [1]);
    expect(undone).toBe(after.toString().replace("ELEVEN", "eleven").replace("thirteen\n", ""));
    expect(withoutHunks("f.txt", before.toString(), after.toString(), [0, 1])).toBe(before.toString());
    expect(withoutHunks("f.txt", before.toString(), after.toString(), [5])).toBeNull();
  });

  it("says why there is no diff: binary, or a version not kept", () => {
    expect(diffVersions("b.bin", "modified", Buffer.from([1, 0, 2]), Buffer.from([1, 0, 3]))).toMatchObject({ binary: true, text: "" });
    expect(diffVersions("x", "modified", "not-kept", Buffer.from("a"))).toMatchObject({ unavailable: expect.stringContaining("before") });
    expect(diffVersions("n.txt", "created", null, Buffer.from("hi\n")).text).toContain("--- /dev/null");
  });
});
