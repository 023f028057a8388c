import fs from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { EventOf } from "../../src/events/types.js";
import type { RecordedRequest, ScriptedReply, ScriptedServer } from "../../src/model/scripted.js";
import { agentOf, expectValidHistories, lastToolResult, perAgent, runOrca, sessionLogs, stderrBesidesReport } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

const call = (name: string, args: unknown, id?: string): ScriptedReply => ({ toolCalls: [{ id, name, args }] });

/** Resolves once `condition` holds; fails after `ms`, naming what it waited for. */
async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  await vi.waitFor(() => expect(condition(), `waiting for ${what}`).toBe(true), { timeout: ms, interval: 10 });
}

/** The file's text from a numbered read_file result. */
function fromNumbered(result: string): string {
  return result
    .split("\n")
    .map((line) => line.replace(/^ *\d+\t/, ""))
    .join("\n")
    .concat("\n");
}

describe("no lost updates, through the real bin", () => {
  it("two editors, one stale whole-file rewrite: the second writer is refused, the first writer's change survives, the run completes", async () => {
    const ws = workspace({ "shared.txt": "F=1\nG=1\n" });
    let s!: ScriptedServer;
    const editor2Edited = () =>
      s.requests.some((r) => agentOf(r) === "editor-2" && lastToolResult(r).startsWith("Edited shared.txt"));
    const editor1Read = () => s.requests.some((r) => agentOf(r) === "editor-1" && lastToolResult(r).includes("F=1"));
    s = await scriptedServer(
      perAgent({
        coordinator: [
          {
            toolCalls: [
              { name: "delegate", args: { agent: "editor", task: "set G to 2 in shared.txt", label: "set G" } },
              { name: "delegate", args: { agent: "editor", task: "set F to 2 in shared.txt", label: "fix subtract" } },
            ],
          },
          { text: "both editors reported" },
        ],
        "editor-1": [
          call("read_file", { path: "shared.txt" }),
          // It "thinks" until editor-2's edit has landed, then rewrites the whole file from its stale read.
          async () => {
            await until(editor2Edited, "editor-2's edit");
            return call("write_file", { path: "shared.txt", content: "F=1\nG=2\n" });
          },
          call("read_file", { path: "shared.txt" }),
          (request: RecordedRequest) => call("write_file", { path: "shared.txt", content: fromNumbered(lastToolResult(request)).replace("G=1", "G=2") }),
          { text: "G is 2 now" },
        ],
        "editor-2": [
          call("read_file", { path: "shared.txt" }),
          // Only once editor-1 has read the file: its read must be the stale one.
          async () => {
            await until(editor1Read, "editor-1's read");
            return call("edit_file", { path: "shared.txt", old_string: "F=1", new_string: "F=2" });
          },
          { text: "F is 2 now" },
        ],
      }),
    );

    const run = await runOrca(["-p", "fix both", "--base-url", s.url, "--yes"], { ws });
    expect(stderrBesidesReport(run.stderr)).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe("both editors reported");
    // editor-2's F=2 survived editor-1's stale rewrite; editor-1 got its G=2 in after reading again.
    expect(ws.read("shared.txt")).toBe("F=2\nG=2\n");

    const editor1 = s.requests.filter((r) => agentOf(r) === "editor-1");
    expect(lastToolResult(editor1[2]!)).toMatch(
      /^Error: write_file: shared\.txt changed since you read it \(edited by editor-2 \[fix subtract\] (just now|\d+ s ago)\); read it again, then write$/,
    );
    expect(lastToolResult(editor1[4]!)).toBe("Overwrote shared.txt (8 bytes, was 8 bytes)");

    const final = s.requests.filter((r) => agentOf(r) === "coordinator")[1]!;
    const results = final.body.messages.filter((m) => m.role === "tool").map((m) => m.content ?? "");
    expect(results[0]).toContain("write conflicts: 1 refused (0 not written since)");
    expect(results[0]).toMatch(/ {2}shared\.txt: write_file refused, changed since read \(edited by editor-2 \[fix subtract\] [^)]*\); written later by this agent/);
    expect(results[1]).not.toContain("write conflicts");
    expectValidHistories(s.requests);

    const [file] = sessionLogs(ws);
    const conflicts = readLog(file!).events.filter((e): e is EventOf<"write_conflict"> => e.type === "write_conflict");
    expect(conflicts).toEqual([
      expect.objectContaining({
        agentId: "editor-1",
        parentId: "coordinator",
        tool: "write_file",
        path: "shared.txt",
        reason: "stale",
        changedBy: { kind: "agent", agentId: "editor-2", name: "editor-2 [fix subtract]", via: "edit_file" },
      }),
    ]);
  });

  it("a resumed agent keeps what it had read: it may rewrite an unchanged file, not one the user changed since", async () => {
    const ws = workspace({ "a.txt": "a\n", "b.txt": "b\n" });
    const first = await scriptedServer([call("read_file", { path: "a.txt" }), call("read_file", { path: "b.txt" }), { text: "read both" }]);
    const one = await runOrca(["-p", "read a and b", "--base-url", first.url, "--yes"], { ws });
    expect(one.code, one.stderr).toBe(0);
    const id = readLog(sessionLogs(ws)[0]!).events[0]!.sessionId;

    // The user edits b.txt in their editor between the two runs.
    fs.writeFileSync(ws.file("b.txt"), "b, by the user\n");

    const second = await scriptedServer([
      call("write_file", { path: "a.txt", content: "A\n" }),
      call("write_file", { path: "b.txt", content: "B\n" }),
      { text: "wrote what I could" },
    ]);
    const two = await runOrca(["--resume", id, "-p", "now rewrite them", "--base-url", second.url, "--yes"], { ws });
    expect(stderrBesidesReport(two.stderr)).toBe("");
    expect(two.code).toBe(0);
    expect(lastToolResult(second.requests[1]!)).toBe("Overwrote a.txt (2 bytes, was 2 bytes)");
    expect(lastToolResult(second.requests[2]!)).toMatch(
      /^Error: write_file: b\.txt changed since you read it \(changed outside orca \(by you or another program\) [^)]*\); read it again, then write$/,
    );
    expect(ws.read("a.txt")).toBe("A\n");
    expect(ws.read("b.txt")).toBe("b, by the user\n");
  });

  it("a command does not launder a change from outside: read, a merge lands, `bash true`, a stale write_file is refused (issue 33)", async () => {
    const ws = workspace({ "f.txt": "mine\n" });
    const s = await scriptedServer(
      perAgent({
        coordinator: [
          call("read_file", { path: "f.txt" }),
          () => {
            // Another agent's worktree merge, or any process outside orca, changes the file now.
            fs.writeFileSync(ws.file("f.txt"), "merged\n");
            return call("bash", { command: "true" });
          },
          call("write_file", { path: "f.txt", content: "stale\n" }),
          { text: "done" },
        ],
      }),
    );
    const run = await runOrca(["-p", "go", "--base-url", s.url, "--yes", "--output-format", "stream-json"], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(ws.read("f.txt")).toBe("merged\n");
    expect(lastToolResult(s.requests[3]!)).toMatch(/^Error: write_file: f\.txt changed .*outside/);
    const conflicts = run.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as EventOf<"write_conflict">)
      .filter((e) => e.type === "write_conflict");
    expect(conflicts).toMatchObject([{ path: "f.txt", reason: "stale", changedBy: { kind: "outside" } }]);
  });
});
