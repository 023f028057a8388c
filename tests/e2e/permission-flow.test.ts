/**
 * Issue 27 in a real terminal: a coordinator with three sub-agents (an explorer reading, two
 * testers running commands) on a scripted model, orca's dashboard in tmux. Both testers ask for
 * `npm test` at once: the dialog names tester-1 and shows tester-2 waiting; "always" saves the
 * suggested `bash(npm test *)`, which also approves tester-2's waiting call, and a later
 * `npm test src/a.test.ts` does not ask. A write outside it asks again; Esc there denies that call
 * only, and the run goes on to the coordinator's report. Needs a build; CI is removed from orca's
 * environment (with CI set, Ink writes only the final frame).
 */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedReply } from "../../src/model/scripted.js";
import { agentOf, perAgent } from "../fixtures/harness.js";
import { orcaInTmux, scriptedServer, workspace } from "./rig.js";

const bash = (command: string): ScriptedReply => ({ toolCalls: [{ name: "bash", args: { command } }] });
const delegate = (agent: string, task: string, label: string) => ({ name: "delegate", args: { agent, task, label } });
const toolTexts = (r: RecordedRequest) => r.body.messages.filter((m) => m.role === "tool").map((m) => m.content ?? "");

describe("permission flow in tmux", () => {
  it("the suggested prefix rule stops npm test asking again and approves the waiting call; the queue is shown; Esc denies one call and the run goes on", { timeout: 120_000 }, async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("explorer", "read the notes", "notes"), delegate("tester", "run the tests", "unit"), delegate("tester", "run the tests too", "again")] }, { text: "report: all three came back" }],
        "explorer-1": [{ toolCalls: [{ name: "read_file", args: { path: "notes.md" } }] }, { text: "the notes say hello" }],
        "tester-1": [bash("npm test"), bash("npm test src/a.test.ts"), bash("echo no > denied.txt"), { text: "tester-1 finished" }],
        "tester-2": [bash("npm test"), { text: "tester-2 finished" }],
      }),
    );
    const ws = workspace({ "notes.md": "hello\n" });
    const t = orcaInTmux("flow", ws, ["--base-url", server.url, "go"], { columns: 140, rows: 44, env: ["ORCA_DIALOG_ARM_MS=1500"] });

    // Both testers ask for npm test: one dialog, the other counted with who it is.
    await t.waitFor(
      "npm test's dialog with the other tester waiting",
      (s) => {
        expect(s).toMatch(/Permission: tester-\d \[(unit|again)\] wants to run bash/);
        expect(s).toContain("npm test");
        expect(s).toMatch(/\+1 more waiting: tester-\d/);
      },
      40_000,
    );
    await t.waitFor("the dialog armed, offering the prefix rule", (s) => s.includes("y once") && s.includes('"always" adds the session rule bash(npm test *)'));
    t.keys("a");

    // The other tester's waiting call was covered, and tester-1's next npm test does not ask: the next dialog is the write.
    await t.waitFor(
      "the next dialog: a command npm test's rule does not cover",
      (s) => {
        expect(s).toContain("Permission:");
        expect(s).toContain("echo no > denied.txt");
        expect(s).not.toMatch(/more waiting/);
      },
      40_000,
    );
    await t.waitFor("the dialog armed", (s) => s.includes("y once") && s.includes("deny this call (the run goes on)"));
    t.keys("Escape");

    await t.waitFor(
      "the coordinator's report",
      (s) => {
        expect(s).toContain("report: all three came back");
        expect(s).not.toContain("Permission:");
      },
      40_000,
    );
    expect(fs.existsSync(ws.file("denied.txt"))).toBe(false);
    const tester1 = server.requests.filter((r) => agentOf(r) === "tester-1");
    expect(tester1).toHaveLength(4);
    expect(toolTexts(tester1[3]!).at(-1)).toMatch(/denied by user/);
    // npm test src/a.test.ts ran without a dialog (it ran: its result is no denial).
    expect(toolTexts(tester1[2]!).at(-1)).not.toMatch(/denied/);
    expect(server.requests.filter((r) => agentOf(r) === "tester-2").length).toBe(2);
    t.keys("C-c");
  });
});
