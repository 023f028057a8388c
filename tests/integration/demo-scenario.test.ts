/**
 * The `orca --demo` scenario on the real runtime (scripted server over HTTP, real tools, real
 * scheduler), without the terminal: its agents must report what happened, not what the script
 * hoped. The user's answer to the CHANGELOG write is the variable; a workspace where the fix is
 * already in shows an edit that cannot apply.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEMO_EDIT_MS, pacedEdits } from "../../src/cli/demo.js";
import type { OrcaEvent } from "../../src/events/types.js";
import { createDemoScript, DEMO_CONFIG, DEMO_PROMPT } from "../../src/model/demo-script.js";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { createSession } from "../../src/orchestrator/create.js";
import { boardFromEvents } from "../../src/orchestrator/task-board.js";
import type { Approver, PermissionAnswer, PermissionRequest } from "../../src/tools/approver.js";
import { ROOT, tempWorkspace, TEST_KEY, type TempWorkspace } from "../fixtures/harness.js";

/** A quarter of the default pace: quick, yet the editors keep their order into the scheduler. */
const SPEED = 4;

let ws: TempWorkspace | undefined;
let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  ws?.cleanup();
  server = undefined;
  ws = undefined;
});

/** Answers every permission request with `answer`, and remembers what it was asked. */
class ScriptedUser implements Approver {
  readonly decidedBy = "user" as const;
  readonly asked: PermissionRequest[] = [];
  constructor(private readonly answer: PermissionAnswer) {}
  request(request: PermissionRequest): Promise<PermissionAnswer> {
    this.asked.push(request);
    return Promise.resolve(this.answer);
  }
}

async function playDemo(answer: PermissionAnswer, edit?: (dir: string) => void) {
  ws = tempWorkspace();
  fs.cpSync(path.join(ROOT, "demo", "sample-project"), ws.dir, { recursive: true });
  edit?.(ws.dir);
  const configFile = path.join(ws.home, "demo-config.yaml");
  fs.writeFileSync(configFile, DEMO_CONFIG);
  server = await startScriptedServer(createDemoScript({ speed: SPEED }));
  const user = new ScriptedUser(answer);
  const setup = await createSession({
    workspace: ws.dir,
    configFile,
    overrides: { baseUrl: server.url, model: "orca-demo" },
    env: { OPENAI_API_KEY: TEST_KEY, ORCA_DATA_DIR: ws.dataDir },
    home: ws.home,
    packageDir: ROOT,
    approver: user,
    version: "0.0.0-test",
    wrapTool: pacedEdits(DEMO_EDIT_MS / SPEED),
  });
  const events: OrcaEvent[] = [];
  setup.session.bus.subscribe((e) => void events.push(e));
  setup.session.start();
  const result = await setup.session.run(DEMO_PROMPT);
  await setup.session.close(result.status);
  const said = (agentId: string) =>
    events
      .filter((e): e is Extract<OrcaEvent, { type: "assistant_message" }> => e.type === "assistant_message" && e.agentId === agentId)
      .map((e) => e.content)
      .filter(Boolean)
      .join("\n");
  return { result, events, user, said, dir: ws.dir };
}

describe("the demo scenario follows what happens", () => {
  it("a denied CHANGELOG write is reported as denied, with the user's reason, by the editor and the coordinator", { timeout: 60_000 }, async () => {
    const { result, user, said, dir, events } = await playDemo({ decision: "deny", reason: "no changelog please" });
    expect(result.status).toBe("done");
    expect(user.asked.map((r) => `${r.tool} ${(r.args as { path: string }).path}`)).toEqual(["write_file CHANGELOG.md"]);
    expect(fs.existsSync(path.join(dir, "CHANGELOG.md"))).toBe(false);

    expect(said("editor-2")).toContain('I did not write the CHANGELOG.md entry: the user denied it ("no changelog please").');
    expect(result.answer).toContain('- CHANGELOG.md: not written: you denied the write ("no changelog please").');
    // Nobody claims the entry that was never written.
    for (const agent of ["coordinator", "editor-1", "editor-2", "explorer-1", "tester-1"]) {
      expect(said(agent), agent).not.toMatch(/and a CHANGELOG\.md entry|notes the new function/);
    }
    // What did happen is reported: both edits (serialised), green tests.
    expect(result.answer).toContain("- src/math.js: `subtract` now returns a - b; new `multiply(a, b)`.");
    expect(result.answer).toContain("- Tests: Ran `npm test`: 2 passed, 0 failed.");
    expect(result.answer).toContain("nothing was lost");

    // One editor's edit of src/math.js waited for the other's: the scheduler's own record. The
    // script sends editor-2's a beat later, but on a loaded machine that beat is not an order, so
    // either may be the one that waits. (It may also wait for a read the explorer still runs.)
    const queued = events.filter((e): e is Extract<OrcaEvent, { type: "tool_queued" }> => e.type === "tool_queued" && e.name === "edit_file");
    const one = queued.find((e) => e.agentId === "editor-1")!;
    const other = queued.find((e) => e.agentId === "editor-2")!;
    expect(other.waitsFor.includes(one.callId) || one.waitsFor.includes(other.callId), JSON.stringify([one, other])).toBe(true);

    // The board: four tasks with owners, the tests' task after both edits, all done.
    expect(boardFromEvents(events).tasks.map((t) => `${t.id} ${t.title}: ${t.status} (${t.owner ?? "-"})`)).toEqual([
      "t1 map the project: done (explorer-1)",
      "t2 fix subtract: done (editor-1)",
      "t3 add multiply: done (editor-2)",
      "t4 run the tests: done (tester-1)",
    ]);
    // The two editors' scopes meet on src/math.js: said when the second was delegated.
    expect(events.filter((e) => e.type === "task_overlap")).toEqual([expect.objectContaining({ taskId: "t3", otherTaskId: "t2", otherAgentId: "editor-1", files: ["src/math.js"], decision: "warned" })]);
    // And one sibling told the other.
    expect(events.filter((e) => e.type === "agent_message").map((e) => `${e.agentId} → ${"to" in e ? e.to : ""}`)).toEqual(["editor-2 → editor-1"]);
  });

  it("an approved write is reported as written", { timeout: 60_000 }, async () => {
    const { result, said, dir } = await playDemo({ decision: "once" });
    expect(fs.readFileSync(path.join(dir, "CHANGELOG.md"), "utf8")).toContain("multiply(a, b)");
    expect(said("editor-2")).toContain("and a CHANGELOG.md entry.");
    expect(result.answer).toContain("- CHANGELOG.md: notes the new function.");
    expect(result.answer).toContain("nothing was lost");
  });

  it("an edit that cannot apply is reported as not made, and nobody claims it", { timeout: 60_000 }, async () => {
    // subtract is already right: the fix's old_string is not in the file.
    const { result, said } = await playDemo({ decision: "once" }, (dir) => {
      const file = path.join(dir, "src", "math.js");
      fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("return b - a;", "return a - b;"));
    });
    expect(said("editor-1")).toBe("I could not fix subtract: edit_file: old_string not found in src/math.js. src/math.js is unchanged.");
    expect(said("editor-1")).not.toContain("Fixed subtract");
    expect(said("coordinator")).toContain("Not every edit landed (editor [fix subtract] changed nothing)");
    expect(said("coordinator")).not.toContain("Both edits landed");
    expect(result.answer).not.toContain("nothing was lost");
    // The file itself has a - b (it always had): the coordinator read it and says so.
    expect(result.answer).toContain("`subtract` now returns a - b");
  });
});
