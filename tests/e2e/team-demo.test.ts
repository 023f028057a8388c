/**
 * Issue 31 in a real terminal: `orca --demo` builds a task board; /tasks shows it live with each
 * task's owner pane, state and blockers, and a message one editor sends the other appears in both
 * panes. tmux at a fixed size runs the built CLI (`npm run build` first); CI is removed from its
 * environment (with CI set, Ink writes only the final frame).
 */
import { describe, expect, it } from "vitest";
import { demoInTmux, lineWith, send } from "./rig.js";

describe("the team in orca --demo (tmux)", () => {
  it("a sibling's message shows in both panes; /tasks shows the board with owners, states and blockers as the run goes", { timeout: 120_000 }, async () => {
    // A slower pace, so the editors are still running when the board is opened.
    const t = demoInTmux("team", { env: ["ORCA_DEMO_SPEED=0.5"], columns: 160, rows: 48 });

    // editor-2 tells editor-1 it is adding multiply: its own pane says to whom, editor-1's from whom.
    await t.waitFor(
      "the message in both panes",
      (s) => {
        expect(s).toContain("✉ to editor-1: I'm adding");
        expect(s).toContain("✉ from editor-2: I'm adding");
        // A pane's title names its board task (the id alone where its label is the task's title).
        expect(s).toMatch(/editor-1 \[fix subtract\] running ▸ t2 · /);
        expect(s).toMatch(/editor-2 \[add multiply\] running ▸ t3 · /);
        // The overlap of their scopes was a notice in the coordinator's pane.
        expect(s).toContain("⚠ scope overlap: t3 and t2 (editor-1) both match src/math.js — warned");
      },
      60_000,
    );

    await send(t, "/tasks");
    await t.waitFor(
      "the board",
      (s) => {
        expect(lineWith(s, "t2 in_progress")).toContain("fix subtract · editor-1 [fix subtract]");
        expect(lineWith(s, "t3 ")).toContain("add multiply · editor-2 [add multiply]");
        expect(lineWith(s, "t4 pending")).toMatch(/run the tests · no owner · blocked by t2 in_progress, t3 (in_progress|done)/);
      },
      30_000,
    );

    // The board follows the run: the CHANGELOG write is approved, and every task ends done with its owner.
    await t.waitFor("the permission dialog", (s) => s.includes("Permission:") && s.includes("y once"), 60_000);
    t.keys("y");
    await t.waitFor(
      "every task done",
      (s) => {
        expect(s).toContain("4/4 done");
        expect(lineWith(s, "t1 done")).toContain("map the project · explorer-1 [map project]");
        expect(lineWith(s, "t4 done")).toContain("run the tests · tester-1 [run tests]");
        expect(lineWith(s, "t4 done")).not.toContain("blocked");
      },
      60_000,
    );

    t.keys("Escape");
    await t.waitFor("the report", (s) => s.includes("coordinator done") && s.includes("Ask orca"), 40_000);
    t.keys("C-c");
    const end = await t.waitFor("the exit", (s) => /EXIT=\d+/.test(s));
    expect(end).toContain("EXIT=0");
  });
});
