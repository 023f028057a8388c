/**
 * Issue 31 in a real terminal: `orca --demo` builds a task board; /tasks shows it live with each
 * task's owner pane, state and blockers, and a message one editor sends the other appears in both
 * panes. tmux at a fixed size runs the built CLI (`npm run build` first); CI is removed from its
 * environment (with CI set, Ink writes only the final frame).
 */
import { describe, expect, it } from "vitest";
import { demoInTmux, lineWith } from "./rig.js";

describe("the team in orca --demo (tmux)", () => {
  it("a sibling's message shows in both panes; /tasks shows the board with owners, states and blockers as the run goes", { timeout: 120_000 }, async () => {
    // A slower pace, so the editors are still running when the board is opened.
    const t = demoInTmux("team", { env: ["ORCA_DEMO_SPEED=0.5"], columns: 160, rows: 48 });

    // editor-2 tells editor-1 it is adding multiply: its own pane says to whom, editor-1's from whom.
    const panes = await t.waitFor("the message in both panes", (s) => s.includes("✉ to editor-1: I'm adding") && s.includes("✉ from editor-2: I'm adding"), 60_000);
    // A pane's title names its board task (the id alone where its label is the task's title).
    expect(panes).toMatch(/editor-1 \[fix subtract\] running ▸ t2 · /);
    expect(panes).toMatch(/editor-2 \[add multiply\] running ▸ t3 · /);
    // The overlap of their scopes was a notice in the coordinator's pane.
    expect(panes).toContain("⚠ scope overlap: t3 and t2 (editor-1) both match src/math.js — warned");

    t.keys("-l", "/tasks");
    await t.waitFor("the command typed", (s) => s.includes("/tasks"));
    t.keys("Enter");
    const board = await t.waitFor("the board", (s) => s.includes("t4 pending") && s.includes("t2 in_progress"), 30_000);
    expect(lineWith(board, "t2 in_progress")).toContain("fix subtract · editor-1 [fix subtract]");
    expect(lineWith(board, "t3 ")).toContain("add multiply · editor-2 [add multiply]");
    expect(lineWith(board, "t4 pending")).toMatch(/run the tests · no owner · blocked by t2 in_progress, t3 (in_progress|done)/);

    // The board follows the run: the CHANGELOG write is approved, and every task ends done with its owner.
    await t.waitFor("the permission dialog", (s) => s.includes("Permission:") && s.includes("y once"), 60_000);
    t.keys("y");
    const done = await t.waitFor("every task done", (s) => s.includes("4/4 done") && s.includes("t4 done"), 60_000);
    expect(lineWith(done, "t1 done")).toContain("map the project · explorer-1 [map project]");
    expect(lineWith(done, "t4 done")).toContain("run the tests · tester-1 [run tests]");
    expect(lineWith(done, "t4 done")).not.toContain("blocked");

    t.keys("Escape");
    await t.waitFor("the report", (s) => s.includes("coordinator done") && s.includes("Ask orca"), 40_000);
    t.keys("C-c");
    const end = await t.waitFor("the exit", (s) => /EXIT=\d+/.test(s));
    expect(end).toContain("EXIT=0");
  });
});
