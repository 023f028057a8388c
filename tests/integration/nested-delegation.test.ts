import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { OrcaEvent } from "../../src/events/types.js";
import { createSession } from "../../src/orchestrator/create.js";
import { HeadlessApprover } from "../../src/tools/headless-approver.js";
import { agentOf, perAgent, ROOT, runOrca, sessionLogs, TEST_KEY } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * Issue 33: with `agents.max_parallel: 1`, a coordinator delegating `mid` that delegates `leaf`
 * ended with exit 13 after 0.3 s — no output, no error, no session_finished: mid held the one slot
 * while its child queued for it. A parent waiting on its children now gives its slot up.
 */

const MID = ["---", "name: mid", "description: Hands a part of its task on.", "tools: [delegate, read_file]", "model: inherit", "---", "You delegate."].join("\n");
const delegate = (agent: string, label: string) => ({ toolCalls: [{ name: "delegate", args: { agent, task: `do the ${label} part`, label } }] });

describe("nested delegation under agents.max_parallel: 1", () => {
  it("a three-level tree runs to the end: each parent gives its slot to its child while it waits", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [delegate("mid", "middle"), { text: "all-done" }],
        "mid-1": [
          // Two children in one turn: they take the one slot in turn, and mid takes it back after.
          { toolCalls: [
            { name: "delegate", args: { agent: "explorer", task: "first leaf", label: "leaf-a" } },
            { name: "delegate", args: { agent: "explorer", task: "second leaf", label: "leaf-b" } },
          ] },
          { toolCalls: [{ name: "read_file", args: { path: "a.txt" } }] },
          { text: "mid-done" },
        ],
        "explorer-1": [{ toolCalls: [{ name: "read_file", args: { path: "a.txt" } }] }, { text: "leaf-a-done" }],
        "explorer-2": [{ toolCalls: [{ name: "read_file", args: { path: "a.txt" } }] }, { text: "leaf-b-done" }],
      }),
    );
    const ws = workspace({
      "a.txt": "a\n",
      ".orca/config.yaml": "agents:\n  max_parallel: 1\n",
      ".orca/agents/mid.md": MID,
    });
    const run = await runOrca(["-p", "go", "--base-url", server.url], { ws, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("all-done\n");
    // One sub-agent works at a time: each leaf runs whole, then the other, and mid goes on after both.
    const working = server.requests.map(agentOf).filter((a) => a !== "coordinator");
    expect([
      ["mid-1", "explorer-1", "explorer-1", "explorer-2", "explorer-2", "mid-1", "mid-1"],
      ["mid-1", "explorer-2", "explorer-2", "explorer-1", "explorer-1", "mid-1", "mid-1"],
    ]).toContainEqual(working);
    const events = readLog(sessionLogs(ws)[0]!).events;
    expect(events.at(-1)).toMatchObject({ type: "session_finished", status: "done" });
    expect(fs.readdirSync(`${ws.dataDir}/sessions`).filter((f) => f.endsWith(".lock"))).toEqual([]);
  }, 90_000);
});

describe("a run that cannot go on", () => {
  it("fails with one line and session_finished instead of a silent exit when the process runs out of work (headless)", async () => {
    const ws = workspace();
    // The session stands in for a stuck one: its run waits on a promise nothing will settle, and
    // nothing else keeps the process alive. What is under test is runHeadless noticing.
    const script = ws.file("stuck.mjs");
    fs.writeFileSync(
      script,
      `import { runHeadless } from ${JSON.stringify(`${ROOT}/dist/cli/headless.js`)};
import { EventBus } from ${JSON.stringify(`${ROOT}/dist/events/bus.js`)};
const bus = new EventBus("s");
let settle;
const usage = { input: 0, output: 0, cached: 0 };
const session = {
  bus, id: "s", rootAgentId: "root", modelName: "gpt-4o", logFile: null, redactor: { redactJson: (s) => s },
  start() {},
  run: () => new Promise((resolve) => (settle = resolve)),
  failStuckRun(message) {
    bus.emit({ type: "error", agentId: "root", where: "run", message });
    settle({ status: "failed", result: message, answer: "", usage, durationMs: 0 });
  },
  async close(status) { bus.emit({ type: "session_finished", agentId: "root", status, durationMs: 0 }); },
  totalUsage: () => usage,
  agents: () => [],
};
process.exitCode = await runHeadless({ session, config: { model: {} }, warnings: [], killChildrenSync() {}, hooks: {} }, "go", "stream-json", process);
`,
    );
    const child = spawnSync(process.execPath, [script], { encoding: "utf8", timeout: 30_000 });
    expect(child.status).toBe(1);
    expect(child.stderr.trim().split("\n")).toEqual([`orca: the run cannot go on: every agent is waiting and nothing is left that could wake one (a bug in orca; the session log has the detail)`]);
    const types = child.stdout.trim().split("\n").map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types).toEqual(["error", "session_finished"]);
  }, 60_000);

  it("Session.failStuckRun ends a pending run as failed, says why once, and close() still finishes the session", async () => {
    const server = await scriptedServer([{ kind: "hang" }]);
    const ws = workspace();
    const setup = await createSession({
      workspace: ws.dir,
      overrides: { baseUrl: server.url },
      env: { OPENAI_API_KEY: TEST_KEY, ORCA_DATA_DIR: ws.dataDir },
      home: ws.home,
      packageDir: ROOT,
      approver: new HeadlessApprover(false),
      version: "0.0.0-test",
    });
    const events: OrcaEvent[] = [];
    setup.session.bus.subscribe((e) => void events.push(e));
    setup.session.start();
    const running = setup.session.run("go");
    await vi.waitFor(() => expect(server.requests).toHaveLength(1), { timeout: 20_000, interval: 10 });
    setup.session.failStuckRun("stuck for the test");
    setup.session.failStuckRun("said twice");
    const result = await running;
    expect(result.status).toBe("failed");
    await setup.session.close(result.status);
    expect(events.filter((e) => e.type === "error").map((e) => (e as { message: string }).message)).toEqual(["stuck for the test"]);
    expect(events.at(-1)).toMatchObject({ type: "session_finished", status: "failed" });
  }, 60_000);
});
