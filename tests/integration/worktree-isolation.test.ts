/**
 * `isolation: worktree` through the real bin and a scripted model: each isolated editor works in
 * its own git worktree, its work is merged into the main tree with a 3-way merge when it ends done
 * (the user's uncommitted edits kept, the index untouched), a conflict is reported and its branch
 * kept, `orca worktrees` lists what is kept and `prune` removes it. Outside a git repository the
 * agent shares the workspace with a notice.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import type { OrcaEvent } from "../../src/events/types.js";
import type { RecordedRequest, ScriptedServer } from "../../src/model/scripted.js";
import { agentOf, expectValidHistories, perAgent, runOrca, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";
import { testOrchestra } from "../fixtures/orchestra.js";

const ISOLATED_EDITOR = `---
name: wt-editor
description: Edits files in its own git worktree.
tools: [read_file, edit_file, write_file, list_dir]
isolation: worktree
---
You edit files.
`;

const git = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=test", "-c", "user.email=test@localhost", "-c", "init.defaultBranch=main", ...args], { cwd: dir, encoding: "utf8" }).trim();

/** A repository with one commit of `files` and the isolated editor (committed too). */
function repo(files: Record<string, string>): TempWorkspace {
  const w = tempWorkspace({ ...files, ".orca/agents/wt-editor.md": ISOLATED_EDITOR });
  git(w.dir, "init", "-q");
  git(w.dir, "add", "-A");
  git(w.dir, "commit", "-qm", "start");
  return w;
}

const requestsOf = (s: ScriptedServer, id: string) => s.requests.filter((r) => agentOf(r) === id);
const edit = (old_string: string, new_string: string) => ({ toolCalls: [{ name: "edit_file", args: { path: "f.txt", old_string, new_string } }] });
const delegate = (task: string) => ({ name: "delegate", args: { agent: "wt-editor", task } });
const events = (stdout: string): OrcaEvent[] => stdout.trim().split("\n").map((l) => JSON.parse(l) as OrcaEvent);
const toolResults = (r: RecordedRequest) => r.body.messages.filter((m) => m.role === "tool").map((m) => m.content ?? "");

