/**
 * Issue 33: model text reached the real terminal raw — OSC 52 in a `delegate` label and in a tool
 * name set tmux's clipboard (a paste buffer per redraw) and OSC 2 the window title; `-p`'s text
 * answer and `orca sessions` (a logged prompt) did the same outside the dashboard. In tmux with
 * `set-clipboard on`, so an OSC 52 that got through would show up as a paste buffer. Needs a
 * build (`npm run build`); CI is removed from orca's environment (Ink would write only the last frame).
 */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { perAgent, type TempWorkspace } from "../fixtures/harness.js";
import { actOnEscapes, ORCA, orcaEnv, scriptedServer, terminal, workspace } from "./rig.js";
import type { TmuxTerminal } from "./tmux.js";

const CLIPBOARD = "\u001B]52;c;ZWNobyBQV05FRA==\u0007"; // "echo PWNED"
const TITLE = "\u001B]2;PWNED-TITLE\u0007";

/**
 * A tmux whose shell waits for Enter before running `command`, so the clipboard and title
 * options are set before orca writes anything.
 */
function terminalFor(name: string, w: TempWorkspace, command: string): TmuxTerminal {
  const t = terminal(name);
  t.start(`read go; unset CI; export ${orcaEnv(w)}; ${command}; echo EXIT=$?; sleep 60`, 120, 40, w.dir);
  actOnEscapes(t);
  t.keys("Enter");
  return t;
}

/** What a sequence that got through would have left: paste buffers, a changed title, raw escapes on screen. */
function expectNothingActed(t: TmuxTerminal): void {
  expect(t.tmux("list-buffers")).toBe("");
  expect(t.display("#{pane_title}")).toBe("clean-title");
  const styled = t.tmux("capture-pane", "-p", "-e", "-t", "e2e");
  expect(styled.replace(/\u001B\[[0-9;:]*m/g, "")).not.toMatch(/[\u001B\u0007\u009B\u009D]/);
}

describe("model text in a real terminal", () => {
  it("an OSC 52 / OSC 2 in a delegate label and in a tool name reaches the dashboard as text", { timeout: 90_000 }, async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [
          {
            toolCalls: [
              { name: "delegate", args: { agent: "explorer", task: "look", label: `lbl${CLIPBOARD}${TITLE}` } },
              { name: `evil${CLIPBOARD}${TITLE}tool`, args: {} },
            ],
          },
          { text: "report-done" },
        ],
        "explorer-1": [{ text: "sub-done" }],
      }),
    );
    const term = terminalFor("dash", workspace({ "a.txt": "a\n" }), `${ORCA} --base-url ${server.url} go`);
    await term.waitFor(
      "the coordinator's report",
      (s) => {
        expect(s).toContain("report-done");
        expect(s).toContain("Ask orca");
        expect(s).toContain("explorer-1 [lbl");
        expect(s).toMatch(/evil.*tool/);
      },
      60_000,
    );
    expectNothingActed(term);
    term.keys("C-c");
    await term.waitFor("orca to exit", (s) => /EXIT=\d+/.test(s));
    expectNothingActed(term);
  });

  it("-p's text answer on a terminal and `orca sessions` listing the logged prompt print it inert", { timeout: 90_000 }, async () => {
    const server = await scriptedServer([{ text: `answer${CLIPBOARD}${TITLE}-end` }]);
    const ws = workspace();
    fs.writeFileSync(ws.file("prompt.txt"), `prompt${CLIPBOARD}${TITLE}-end`);
    const term = terminalFor("cli", ws, `${ORCA} -p "$(cat prompt.txt)" --base-url ${server.url} && ${ORCA} sessions`);
    const screen = await term.waitFor("orca sessions", (s) => /EXIT=\d+/.test(s));
    expect(screen).toContain("EXIT=0");
    expect(screen).toMatch(/answer\]52;c;ZWNobyBQV05FRA==\]2;PWNED-TITLE-end|answer-end/);
    expect(screen).toContain("FIRST PROMPT");
    expectNothingActed(term);
  });
});
