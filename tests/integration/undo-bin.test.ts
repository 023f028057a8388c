import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { ScriptedReply } from "../../src/model/scripted.js";
import { buildChangeSets } from "../../src/review/change-set.js";
import { ContentStore } from "../../src/sessions/content-store.js";
import { contentHash } from "../../src/util/content-hash.js";
import { perAgent, runOrca, sessionLogs, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

const call = (name: string, args: unknown): ScriptedReply => ({ toolCalls: [{ name, args }] });

/** A run where editor-1 changes a, b and c, then editor-2 changes b after it; the coordinator's command rewrites d. */
async function twoEditors(w: TempWorkspace): Promise<string> {
  const s = await scriptedServer(
    perAgent({
      coordinator: [
        call("delegate", { agent: "editor", task: "change a, b and c", label: "abc" }),
        call("delegate", { agent: "editor", task: "change b again", label: "b again" }),
        call("read_file", { path: "d.txt" }),
        call("bash", { command: "sed -i s/d0/d1/ d.txt" }),
        { text: "done" },
      ],
      "editor-1": [
        call("read_file", { path: "a.txt" }),
        call("edit_file", { path: "a.txt", old_string: "a0", new_string: "a1" }),
        call("read_file", { path: "b.txt" }),
        call("edit_file", { path: "b.txt", old_string: "b0", new_string: "b1" }),
        call("write_file", { path: "sub/c.txt", content: "c1\n" }),
        { text: "changed a, b, c" },
      ],
      "editor-2": [call("read_file", { path: "b.txt" }), call("edit_file", { path: "b.txt", old_string: "b1", new_string: "b2" }), { text: "changed b" }],
    }),
  );
  const run = await runOrca(["-p", "change things", "--base-url", s.url, "--yes"], { ws: w });
  expect(run.code, run.stderr).toBe(0);
  return readLog(sessionLogs(w)[0]!).events[0]!.sessionId;
}

describe("orca undo, through the real bin", () => {
  it("undoes one agent: a file someone changed since is listed and skipped unless --force; a command's change is undone too", async () => {
    const ws = workspace({ "a.txt": "a0\n", "b.txt": "b0\n", "d.txt": "d0\n" });
    const id = await twoEditors(ws);
    expect([ws.read("a.txt"), ws.read("b.txt"), ws.read("sub/c.txt"), ws.read("d.txt")]).toEqual(["a1\n", "b2\n", "c1\n", "d1\n"]);
    const events = readLog(sessionLogs(ws)[0]!).events;
    // The command's change is on the log with its version before, like a write's.
    expect(events).toContainEqual(expect.objectContaining({ type: "file_changed", agentId: "coordinator", tool: "bash", path: "d.txt", before: contentHash("d0\n"), after: contentHash("d1\n") }));
    expect(buildChangeSets(events).agents.find((a) => a.agentId === "editor-1")!.files.map((f) => [f.path, f.status])).toEqual([
      ["a.txt", "modified"],
      ["b.txt", "modified"],
      ["sub/c.txt", "created"],
    ]);
    // Someone edits c by hand after the run.
    fs.writeFileSync(ws.file("sub/c.txt"), "c-by-hand\n");

    const undo = await runOrca(["undo", id, "--agent", "editor-1"], { ws });
    expect(undo.code, undo.stderr).toBe(1);
    expect(undo.stdout).toContain("restored a.txt");
    expect(undo.stdout).toMatch(/skipped {2}b\.txt: changed since by editor-2 \[b again\]/);
    expect(undo.stdout).toMatch(/skipped {2}sub\/c\.txt: changed since, outside orca/);
    expect(undo.stdout).toContain("1 restored, 2 skipped (2 changed since: --force restores them)");
    expect([ws.read("a.txt"), ws.read("b.txt"), ws.read("sub/c.txt")]).toEqual(["a0\n", "b2\n", "c-by-hand\n"]);

    const forced = await runOrca(["undo", id, "--agent", "editor-1", "--force"], { ws });
    expect(forced.code, forced.stdout + forced.stderr).toBe(0);
    expect(ws.read("b.txt")).toBe("b0\n");
    expect(fs.existsSync(ws.file("sub/c.txt"))).toBe(false);

    // The coordinator's command: undone from the version kept when the command ran.
    const cmd = await runOrca(["undo", id, "--agent", "coordinator"], { ws });
    expect(cmd.code, cmd.stdout + cmd.stderr).toBe(0);
    expect(ws.read("d.txt")).toBe("d0\n");
    // The undos are on the session's log: undoing again finds them and touches nothing.
    fs.writeFileSync(ws.file("a.txt"), "a-by-hand\n");
    const again = await runOrca(["undo", id, "--agent", "editor-1"], { ws });
    expect(again.stdout).toMatch(/skipped {2}a\.txt: changed since by an undo/);
    expect(again.stdout).toMatch(/already {2}b\.txt: it is as it was/);
    expect(ws.read("a.txt")).toBe("a-by-hand\n");
  });

  it("a forged log line cannot make undo write outside the workspace or into .git/hooks; nor can a symlink swapped in", async () => {
    const ws = workspace({ "a.txt": "a0\n", "b.txt": "b0\n", "d.txt": "d0\n" });
    fs.mkdirSync(ws.file(".git/hooks"), { recursive: true });
    const id = await twoEditors(ws);
    const outside = path.join(path.dirname(ws.dir), "outside");
    fs.mkdirSync(outside);
    const store = ContentStore.forSession(ws.dataDir, id);
    const payload = "#!/bin/sh\ntouch MARKER\n";
    store.keep(payload);
    const [file] = sessionLogs(ws);
    const forged = (p: string) =>
      JSON.stringify({ ts: Date.now(), sessionId: id, agentId: "editor-1", type: "file_write", tool: "merge_worktree", path: p, before: contentHash(payload), after: contentHash("x") }).replace(',"after"', ',"temp":"t","after"') + "\n";
    // Each forged change claims editor-1 created a file there (its version before: the payload).
    fs.appendFileSync(file!, [forged("../outside/evil.sh"), forged(path.join(outside, "abs.sh")), forged(".git/hooks/pre-commit"), forged("hooks-link/post-checkout")].join(""));
    fs.symlinkSync(".git/hooks", ws.file("hooks-link"));
    // And the folder of a file it really changed becomes a link out of the workspace.
    fs.renameSync(ws.file("sub"), ws.file("sub-moved"));
    fs.symlinkSync(outside, ws.file("sub"));
    for (const p of ["evil.sh", "abs.sh", "pre-commit", "post-checkout", "c.txt"]) fs.writeFileSync(path.join(p.endsWith(".sh") || p === "c.txt" ? outside : ws.file(".git/hooks"), p), "x");

    const undo = await runOrca(["undo", id, "--agent", "editor-1", "--force"], { ws });
    expect(undo.stdout).toMatch(/skipped {2}\.\.\/outside\/evil\.sh: not restored: path \.\.\/outside\/evil\.sh is outside the workspace/);
    expect(undo.stdout).toMatch(/skipped {2}\.git\/hooks\/pre-commit: not restored: protected path/);
    expect(undo.stdout).toMatch(/skipped {2}hooks-link\/post-checkout: not restored: protected path/);
    expect(undo.stdout).toMatch(/skipped {2}sub\/c\.txt: not restored: path sub\/c\.txt is outside the workspace/);
    for (const f of [path.join(outside, "evil.sh"), path.join(outside, "abs.sh"), ws.file(".git/hooks/pre-commit"), ws.file(".git/hooks/post-checkout"), path.join(outside, "c.txt")]) {
      expect(fs.readFileSync(f, "utf8"), f).toBe("x");
    }
    expect(ws.read("a.txt")).toBe("a0\n");
  });

  it("restores files an agent changed in an additional dir, under the same protections (its .git/hooks never, a path beside it never)", async () => {
    const ws = workspace({});
    const extra = path.join(path.dirname(ws.dir), "extra");
    const beside = path.join(path.dirname(ws.dir), "beside");
    fs.mkdirSync(path.join(extra, ".git", "hooks"), { recursive: true });
    fs.mkdirSync(beside);
    fs.writeFileSync(path.join(extra, "e.txt"), "e0\n");
    fs.mkdirSync(path.join(ws.home, ".config", "orca"), { recursive: true });
    fs.writeFileSync(path.join(ws.home, ".config", "orca", "config.yaml"), `permissions:\n  mode: bypass\n  additional_dirs: [${JSON.stringify(extra)}]\n`);
    const s = await scriptedServer([
      call("read_file", { path: path.join(extra, "e.txt") }),
      call("edit_file", { path: path.join(extra, "e.txt"), old_string: "e0", new_string: "e1" }),
      call("write_file", { path: path.join(extra, "new.txt"), content: "n\n" }),
      { text: "done" },
    ]);
    const run = await runOrca(["-p", "change the extra dir", "--base-url", s.url], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(path.join(extra, "e.txt"), "utf8")).toBe("e1\n");
    const [file] = sessionLogs(ws);
    const id = readLog(file!).events[0]!.sessionId;
    // Forged lines: the additional dir's git hooks, and a folder beside it that is no additional dir.
    const payload = "#!/bin/sh\ntouch MARKER\n";
    ContentStore.forSession(ws.dataDir, id).keep(payload);
    const forged = (p: string) => JSON.stringify({ ts: Date.now(), sessionId: id, agentId: "coordinator", type: "file_changed", tool: "bash", path: p, before: contentHash(payload), after: null }) + "\n";
    fs.appendFileSync(file!, forged(path.join(extra, ".git", "hooks", "pre-commit")) + forged(path.join(beside, "evil.sh")));

    const undo = await runOrca(["undo", id, "--force"], { ws });
    expect(undo.stdout).toContain(`restored ${path.join(extra, "e.txt")}`);
    expect(undo.stdout).toContain(`restored ${path.join(extra, "new.txt")}`);
    expect(undo.stdout).toMatch(/skipped {2}\S*extra\/\.git\/hooks\/pre-commit: not restored: protected path/);
    expect(undo.stdout).toMatch(/skipped {2}\S*beside\/evil\.sh: not restored: .*outside the workspace/);
    expect(fs.readFileSync(path.join(extra, "e.txt"), "utf8")).toBe("e0\n");
    expect(fs.existsSync(path.join(extra, "new.txt"))).toBe(false);
    expect(fs.existsSync(path.join(extra, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(fs.existsSync(path.join(beside, "evil.sh"))).toBe(false);
  });
});