describe("isolation: worktree", () => {
  it("two isolated editors change different lines of one file in parallel; both land in the main tree, next to the user's uncommitted edit", async () => {
    const seenInMain: string[] = [];
    // Each editor's first reply waits until both have asked: isolated agents run in parallel (serial ones would hang here).
    let arrived = 0;
    let bothAsked = () => {};
    const together = new Promise<void>((resolve) => (bothAsked = resolve));
    let editor1Looked = () => {};
    const looked = new Promise<void>((resolve) => (editor1Looked = resolve));
    const first = (old: string, now: string) => async () => {
      if (++arrived === 2) bothAsked();
      await together;
      return edit(old, now);
    };
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("line one"), delegate("line three")] }, { text: "both merged" }],
        "wt-editor-1": [
          first("one", "ONE"),
          () => {
            // Its edit is done in its worktree; the main tree does not have it yet.
            seenInMain.push(fs.readFileSync(ws.file("f.txt"), "utf8"));
            editor1Looked();
            return { text: "edited line one" };
          },
        ],
        // Finishing merges wt-editor-2's worktree: only once wt-editor-1 has looked at the main tree.
        "wt-editor-2": [
          first("three", "THREE"),
          async () => {
            await looked;
            return { text: "edited line three" };
          },
        ],
      }),
    );
    const ws = repo({ "f.txt": "one\ntwo\nthree\n", "other.txt": "x\n" });
    // The user's own uncommitted edit: the agents see it, and it is neither lost nor doubled.
    fs.writeFileSync(ws.file("f.txt"), "one\ntwo (mine)\nthree\n");
    const run = await runOrca(["-p", "edit both", "--base-url", server.url, "--permission-mode", "accept-edits", "--output-format", "stream-json"], { ws });
    expect(run.code, run.stderr).toBe(0);

    expect(ws.read("f.txt")).toBe("ONE\ntwo (mine)\nTHREE\n");
    expect(seenInMain).toEqual(["one\ntwo (mine)\nthree\n"]);
    // The main index and HEAD are untouched: the merged work is an uncommitted change.
    expect(git(ws.dir, "diff", "--cached", "--name-only")).toBe("");
    expect(git(ws.dir, "log", "--format=%s")).toBe("start");
    // Clean merges leave no worktree and no branch behind.
    expect(git(ws.dir, "worktree", "list").split("\n")).toHaveLength(1);
    expect(git(ws.dir, "branch", "--list", "--format=%(refname:short)", "orca/*")).toBe("");

    const firsts = ["wt-editor-1", "wt-editor-2"].map((id) => requestsOf(server!, id)[0]!);
    // Each saw the snapshot (with the user's edit) in its own worktree, not the main workspace.
    for (const r of firsts) {
      const system = r.body.messages[0]!.content ?? "";
      expect(system).toMatch(/Isolation: this workspace is your own git worktree \(branch orca\//);
      expect(system).not.toContain(`Workspace: ${ws.dir} `);
    }
    const log = events(run.stdout);
    const merged = log.filter((e): e is Extract<OrcaEvent, { type: "worktree" }> => e.type === "worktree" && e.action === "merged");
    expect(merged.map((e) => e.files)).toEqual([["f.txt"], ["f.txt"]]);
    const results = toolResults(requestsOf(server, "coordinator")[1]!);
    for (const r of results) expect(r).toMatch(/worktree: merged into the main tree: f\.txt \(worktree removed\)/);
    for (const r of results) expect(r).toContain("files changed: f.txt");
    expectValidHistories(server.requests);
  });

  it("a conflicting pair: the second is not merged, names the file, keeps its branch; orca worktrees lists it and prune removes it", async () => {
    let firstMerged = () => {};
    const merged = new Promise<void>((resolve) => (firstMerged = resolve));
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("line two, A"), delegate("line two, B")] }, { text: "one conflict" }],
        "wt-editor-1": [edit("two", "TWO-A"), { text: "A done" }],
        // B ends only after A's work is in the main tree: B's edit of the same line then conflicts.
        "wt-editor-2": [edit("two", "TWO-B"), async () => (await merged, { text: "B done" })],
      }),
    );
    const ws = repo({ "f.txt": "one\ntwo\nthree\n" });
    const onStdout = (out: string) => {
      if (/"type":"worktree"[^\n]*"action":"merged"/.test(out)) firstMerged();
    };
    const run = await runOrca(["-p", "edit line two twice", "--base-url", server.url, "--permission-mode", "accept-edits", "--output-format", "stream-json"], { ws, onStdout });
    expect(run.code, run.stderr).toBe(0);

    // A's change only, and no conflict markers: orca never writes a half-merged file.
    expect(ws.read("f.txt")).toBe("one\nTWO-A\nthree\n");
    const [a, b] = toolResults(requestsOf(server, "coordinator")[1]!);
    expect(a).toContain("worktree: merged into the main tree: f.txt");
    expect(b).toMatch(/status: done/);
    expect(b).toMatch(/worktree: NOT merged — conflicts with the main tree in f\.txt\. Nothing was applied to the main tree/);
    const branch = /Branch (orca\/\S+) \(worktree (\S+)\)/.exec(b!);
    expect(branch).not.toBeNull();
    const [, name, wtPath] = branch!;
    expect(git(ws.dir, "branch", "--list", "--format=%(refname:short)", "orca/*")).toBe(name);
    expect(fs.readFileSync(`${wtPath}/f.txt`, "utf8")).toBe("one\nTWO-B\nthree\n");
    // The kept branch holds B's work as a commit, measured from its base.
    expect(git(ws.dir, "show", `${name}:f.txt`)).toBe("one\nTWO-B\nthree");
    const log = events(run.stdout);
    const conflict = log.find((e) => e.type === "worktree" && e.action === "conflict");
    expect(conflict && conflict.type === "worktree" && conflict.files).toEqual(["f.txt"]);
    expect(log.find((e) => e.type === "tool_finished" && e.name === "delegate" && !e.ok && e.error === "wt-editor-2 merge conflict")).toBeDefined();

    const listed = await runOrca(["worktrees"], { ws });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`${name}  kept`);
    expect(listed.stdout).toContain(`path: ${wtPath}`);
    expect(listed.stdout).toMatch(/1 file changed: f\.txt/);

    const pruned = await runOrca(["worktrees", "prune"], { ws });
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toContain(`removed ${wtPath} and branch ${name}`);
    expect(fs.existsSync(wtPath!)).toBe(false);
    expect(git(ws.dir, "branch", "--list", "--format=%(refname:short)", "orca/*")).toBe("");
    expect((await runOrca(["worktrees"], { ws })).stdout).toContain("worktrees: none in");
    expect((await runOrca(["worktrees", "merge"], { ws })).code).toBe(2);
  });

  it("a stopped isolated editor keeps its worktree; resumed, it goes on there and is merged when it ends done", async () => {
    let stopIt = () => {};
    const server = await scriptedServer(
      perAgent({
        coordinator: [
          { toolCalls: [delegate("line one")] },
          { text: "it was stopped" },
          { toolCalls: [{ name: "delegate", args: { resume: "wt-editor-1", task: "finish it" } }] },
          { text: "finished" },
        ],
        "wt-editor-1": [
          edit("one", "ONE"),
          () => {
            stopIt();
            return { kind: "hang" };
          },
          { text: "finished line one" },
        ],
      }),
    );
    const ws = repo({ "f.txt": "one\ntwo\n" });
    const orchestra = await testOrchestra(ws, server.url, { config: "permissions:\n  mode: accept-edits\n" });
    try {
      stopIt = () => orchestra.session.cancel("wt-editor-1");
      const first = await orchestra.session.run("edit");
      expect(first.status).toBe("done");
      const stopped = toolResults(requestsOf(server, "coordinator")[1]!)[0]!;
      expect(stopped).toContain("status: cancelled");
      expect(stopped).toMatch(/worktree: not merged \(it ended cancelled\); branch orca\/\S+ in \S+ keeps its work/);
      expect(ws.read("f.txt")).toBe("one\ntwo\n");
      expect(git(ws.dir, "branch", "--list", "--format=%(refname:short)", "orca/*")).toMatch(/wt-editor-1$/);

      const second = await orchestra.session.run("finish it");
      expect(second.status).toBe("done");
      expect(ws.read("f.txt")).toBe("ONE\ntwo\n");
      expect(toolResults(requestsOf(server, "coordinator")[3]!).at(-1)).toContain("worktree: merged into the main tree: f.txt");
      expect(git(ws.dir, "branch", "--list", "--format=%(refname:short)", "orca/*")).toBe("");
      // The resumed agent kept its history and workspace: the same system prompt, its edit's result in it.
      const resumed = requestsOf(server, "wt-editor-1")[2]!;
      expect(resumed.body.messages[0]).toEqual(requestsOf(server, "wt-editor-1")[0]!.body.messages[0]);
    } finally {
      await orchestra.session.close();
    }
  });

  it("attack: a merge never writes through a main-tree symlink that leads out of the workspace", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [{ name: "delegate", args: { agent: "wt-shell", task: "replace the link" } }] }, { text: "done" }],
        // In its worktree the agent swaps the committed symlink for a directory with a file in it.
        "wt-shell-1": [{ toolCalls: [{ name: "bash", args: { command: "rm link && mkdir link && echo pwned > link/x && echo fine > ok.txt" } }] }, { text: "replaced" }],
      }),
    );
    const ws = workspace({ ".orca/agents/wt-shell.md": ISOLATED_EDITOR.replace("name: wt-editor", "name: wt-shell").replace("tools: [read_file, edit_file, write_file, list_dir]", "tools: [bash]") });
    const outside = `${ws.home}/outside`;
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, ws.file("link"));
    git(ws.dir, "init", "-q");
    git(ws.dir, "add", "-A");
    git(ws.dir, "commit", "-qm", "start");
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--permission-mode", "bypass", "--output-format", "stream-json"], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(fs.existsSync(`${outside}/x`)).toBe(false);
    expect(fs.lstatSync(ws.file("link")).isSymbolicLink()).toBe(true);
    // All or nothing: the harmless file of the same merge is not written either.
    expect(fs.existsSync(ws.file("ok.txt"))).toBe(false);
    const result = toolResults(requestsOf(server, "coordinator")[1]!)[0]!;
    expect(result).toMatch(/worktree: NOT merged — link\/x: link is a symlink in the main tree; the merge follows none/);
  });

  it("merge-back is recorded in the read versions: the coordinator's later rewrite from its old read is refused, naming the agent", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [
          { toolCalls: [{ name: "read_file", args: { path: "f.txt" } }] },
          { toolCalls: [delegate("line one")] },
          { toolCalls: [{ name: "write_file", args: { path: "f.txt", content: "stale rewrite\n" } }] },
          { text: "done" },
        ],
        "wt-editor-1": [edit("one", "ONE"), { text: "edited" }],
      }),
    );
    const ws = repo({ "f.txt": "one\ntwo\n" });
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--permission-mode", "accept-edits", "--output-format", "stream-json"], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(ws.read("f.txt")).toBe("ONE\ntwo\n");
    const refused = toolResults(requestsOf(server, "coordinator")[3]!).at(-1)!;
    expect(refused).toMatch(/f\.txt changed since you read it \(.*wt-editor/);
  });

  it("outside a git repository it shares the workspace and says so", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("line one")] }, { text: "edited" }],
        "wt-editor-1": [edit("one", "ONE"), { text: "done" }],
      }),
    );
    const ws = workspace({ "f.txt": "one\n", ".orca/agents/wt-editor.md": ISOLATED_EDITOR });
    const run = await runOrca(["-p", "edit", "--base-url", server.url, "--permission-mode", "accept-edits", "--output-format", "stream-json"], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(ws.read("f.txt")).toBe("ONE\n");
    const notice = events(run.stdout).find((e) => e.type === "worktree");
    expect(notice && notice.type === "worktree" && [notice.action, notice.message]).toEqual([
      "unavailable",
      "isolation: worktree is not possible (the workspace is not in a git repository); it shares the workspace",
    ]);
  });
});
