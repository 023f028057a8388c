/**
 * Issue 33: model text reached the real terminal raw — OSC 52 in a `delegate` label and in a tool
 * name set tmux's clipboard (a paste buffer per redraw) and OSC 2 the window title; `-p`'s text
 * answer and `orca sessions` (a logged prompt) did the same outside the dashboard. In tmux with
 * `set-clipboard on`, so an OSC 52 that got through would show up as a paste buffer. Needs a
 * build (`npm run build`); CI is removed from orca's environment (Ink would write only the last frame).
 */
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { BIN, perAgent, TEST_KEY, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
import { TmuxTerminal } from "./tmux.js";

let term: TmuxTerminal | undefined;
let ws: TempWorkspace | undefined;
let server: ScriptedServer | undefined;

afterEach(async () => {
  term?.kill();
  term = undefined;
  await server?.close();
  server = undefined;
  ws?.cleanup();
  ws = undefined;
});

const CLIPBOARD = "\u001B]52;c;ZWNobyBQV05FRA==\u0007"; // "echo PWNED"
const TITLE = "\u001B]2;PWNED-TITLE\u0007";
const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * A tmux whose shell waits for Enter before running `command`, so the clipboard and title
 * options are set before orca writes anything.
 */
function terminal(name: string, w: TempWorkspace, command: string): TmuxTerminal {
  const t = new TmuxTerminal(name);
  const env = [`HOME=${quote(w.home)}`, `ORCA_DATA_DIR=${quote(w.dataDir)}`, `OPENAI_API_KEY=${TEST_KEY}`].join(" ");
  t.start(`read go; unset CI; export ${env}; ${command}; echo EXIT=$?; sleep 60`, 120, 40, w.dir);
  t.tmux("set-option", "-g", "set-clipboard", "on");
  t.tmux("set-option", "-g", "allow-rename", "on");
  t.tmux("select-pane", "-t", "e2e", "-T", "clean-title");
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
    server = await startScriptedServer(
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
    ws = tempWorkspace({ "a.txt": "a\n" });
    term = terminal("dash", ws, `${quote(process.execPath)} ${quote(BIN)} --base-url ${server.url} go`);
    const screen = await term.waitFor("the coordinator's report", (s) => s.includes("report-done") && s.includes("Ask orca"), 60_000);
    expect(screen).toContain("explorer-1 [lbl");
    expect(screen).toMatch(/evil.*tool/);
    expectNothingActed(term);
    term.keys("C-c");
    await term.waitFor("orca to exit", (s) => /EXIT=\d+/.test(s));
    expectNothingActed(term);
  });

  it("-p's text answer on a terminal and `orca sessions` listing the logged prompt print it inert", { timeout: 90_000 }, async () => {
    server = await startScriptedServer([{ text: `answer${CLIPBOARD}${TITLE}-end` }]);
    ws = tempWorkspace();
    fs.writeFileSync(ws.file("prompt.txt"), `prompt${CLIPBOARD}${TITLE}-end`);
    const orca = `${quote(process.execPath)} ${quote(BIN)}`;
    term = terminal("cli", ws, `${orca} -p "$(cat prompt.txt)" --base-url ${server.url} && ${orca} sessions`);
    const screen = await term.waitFor("orca sessions", (s) => /EXIT=\d+/.test(s));
    expect(screen).toContain("EXIT=0");
    expect(screen).toMatch(/answer\]52;c;ZWNobyBQV05FRA==\]2;PWNED-TITLE-end|answer-end/);
    expect(screen).toContain("FIRST PROMPT");
    expectNothingActed(term);
  });
});
