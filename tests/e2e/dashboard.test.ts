/**
 * `orca --demo` in a real terminal: tmux at a fixed size runs the built CLI (npm test builds
 * first; alone, run `npm run build`), the test sends keys and reads the screen like a user would.
 * CI is removed from orca's environment: with CI set, Ink writes only the final frame.
 */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { demoInTmux, lineWith, tempDir } from "./rig.js";
import type { TmuxTerminal } from "./tmux.js";

const HEADER = "SCRIPTED DEMO";

/** Starts the demo; the shell prints orca's exit code and stays so the test can read it. */
const startDemo = (name: string, ...env: string[]): TmuxTerminal => demoInTmux(name, { env });

const count = (screen: string, text: string): number => screen.split("\n").filter((l) => l.includes(text)).length;

async function exitAndCheck(t: TmuxTerminal, code: number): Promise<void> {
  const screen = await t.waitFor(`EXIT=${code}`, (s) => /EXIT=\d+/.test(s));
  expect(screen).toContain(`EXIT=${code}`);
  // The alternate screen was left: the shell's normal screen is back, without the dashboard.
  expect(t.display("#{alternate_on}")).toBe("0");
  expect(screen).not.toContain(HEADER);
}

describe("orca --demo in tmux", () => {
  it("plays the scenario: header, three sub-agent panes, the permission dialog, the report; exits 0 on Ctrl+C", { timeout: 60_000 }, async () => {
    const t = startDemo("play");
    // The header is the first row and says this is a scripted demo.
    await t.waitFor("the first frame", (s) => {
      expect(s.split("\n")[0]).toContain(HEADER);
      expect(s.split("\n")[0]).toContain("orca-demo");
    });

    await t.waitFor("the sub-agent panes", (s) => {
      for (const pane of ["explorer-1 [map project]", "editor-1 [fix subtract]", "editor-2 [add multiply]"]) expect(s).toContain(pane);
      expect(count(s, HEADER)).toBe(1);
      // The coordinator's delegate lines name the agent and label.
      expect(s).toMatch(/delegate editor "fix subtract"/);
    });

    await t.waitFor("the permission dialog", (s) => {
      expect(s).toContain("Permission:");
      expect(s).toContain("write_file");
      expect(s).toContain("CHANGELOG.md");
      expect(s).toContain("+- Added `multiply(a, b)` to src/math.js.");
    });
    // Keys answer the dialog once it has been on screen, untouched, for a moment.
    await t.waitFor("the dialog's answer keys", (s) => s.includes("y once"));
    t.keys("y");

    await t.waitFor(
      "the coordinator's report",
      (s) => {
        expect(s).toContain("coordinator done");
        expect(s).toContain("Ask orca");
        expect(s).toContain("nothing was lost");
        for (const who of ["explorer-1 [map project]", "editor-1 [fix subtract]", "editor-2 [add multiply]", "tester-1 [run tests]"]) {
          expect(lineWith(s, who)).toMatch(/✓ .* done/);
        }
        expect(count(s, HEADER)).toBe(1);
      },
      40_000,
    );

    t.keys("C-c");
    await exitAndCheck(t, 0);
  });

  it("the denial path: the queue line shows the second editor waiting, n with a reason denies the CHANGELOG write, and the report says so", { timeout: 90_000 }, async () => {
    const data = tempDir("orca-e2e-data-");
    const t = startDemo("deny", `ORCA_DATA_DIR=${data}`);
    // The per-path wait, at the default pace: one editor's edit of src/math.js waits for the
    // other's (editor [add multiply] is a beat later in the script, which a loaded machine may undo).
    const wait = /1 waiting .*editor-\d \[(add multiply|fix subtract)\] waits for editor-\d \[(add multiply|fix subtract)\]: edit_file src\/math\.js/;
    const waiting = await t.waitFor("one edit waiting for the other", (s) => wait.test(s), 40_000);
    const [, waiter, holder] = wait.exec(waiting)!;
    expect(waiter).not.toBe(holder);

    await t.waitFor("the permission dialog", (s) => s.includes("Permission:") && s.includes("CHANGELOG.md"), 40_000);
    // Keys answer the dialog once it has been on screen, untouched, for a moment (before, they go to the input box).
    await t.waitFor("the dialog's answer keys", (s) => s.includes("y once"));
    t.keys("n");
    await t.waitFor("the reason prompt", (s) => s.includes("Reason for the model"));
    t.keys("-l", "no changelog please");
    await t.waitFor("the reason typed", (s) => s.includes("no changelog please"));
    t.keys("Enter");

    await t.waitFor(
      "the coordinator's report",
      (s) => {
        expect(s).toContain("coordinator done");
        expect(s).toContain("Ask orca");
        expect(s).toContain('not written: you denied the write ("no changelog please")');
        expect(s).not.toContain("notes the new function");
        expect(s).not.toContain("and a CHANGELOG.md entry");
        for (const who of ["editor-1 [fix subtract]", "editor-2 [add multiply]", "tester-1 [run tests]"]) expect(lineWith(s, who)).toMatch(/✓ .* done/);
      },
      40_000,
    );

    t.keys("C-c");
    await exitAndCheck(t, 0);
    // The demo kept its session log in its own temporary folder.
    expect(fs.readdirSync(data)).toEqual([]);
  });

  it("Tab + Esc cancels only the focused sub-agent, Esc on the coordinator cancels the run; resizes redraw cleanly; Ctrl+C exits 130", { timeout: 60_000 }, async () => {
    // A slower pace leaves time to reach a pane while it runs.
    const t = startDemo("cancel", "ORCA_DEMO_SPEED=0.2");
    await t.waitFor("the explorer pane", (s) => s.includes("explorer-1 [map project] running") && s.includes("editor-2 [add multiply] running"), 30_000);

    // Smaller and back, while everything runs: one header, panes redrawn, no stale rows.
    t.resize(80, 24);
    await t.waitFor("the 80×24 frame", (s) => {
      expect(s.split("\n").length).toBeGreaterThanOrEqual(24);
      expect(s.split("\n")[0]).toContain(HEADER);
      expect(count(s, HEADER)).toBe(1);
      expect(count(s, "Esc cancel run")).toBe(1);
      expect(s).toContain("explorer");
    });
    t.resize(120, 40);
    await t.waitFor("the 120×40 frame", (s) => {
      expect(s.split("\n")[0]).toContain(HEADER);
      expect(s.split("\n")[0]!.length).toBeGreaterThan(80);
      expect(s).toContain("editor-1 [fix subtract]");
      expect(count(s, HEADER)).toBe(1);
      expect(count(s, "Esc cancel run")).toBe(1);
    });

    // Tab focuses the first sub-agent (the explorer); Esc stops only it.
    t.keys("Tab");
    await t.waitFor("the explorer focused", (s) => s.includes("Esc stop explorer"));
    t.keys("Escape");
    await t.waitFor("the explorer cancelled", (s) => {
      expect(s).toMatch(/⊘ explorer-1 \[map project\] cancelled/);
      expect(lineWith(s, "editor-1 [fix subtract]")).toContain("running");
      expect(lineWith(s, "editor-2 [add multiply]")).toContain("running");
      expect(lineWith(s, "coordinator")).toContain("running");
    });

    // Back to the coordinator (Esc on a finished pane leaves it), then Esc cancels the whole run.
    t.keys("Escape");
    await t.waitFor("the coordinator focused", (s) => s.includes("Esc cancel run"));
    t.keys("Escape");
    await t.waitFor("the run cancelled", (s) => {
      expect(s).toContain("Ask orca");
      expect(s).toMatch(/editor-1 \[fix subtract\] cancelled/);
      expect(s).toMatch(/editor-2 \[add multiply\] cancelled/);
      expect(lineWith(s, "coordinator")).toContain("cancelled");
      expect(count(s, HEADER)).toBe(1);
    });

    t.keys("C-c");
    await exitAndCheck(t, 130);
  });
});
