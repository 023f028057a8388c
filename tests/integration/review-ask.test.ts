/**
 * `review: ask` on an isolated (worktree) agent: its work is not merged when it ends. Headless,
 * nobody can accept it, so the merge is refused and reported (through the real bin); with a person
 * (an in-process session whose approver is a person's), it waits until accepted, then merges.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it, vi } from "vitest";
import type { OrcaEvent } from "../../src/events/types.js";
import type { Approver } from "../../src/tools/approver.js";
import { agentOf, perAgent, runOrca, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";
import { testOrchestra } from "../fixtures/orchestra.js";

const REVIEWED_EDITOR = `---
name: wt-editor
description: Edits files in its own git worktree; a person accepts its work.
tools: [read_file, edit_file, write_file, list_dir]
isolation: worktree
review: ask
---
You edit files.
`;

const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=test", "-c", "user.email=test@localhost", "-c", "init.defaultBranch=main", ...args], { cwd: dir, encoding: "utf8" }).trim();

function repo(): TempWorkspace {
  const w = workspace({ "f.txt": "one\n", ".orca/agents/wt-editor.md": REVIEWED_EDITOR });
  git(w.dir, "init", "-q");
  git(w.dir, "add", "-A");
  git(w.dir, "commit", "-qm", "start");
  return w;
}

const script = () =>
  perAgent({
    coordinator: [{ toolCalls: [{ name: "delegate", args: { agent: "wt-editor", task: "line one" } }] }, { text: "edited" }],
    "wt-editor-1": [{ toolCalls: [{ name: "edit_file", args: { path: "f.txt", old_string: "one", new_string: "ONE" } }] }, { text: "done" }],
  });

describe("review: ask", () => {
  it("headless: the isolated agent's merge is refused and reported; the workspace is untouched", async () => {
    const server = await scriptedServer(script());
    const ws = repo();
    const run = await runOrca(["-p", "edit", "--base-url", server.url, "--permission-mode", "accept-edits", "--output-format", "stream-json"], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(ws.read("f.txt")).toBe("one\n");
    const events = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as OrcaEvent);
    const kept = events.filter((e) => e.type === "worktree" && e.action !== "created");
    expect(kept).toEqual([expect.objectContaining({ action: "kept", message: expect.stringContaining("review: ask holds the merge for a person's acceptance, and a headless run has none") })]);
    expect(events.some((e) => e.type === "file_write" && e.tool === "merge_worktree")).toBe(false);
    const result = server.requests.filter((r) => agentOf(r) === "coordinator")[1]!.body.messages.filter((m) => m.role === "tool").at(-1)!.content ?? "";
    expect(result).toContain("worktree: NOT merged — not merged: review: ask holds the merge");
  });

  it("with a person: nothing merges until accepted; then the work is merged and the change set says so", async () => {
    const server = await scriptedServer(script());
    const ws = repo();
    const person: Approver = { request: async () => ({ decision: "once" }) };
    const orchestra = await testOrchestra(ws, server.url, { approver: person, config: "permissions:\n  mode: accept-edits\n" });
    try {
      const { session } = orchestra;
      const result = await session.run("edit");
      expect(result.status).toBe("done");
      expect(ws.read("f.txt")).toBe("one\n");
      expect(session.review.held()).toEqual(["wt-editor-1"]);
      const pending = session.review.changeSets().agents.find((a) => a.agentId === "wt-editor-1")!;
      expect(pending.files).toEqual([expect.objectContaining({ path: "f.txt", worktree: expect.any(String) })]);
      expect((await session.review.diff(pending.files[0]!)).text).toContain("-one\n+ONE");

      const accepted = await session.review.accept("wt-editor-1");
      expect(accepted).toMatchObject({ ok: true, note: expect.stringContaining("merged into the main tree: f.txt") });
      await vi.waitFor(() => expect(ws.read("f.txt")).toBe("ONE\n"));
      expect(session.review.held()).toEqual([]);
      const merged = session.review.changeSets().agents.find((a) => a.agentId === "wt-editor-1")!;
      expect(merged.files).toEqual([expect.objectContaining({ path: "f.txt", status: "modified", tools: ["merge_worktree"] })]);
      expect(merged.files[0]!.worktree).toBeUndefined();
    } finally {
      await orchestra.session.close();
    }
  });
});
