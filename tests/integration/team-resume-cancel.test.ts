import fs from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readLog } from "../../src/events/log.js";
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from "../../src/model/scripted.js";
import { createSession, type SessionSetup } from "../../src/orchestrator/create.js";
import { rebuildSession } from "../../src/sessions/rebuild.js";
import { RESUMED_IDLE } from "../../src/orchestrator/team-resume.js";
import { planResume, type ResumePlan } from "../../src/sessions/resume-plan.js";
import { HeadlessApprover } from "../../src/tools/headless-approver.js";
import { testOrchestra } from "../fixtures/orchestra.js";
import { agentOf, expectValidHistories, perAgent, ROOT, TEST_KEY, tempWorkspace, toolResults, type TempWorkspace } from "../fixtures/harness.js";

/**
 * Issue #31, item 4, in process: a run *cancelled* while a background sub-agent works and the
 * coordinator waits for it (wait_agents). The resumed session continues both: the sub-agent from
 * its own history, and the coordinator's wait — cancelled, but never read by a model — is answered
 * by the sub-agent's result, in the history and in the log (a later resume rebuilds that answer).
 */

const servers: ScriptedServer[] = [];
const setups: SessionSetup[] = [];
let ws: TempWorkspace | undefined;

afterEach(async () => {
  for (const s of setups.splice(0)) await s.session.close();
  await Promise.all(servers.splice(0).map((s) => s.close()));
  ws?.cleanup();
  ws = undefined;
});

async function server(script: Parameters<typeof startScriptedServer>[0]): Promise<ScriptedServer> {
  const s = await startScriptedServer(script);
  servers.push(s);
  return s;
}

const HANG: ScriptedReply = { kind: "hang" };
/** An upper bound for a condition on a loaded machine, not a pace. */
const WAIT = { timeout: 30_000, interval: 20 };

/** The logged session `id`, resumed in process on `baseUrl` (the team not yet continued). */
async function resume(w: TempWorkspace, id: string, baseUrl: string): Promise<{ resumed: SessionSetup; plan: ResumePlan }> {
  const plan = planResume({ dataDir: w.dataDir, resume: id, workspace: w.dir });
  const resumed = await createSession({
    workspace: w.dir,
    overrides: { baseUrl },
    env: { OPENAI_API_KEY: TEST_KEY, ORCA_DATA_DIR: w.dataDir },
    home: w.home,
    packageDir: ROOT,
    approver: new HeadlessApprover(true),
    version: "0.0.0-test",
    resume: plan,
  });
  setups.push(resumed);
  resumed.session.start();
  return { resumed, plan };
}

const SCOUT = ["---", "name: scout", "description: Looks around.", "tools: [read_file]", "model: inherit", "---", "You look."].join("\n");
const MID = ["---", "name: mid", "description: Hands a part of its task on.", "tools: [delegate, read_file]", "model: inherit", "---", "You delegate."].join("\n");

