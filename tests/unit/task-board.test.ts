import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EventInput, OrcaEvent } from "../../src/events/types.js";
import { eventSchema } from "../../src/events/types.js";
import { scopeOverlap } from "../../src/orchestrator/scope-overlap.js";
import { blockersOf, boardFromEvents, boardText, TaskBoard } from "../../src/orchestrator/task-board.js";

/** A board whose events are stamped and parsed as the log would keep them. */
function liveBoard(prior: OrcaEvent[] = []): { board: TaskBoard; log: OrcaEvent[] } {
  const log: OrcaEvent[] = [];
  let ts = 0;
  const board = new TaskBoard((e: EventInput) => log.push(eventSchema().parse({ ...e, ts: ++ts, sessionId: "s" })), prior);
  return { board, log };
}

describe("the task board", () => {
  it("is its events: a board rebuilt from the log equals the live one, field for field", () => {
    const { board, log } = liveBoard();
    board.create("coordinator", { title: "map", scope: ["src/**"] });
    board.create("coordinator", { title: "fix", dependsOn: ["t1"], scope: ["src/a.ts"], notes: "careful" });
    board.update("coordinator", "t1", { owner: "explorer-1", status: "in_progress" }, "orca");
    board.update("explorer-1", "t1", { notes: "two modules", status: "done" });
    expect(boardFromEvents(log)).toEqual(board.state);
    expect(board.state.tasks.map((t) => [t.id, t.status, t.owner ?? null])).toEqual([["t1", "done", "explorer-1"], ["t2", "pending", null]]);
    expect(board.get("t2")).toMatchObject({ dependsOn: ["t1"], scope: ["src/a.ts"], notes: "careful", createdBy: "coordinator" });
    // A board restored from the log goes on numbering after the tasks it has.
    const { board: resumed } = liveBoard(log);
    expect(resumed.create("coordinator", { title: "more" })).toMatchObject({ id: "t3" });
  });

  it("refuses an unknown dependency, a cycle, an empty title and a scope that leaves the workspace; emits nothing for them", () => {
    const { board, log } = liveBoard();
    board.create("c", { title: "a" });
    board.create("c", { title: "b", dependsOn: ["t1"] });
    const before = log.length;
    expect(board.create("c", { title: "x", dependsOn: ["t9"] })).toEqual({ error: "depends_on names t9, which is not on the board" });
    expect(board.update("c", "t1", { dependsOn: ["t2"] })).toEqual({ error: "t1 cannot depend on t2: that would be a cycle" });
    expect(board.update("c", "t1", { dependsOn: ["t1"] })).toEqual({ error: "t1 cannot depend on t1: that would be a cycle" });
    expect(board.create("c", { title: "  " })).toEqual({ error: "a task needs a title" });
    expect(board.create("c", { title: "y", scope: ["../outside/**"] })).toMatchObject({ error: expect.stringMatching(/^scope: pattern \.\.\/outside\/\*\* climbs out/) });
    expect(board.update("c", "t7", { title: "z" })).toEqual({ error: "no task t7 on the board (task_list shows them)" });
    expect(log.length).toBe(before);
  });

  it("names what blocks a task, and the list says it", () => {
    const { board } = liveBoard();
    board.create("c", { title: "a" });
    board.create("c", { title: "b" });
    board.create("c", { title: "c", dependsOn: ["t1", "t2"] });
    board.update("c", "t1", { status: "done" });
    expect(blockersOf(board.state, board.get("t3")!).map((b) => b.id)).toEqual(["t2"]);
    expect(boardText(board.state).split("\n")[2]).toBe("t3 [pending] c · no owner · depends on t1, t2 (waiting for t2)");
  });
});

describe("scope overlap", () => {
  let dir = "";
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const workspace = (files: string[]) => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-scope-"));
    for (const f of files) {
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      fs.writeFileSync(path.join(dir, f), "x");
    }
    return dir;
  };

  it("names the workspace's files both scopes match, a literal path one names and the other matches, and a shared glob", async () => {
    const root = workspace(["src/a.ts", "src/b.ts", "src/c.css", "docs/x.md"]);
    expect(await scopeOverlap(root, ["src/**/*.ts"], ["src/a.ts", "src/c.css"])).toEqual(["src/a.ts"]);
    expect(await scopeOverlap(root, ["src"], ["src/*.css"])).toEqual(["src/c.css"]);
    expect(await scopeOverlap(root, ["src/"], ["src/new.ts"])).toEqual(["src/new.ts"]);
    expect(await scopeOverlap(root, ["lib/**"], ["lib/**"])).toEqual(["lib/**"]);
    expect(await scopeOverlap(root, ["src/**/*.ts"], ["docs/**", "src/*.css"])).toEqual([]);
    expect(await scopeOverlap(root, [], ["src/**"])).toEqual([]);
  });

  it("never walks or names files outside the workspace: a scope with `..` or an absolute path is out of it", async () => {
    const root = workspace(["src/a.ts"]);
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "orca-outside-"));
    try {
      fs.writeFileSync(path.join(outside, "secret-name.txt"), "x");
      const rel = path.relative(root, outside);
      // The model names only globs; the overlap would list the files outside that both match.
      expect(await scopeOverlap(root, [`${rel}/**`], [`${rel}/*.txt`])).toEqual([]);
      expect(await scopeOverlap(root, [`${outside}/**`], [`${outside}/*.txt`])).toEqual([]);
      expect(await scopeOverlap(root, [`src/../${rel}/**`], [`**/../${rel}/*.txt`])).toEqual([]);
      expect(await scopeOverlap(root, ["src/**", "../x/**"], ["src/a.ts"])).toEqual(["src/a.ts"]);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});
