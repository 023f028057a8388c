/**
 * `orca` without a prompt in a real terminal opens on the welcome screen (what was loaded, and
 * the keys), which gives way to the conversation at the first message. Needs a build; CI is
 * removed from orca's environment because with CI set Ink writes only the final frame.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { BIN, tempWorkspace, TEST_KEY, type TempWorkspace } from "../fixtures/harness.js";
import { TmuxTerminal } from "./tmux.js";

let term: TmuxTerminal | undefined;
let ws: TempWorkspace | undefined;
let server: ScriptedServer | undefined;

afterEach(async () => {
  term?.kill();
  await server?.close();
  ws?.cleanup();
  term = undefined;
  server = undefined;
  ws = undefined;
});

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

describe("the welcome screen in tmux", () => {
  it("shows model, workspace, agents, skills, MCP and keys at 80×24, then the conversation after the first message", { timeout: 60_000 }, async () => {
    ws = tempWorkspace({ "README.md": "# w\n" });
    server = await startScriptedServer([{ text: "WELCOME-ANSWER: hello" }]);
    term = new TmuxTerminal("welcome");
    const env = [`HOME=${quote(ws.home)}`, `ORCA_DATA_DIR=${quote(ws.dataDir)}`, `OPENAI_API_KEY=${TEST_KEY}`].join(" ");
    term.start(`env -u CI ${env} ${quote(process.execPath)} ${quote(BIN)} --base-url ${server.url} -m welcome-model; echo EXIT=$?; sleep 60`, 80, 24, ws.dir);
    const t = term;

    const screen = await t.waitFor("the welcome", (s) => s.includes("you talk to it"));
    expect(screen).toMatch(/model\s+welcome-model · http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(screen).toMatch(/workspace\s+\/.*\/ws/);
    expect(screen).toMatch(/agents\s+coordinator \(you talk to it\) · editor · explorer · tester/);
    expect(screen).toMatch(/skills\s+\S/);
    expect(screen).toMatch(/MCP\s+none configured/);
    expect(screen).toMatch(/keys\s+Enter send/);
    // Nothing in it is cut at 80 columns.
    expect(screen).not.toMatch(/type a task below.*…/);

    t.keys("-l", "say hello");
    t.keys("Enter");
    const after = await t.waitFor("the answer", (s) => s.includes("WELCOME-ANSWER: hello"));
    expect(after).toContain("say hello");
    expect(after).not.toContain("you talk to it");
    expect(server.requests).toHaveLength(1);

    t.keys("C-c");
    await t.waitFor("orca to exit", (s) => s.includes("EXIT=0"));
  });
});