describe("a cancelled run resumes as a team", () => {
  it("a background sub-agent and the coordinator's wait_agents go on; the wait gets its result", { timeout: 60_000 }, async () => {
    ws = tempWorkspace();
    const first = await server(
      perAgent({
        coordinator: [
          { toolCalls: [{ id: "call_bg", name: "delegate", args: { agent: "explorer", task: "map the modules", label: "map", background: true } }] },
          { toolCalls: [{ id: "call_wait", name: "wait_agents", args: { ids: ["explorer-1"] } }] },
        ],
        "explorer-1": [() => HANG],
      }),
    );
    const orchestra = await testOrchestra(ws, first.url);
    setups.push(orchestra);
    const running = orchestra.session.run("map it");
    // The coordinator waits in wait_agents while its background explorer is mid-request: then Esc.
    await vi.waitFor(() => {
      expect(first.requests.map(agentOf).sort()).toEqual(["coordinator", "coordinator", "explorer-1"]);
      expect(orchestra.session.agents().find((a) => a.id === "explorer-1")?.status).toBe("running");
    }, WAIT);
    await vi.waitFor(() => expect(readLog(orchestra.session.logFile!).events.some((e) => e.type === "tool_started" && e.callId === "call_wait")).toBe(true), WAIT);
    orchestra.session.cancel();
    expect((await running).status).toBe("cancelled");
    await orchestra.session.close("cancelled");
    setups.pop();

    const second = await server(perAgent({ "explorer-1": [{ text: "three modules: a, b, c" }], coordinator: [{ text: "the map is done" }] }));
    const { resumed, plan } = await resume(ws, orchestra.session.id, second.url);
    expect(resumed.session.continuing).toEqual(["coordinator", "explorer-1"]);
    const result = await resumed.session.run(null);
    expect(result.status).toBe("done");
    expect(result.answer).toBe("the map is done");
    expect(resumed.session.continuing).toEqual([]);
    expect(resumed.session.agents().map((a) => [a.id, a.label, a.parentId, a.status])).toEqual([
      ["coordinator", undefined, undefined, "done"],
      ["explorer-1", "map", "coordinator", "done"],
    ]);

    expectValidHistories(second.requests);
    // The explorer from its own history (its task; the cancelled request left nothing), no new message.
    const explorer = second.requests.filter((r) => agentOf(r) === "explorer-1");
    expect(explorer.map((r) => r.body.messages.map((m) => m.role))).toEqual([["system", "user"]]);
    // The coordinator asked once, its wait answered with the explorer's result, and no message added.
    const coordinator = second.requests.filter((r) => agentOf(r) === "coordinator");
    expect(coordinator).toHaveLength(1);
    expect(coordinator[0]!.body.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool"]);
    const waited = toolResults(coordinator[0]!).get("call_wait")!;
    expect(waited).toMatch(/^1 of 1 ended\n--- explorer-1 ---\nagent: explorer-1 \(explorer, "map"\)\nstatus: done\n/);
    expect(waited).toContain("three modules: a, b, c");
    await resumed.session.close("done");
    setups.pop();

    // The log keeps that answer: a later resume rebuilds it where "cancelled while waiting" stood.
    const rebuilt = rebuildSession(readLog(plan.file).events);
    const history = rebuilt.agents.find((a) => a.id === "coordinator")!.history;
    expect(history.find((m) => m.role === "tool" && m.toolCallId === "call_wait")?.content).toBe(waited);
  });
  it("a three-level tree under max_parallel 1: the leaf goes on, its report answers the middle one's delegate, whose report answers the coordinator's", { timeout: 60_000 }, async () => {
    ws = tempWorkspace({ ".orca/config.yaml": "agents:\n  max_parallel: 1\n", ".orca/agents/mid.md": MID, "a.txt": "a\n" });
    const first = await server(
      perAgent({
        coordinator: [{ toolCalls: [{ id: "call_mid", name: "delegate", args: { agent: "mid", task: "do the middle part", label: "middle" } }] }],
        "mid-1": [{ toolCalls: [{ id: "call_leaf", name: "delegate", args: { agent: "explorer", task: "read a.txt", label: "leaf" } }] }],
        "explorer-1": [() => HANG],
      }),
    );
    const orchestra = await testOrchestra(ws, first.url);
    setups.push(orchestra);
    const running = orchestra.session.run("go");
    await vi.waitFor(() => expect(first.requests.map(agentOf)).toEqual(["coordinator", "mid-1", "explorer-1"]), WAIT);
    orchestra.session.cancel();
    expect((await running).status).toBe("cancelled");
    await orchestra.session.close("cancelled");
    setups.pop();

    const second = await server(
      perAgent({
        "explorer-1": [{ toolCalls: [{ id: "call_read", name: "read_file", args: { path: "a.txt" } }] }, { text: "LEAF: a.txt says a" }],
        "mid-1": [{ text: "MIDDLE: the leaf read a" }],
        coordinator: [{ text: "ALL: done" }],
      }),
    );
    const { resumed } = await resume(ws, orchestra.session.id, second.url);
    expect(resumed.session.continuing).toEqual(["coordinator", "mid-1", "explorer-1"]);
    const result = await resumed.session.run(null);
    expect(result.status).toBe("done");
    expect(result.answer).toBe("ALL: done");
    expectValidHistories(second.requests);
    // Leaf first, then each parent once, each seeing its held delegate answered by its child's report.
    expect(second.requests.map(agentOf)).toEqual(["explorer-1", "explorer-1", "mid-1", "coordinator"]);
    expect(toolResults(second.requests[2]!).get("call_leaf")).toMatch(/^agent: explorer-1 \(explorer, "leaf"\)\nstatus: done\n[\s\S]*LEAF: a.txt says a/);
    expect(toolResults(second.requests[3]!).get("call_mid")).toMatch(/^agent: mid-1 \(mid, "middle"\)\nstatus: done\n[\s\S]*MIDDLE: the leaf read a/);
    expect(resumed.session.agents().map((a) => [a.id, a.parentId, a.status])).toEqual([
      ["coordinator", undefined, "done"],
      ["mid-1", "coordinator", "done"],
      ["explorer-1", "mid-1", "done"],
    ]);
  });
  it("a coordinator that had answered and waited for a background sub-agent that cannot go on (its definition is gone) is told RESUMED_IDLE and finishes", { timeout: 60_000 }, async () => {
    ws = tempWorkspace({ ".orca/agents/scout.md": SCOUT });
    const first = await server(
      perAgent({
        coordinator: [{ toolCalls: [{ id: "call_bg", name: "delegate", args: { agent: "scout", task: "look around", background: true } }] }, { text: "the scout is out; its report follows" }],
        "scout-1": [() => HANG],
      }),
    );
    const orchestra = await testOrchestra(ws, first.url);
    setups.push(orchestra);
    const running = orchestra.session.run("look");
    // The coordinator has answered and sleeps until its background scout ends: then Esc.
    await vi.waitFor(() => {
      expect(first.requests.map(agentOf).sort()).toEqual(["coordinator", "coordinator", "scout-1"]);
      expect(readLog(orchestra.session.logFile!).events.some((e) => e.type === "agent_waiting" && e.agentId === "coordinator")).toBe(true);
    }, WAIT);
    orchestra.session.cancel();
    expect((await running).status).toBe("cancelled");
    await orchestra.session.close("cancelled");
    setups.pop();

    fs.rmSync(ws.file(".orca/agents/scout.md"));
    const second = await server(perAgent({ coordinator: [{ text: "wrapped up without the scout" }] }));
    const { resumed } = await resume(ws, orchestra.session.id, second.url);
    expect(resumed.session.continuing).toEqual(["coordinator"]);
    const result = await resumed.session.run(null);
    expect(result.status).toBe("done");
    expect(result.answer).toBe("wrapped up without the scout");
    expectValidHistories(second.requests);
    expect(second.requests.map(agentOf)).toEqual(["coordinator"]);
    const messages = second.requests[0]!.body.messages;
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
    expect(messages.at(-2)?.content).toBe("the scout is out; its report follows");
    expect(messages.at(-1)?.content).toBe(RESUMED_IDLE);
  });
});
