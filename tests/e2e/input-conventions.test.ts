/**
 * The input conventions people bring from other agents, in a real terminal (tmux) against the
 * built orca and a scripted model over real HTTP: `@path` completes and attaches the file (the
 * request shows its content), `!echo` shows its output and the next request carries it, a
 * `.claude/commands/` command runs with `$ARGUMENTS`, `/mode` + Enter runs /mode (not /model),
 * `/copy` writes an OSC 52 sequence (captured from the pane's output), a long paste is collapsed
 * in the box and sent whole, and after exit the last answer is on the normal screen.
 * CI is removed from orca's environment (Ink would otherwise write only the final frame).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { lastMessage, type RecordedRequest, type ScriptedReply, type ScriptedServer } from "../../src/model/scripted.js";
import type { TempWorkspace } from "../fixtures/harness.js";
import { actOnEscapes, orcaInTmux, quote, scriptedServer, workspace } from "./rig.js";
import type { TmuxTerminal } from "./tmux.js";

const usage = { prompt: 100, completion: 10 };
const ANSWER = "Here it is:\n\n```sh\necho copied-block\n```\n\nANSWER-END";

function script(request: RecordedRequest): ScriptedReply {
  const said = String(lastMessage(request)?.content ?? "");
  return { text: said.includes("give code") ? ANSWER : `noted ${said.length} chars`, usage };
}

const userText = (r: RecordedRequest): string => String(lastMessage(r)?.content ?? "");

const start = (ws: TempWorkspace, server: ScriptedServer): TmuxTerminal => orcaInTmux("input", ws, ["-m", "gpt-4.1-mini", "--base-url", server.url], { unset: ["NO_COLOR"] });

async function answered(server: ScriptedServer, n: number): Promise<RecordedRequest> {
  await vi.waitFor(() => expect(server.requests[n - 1]?.finishedAt, `request ${n}; ${server.requests.length} so far`).toBeTruthy(), { timeout: 20_000, interval: 50 });
  return server.requests[n - 1]!;
}

describe("input conventions in tmux", () => {
  it("@path, !command, a custom command, /mode, /copy, a long paste, and the answer after exit", { timeout: 150_000 }, async () => {
    const ws = workspace({
      "src/widget.ts": "export const WIDGET_MARKER = 42;\n",
      // A file name carrying OSC 0 (the window title) and OSC 52 (the clipboard).
      "a\u001B]0;PWNED\u0007\u001B]52;c;ZWNobyBoaQ==\u0007.md": "x",
      ".claude/commands/audit.md": "---\ndescription: review a file\nargument-hint: <file>\n---\nPlease review CUSTOM-MARKER $ARGUMENTS now.\n",
    });
    const server = await scriptedServer(script);
    const t = start(ws, server);
    // .claude/commands is a project setting: the folder must be trusted for it to load.
    await t.waitFor("the trust prompt", (s) => s.includes("do you trust the files in this folder?"));
    t.keys("y");
    await t.waitFor("the dashboard", (s) => s.includes("Ask orca"));
    const capture = path.join(ws.dataDir, "..", "pane.out");
    t.tmux("pipe-pane", "-o", "-t", "e2e", `cat >> ${quote(capture)}`);

    // @ alone lists the workspace: the booby-trapped name is neither offered nor sent to the terminal.
    t.keys("-l", "@");
    await t.waitFor("the @ popup", (s) => s.includes("@src/"));
    expect(t.display("#{pane_title}")).not.toContain("PWNED");
    t.keys("C-u");
    await t.waitFor("the box emptied", (s) => !s.includes("@src/"));

    // @: the popup offers the folder, then the file; Tab completes.
    t.keys("-l", "look at @sr");
    await t.waitFor("the @ popup", (s) => s.includes("@src/"));
    t.keys("Tab");
    await t.waitFor("the folder's files", (s) => s.includes("@src/widget.ts"));
    t.keys("Tab");
    await t.waitFor("the completed mention", (s) => s.includes("look at @src/widget.ts"));
    t.keys("Enter");
    const first = await answered(server, 1);
    expect(userText(first)).toContain("WIDGET_MARKER = 42");
    expect(userText(first)).toContain('<attached-file path="src/widget.ts">');
    await t.waitFor("the attachment line", (s) => s.includes("[attached @src/widget.ts]"));

    // !command: its output on screen; the next prompt carries it.
    t.keys("-l", "!echo hi-from-shell");
    t.keys("Enter");
    await t.waitFor("the command's output", (s) => /^\s*│?\s*hi-from-shell/m.test(s) && s.includes("exit 0"));
    t.keys("-l", "and now?");
    t.keys("Enter");
    const second = await answered(server, 2);
    expect(userText(second)).toMatch(/<user-shell command="echo hi-from-shell" exit="0">\nhi-from-shell\n<\/user-shell>/);
    expect(userText(second)).toContain("and now?");

    // A custom command from .claude/commands with $ARGUMENTS.
    t.keys("-l", "/aud");
    await t.waitFor("the custom command in the popup", (s) => s.includes("/audit") && s.includes("review a file"));
    t.keys("-l", "it src/widget.ts");
    t.keys("Enter");
    const third = await answered(server, 3);
    expect(userText(third)).toBe("Please review CUSTOM-MARKER src/widget.ts now.");

    // /mode + Enter runs /mode, not the popup's first match (/model).
    t.keys("-l", "/mode");
    await t.waitFor("the popup", (s) => s.includes("/model"));
    t.keys("Enter");
    await t.waitFor("the mode line", (s) => s.includes("mode: default — asks before anything"));
    // /model refuses a path.
    t.keys("-l", "/model /foo");
    t.keys("Enter");
    await t.waitFor("the refusal", (s) => s.includes('✗ /model: "/foo" is not a model name'));

    // /doctor, /tools, /hooks: what the subcommands print, in the viewer.
    for (const [command, shows] of [
      ["/doctor", /sandbox: (on|unavailable)[\s\S]*programs:/],
      ["/tools", /built-in tools:[\s\S]*read_file/],
      ["/hooks", /hooks: none configured/],
    ] as const) {
      t.keys("-l", command);
      t.keys("Enter");
      await t.waitFor(command, (s) => shows.test(s));
      t.keys("Escape");
      await t.waitFor("the viewer to close", (s) => s.includes("Ask orca") && !shows.test(s));
    }

    // /copy: an OSC 52 sequence with the answer's code block, through tmux's passthrough.
    t.keys("-l", "give code");
    t.keys("Enter");
    await answered(server, 4);
    await t.waitFor("the answer", (s) => s.includes("ANSWER-END"));
    t.keys("-l", "/copy 1");
    t.keys("Enter");
    await t.waitFor("the copy notice", (s) => s.includes("copied code block 1 of 1"));
    const b64 = Buffer.from("echo copied-block", "utf8").toString("base64");
    await t.waitFor("the OSC 52 bytes", () => fs.existsSync(capture) && fs.readFileSync(capture, "latin1").includes(`]52;c;${b64}`));
    expect(fs.readFileSync(capture, "latin1")).toContain(`\x1bPtmux;\x1b\x1b]52;c;${b64}\x07\x1b\\`);

    // A long paste: collapsed in the box, sent whole.
    const pasted = Array.from({ length: 60 }, (_, i) => `line ${i} ${"x".repeat(90)}`).join("\n");
    t.tmux("set-buffer", "-b", "big", pasted);
    t.tmux("paste-buffer", "-p", "-b", "big", "-t", "e2e");
    await t.waitFor("the collapsed paste", (s) => s.includes(`[pasted ${pasted.length.toLocaleString("en-US")} chars, 60 lines]`));
    expect(t.screen()).not.toContain("line 30 xxx");
    t.keys("Enter");
    const fifth = await answered(server, 5);
    expect(userText(fifth)).toBe(pasted);
    await t.waitFor("the turn shown collapsed", (s) => s.includes(`noted ${pasted.length} chars`));
    expect(t.screen()).not.toContain("line 30 xxx");

    // After exit the alternate screen is gone; the last answer stays on the normal screen.
    t.keys("C-c");
    const after = await t.waitFor("orca to exit", (s) => /EXIT=\d+/.test(s));
    expect(after).toContain(`noted ${pasted.length} chars`);
    expect(fs.readFileSync(capture, "latin1")).not.toContain("PWNED");
  });
});

describe("the answer printed after exit", () => {
  it("is printed inert: an OSC 52 or a title in the model's answer acts on nothing", { timeout: 90_000 }, async () => {
    const clipboard = "\u001B]52;c;ZWNobyBQV05FRA==\u0007";
    const title = "\u001B]2;PWNED-TITLE\u0007";
    const server = await scriptedServer([{ text: `final${clipboard}${title}-answer`, usage }]);
    const t = start(workspace(), server);
    actOnEscapes(t);
    await t.waitFor("the dashboard", (s) => s.includes("Ask orca"));
    t.keys("-l", "hello");
    t.keys("Enter");
    await t.waitFor("the answer", (s) => s.includes("-answer"));
    t.keys("C-c");
    const after = await t.waitFor("orca to exit", (s) => /EXIT=\d+/.test(s));
    expect(after).toMatch(/final.*-answer/);
    expect(t.tmux("list-buffers")).toBe("");
    expect(t.display("#{pane_title}")).toBe("clean-title");
  });
});
