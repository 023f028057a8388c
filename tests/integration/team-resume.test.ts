import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import { boardFromEvents, type Task } from "../../src/orchestrator/task-board.js";
import type { OrcaEvent } from "../../src/events/types.js";
import type { RecordedRequest, ScriptedReply } from "../../src/model/scripted.js";
import { INTERRUPTED_RESULT } from "../../src/sessions/rebuild.js";
import { crashWithTwoTesters, roles, suiteOf } from "../fixtures/team-crash.js";
import { agentOf, expectValidHistories, perAgent, runOrca, sessionLogs, toolResults, type OrcaRun } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * Issue #31, item 4: a run killed (kill -9) while two sub-agents work resumes as a team. Each
 * sub-agent goes on from its own history — its bash call that was in flight is "interrupted" and
 * never re-run — and the coordinator's delegate calls, held open, get their reports as they would
 * have. `--no-continue` reopens the session as before: the calls are interrupted, nothing goes on.
 */

/** The second run's testers: one more command (proof they work on), then their answer. */
function testersGoOn(): Record<string, Array<(r: RecordedRequest) => ScriptedReply>> {
  const tester = [
    (r: RecordedRequest): ScriptedReply => ({ toolCalls: [{ id: `call_finish_${suiteOf(r)}`, name: "bash", args: { command: `echo finished > ${suiteOf(r)}.done` } }] }),
    (r: RecordedRequest): ScriptedReply => ({ text: `suite ${suiteOf(r).toUpperCase()}: 12 passed` }),
  ];
  return { "tester-1": tester, "tester-2": tester };
}

describe("a crashed run resumes as a team", () => {
  it("kill -9 with two sub-agents mid-call, then --resume ID -p: both go on from their histories, no call runs twice, the coordinator gets their reports, the board shows both tasks done", { timeout: 120_000 }, async () => {
    const ws = workspace();
    const id = await crashWithTwoTesters(ws, scriptedServer, { board: true });
    const file = sessionLogs(ws)[0]!;
    // At the kill each tester owns its task, in progress.
    const owners = boardFromEvents(readLog(file).events).tasks.map((t) => [t.id, t.status, t.owner]);
    expect(owners.map(([task, status]) => [task, status])).toEqual([
      ["t1", "in_progress"],
      ["t2", "in_progress"],
    ]);
    // A crash can tear the last line; resume says so in one line and goes on.
    fs.appendFileSync(file, '{"type":"tool_finished","ts":17');

    // While the team goes on, the session is this orca's: a second resume of it is refused.
    let concurrent: OrcaRun | undefined;
    const holdsLock = async (): Promise<ScriptedReply> => {
      concurrent = await runOrca(["--resume", id, "-p", "me too", "--base-url", "http://127.0.0.1:59/v1"], { ws });
      return { text: "both suites passed" };
    };
    const second = await scriptedServer(perAgent({ ...testersGoOn(), coordinator: [holdsLock] }));
    const resumed = await runOrca(["--resume", id, "-p", "continue", "--base-url", second.url, "--yes", "--output-format", "json"], { ws: ws, timeoutMs: 90_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/skipped \(torn last line\)/);
    expect(resumed.stderr).toContain("orca: the stopped run goes on: coordinator, tester-1, tester-2 continue from their own histories");
    const out = JSON.parse(resumed.stdout) as { result: string; agents: { id: string; label?: string; parent_id: string | null; status: string }[]; tasks?: Task[] };
    expect(out.result).toBe("both suites passed");
    expect(concurrent?.code).toBe(2);
    expect(concurrent?.stderr).toMatch(/^orca: session \S+ is in use by pid \d+/);
    // The original tree: same ids, labels and parent.
    expect(out.agents.map((a) => [a.id, a.parent_id, a.status])).toEqual([
      ["coordinator", null, "done"],
      ["tester-1", "coordinator", "done"],
      ["tester-2", "coordinator", "done"],
    ]);
    expect(out.agents.map((a) => a.label ?? "").sort()).toEqual(["", "suite A", "suite B"]);
    // The board: each task done, owned by the agent that had it at the kill and was continued.
    const labelOf = (agent: string | undefined) => out.agents.find((a) => a.id === agent)?.label;
    expect(out.tasks?.map((t) => [t.id, t.status, t.owner])).toEqual(owners.map(([task, , owner]) => [task, "done", owner]));
    expect(out.tasks?.map((t) => labelOf(t.owner))).toEqual(["suite A", "suite B"]);

    // The call in flight at the kill was never run again, nor the one that had finished: one line each.
    expect(ws.read("a.log")).toBe("a\n");
    expect(ws.read("b.log")).toBe("b\n");
    expect(ws.read("a.done")).toBe("finished\n");
    expect(ws.read("b.done")).toBe("finished\n");

    expectValidHistories(second.requests);
    for (const tester of ["tester-1", "tester-2"]) {
      const [firstRequest] = second.requests.filter((r) => agentOf(r) === tester);
      // Its own history, from where it stopped, with no new task: the interrupted call, said so.
      expect(roles(firstRequest!)).toEqual(["system", "user", "assistant", "tool"]);
      const suite = suiteOf(firstRequest!);
      expect(toolResults(firstRequest!).get(`call_run_${suite}`)).toBe(suite === "a" ? INTERRUPTED_RESULT : "(no output)\n[exit code: 0]");
    }
    // The coordinator asked once, after both had ended: its delegate calls answered with their reports.
    const coordinator = second.requests.filter((r) => agentOf(r) === "coordinator");
    expect(coordinator).toHaveLength(1);
    expect(roles(coordinator[0]!)).toEqual(["system", "user", "assistant", "tool", "tool", "assistant", "tool", "tool", "user"]);
    const answers = toolResults(coordinator[0]!);
    expect(answers.get("call_a")).toMatch(/^agent: tester-\d \(tester, "suite A"\)\nstatus: done\n[\s\S]*suite A: 12 passed/);
    expect(answers.get("call_b")).toMatch(/^agent: tester-\d \(tester, "suite B"\)\nstatus: done\n[\s\S]*suite B: 12 passed/);
    expect(coordinator[0]!.body.messages.at(-1)?.content).toBe("continue");

    // The log: which agents went on, and the held calls' answers, after the resume's session_started.
    const events = readLog(file).events;
    const resumedAt = events.findIndex((e) => e.type === "session_started" && e.resumedFrom === id);
    const after = events.slice(resumedAt);
    expect(after.filter((e) => e.type === "agent_continued").map((e) => e.agentId)).toEqual(["coordinator", "tester-1", "tester-2"]);
    // Each task was done once, by orca as its owner ended, and the board the log keeps agrees.
    const taskUpdates = after.filter((e): e is Extract<OrcaEvent, { type: "task_updated" }> => e.type === "task_updated");
    expect(taskUpdates.map((e) => [e.taskId, e.status, e.agentId, e.by]).sort()).toEqual(owners.map(([task, , owner]) => [task, "done", owner, "orca"]));
    expect(boardFromEvents(events).tasks).toEqual(out.tasks);
    expect(after.filter((e): e is Extract<OrcaEvent, { type: "tool_finished" }> => e.type === "tool_finished" && e.agentId === "coordinator").map((e) => [e.callId, e.status])).toEqual(
      expect.arrayContaining([
        ["call_a", "ok"],
        ["call_b", "ok"],
      ]),
    );

    // Resumed again: the coordinator's history holds the reports, not "interrupted"; nothing goes on by itself.
    const third = await scriptedServer([{ text: "nothing left" }]);
    const again = await runOrca(["--resume", id, "-p", "anything left?", "--base-url", third.url], { ws });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain("goes on");
    expectValidHistories(third.requests);
    const rebuilt = toolResults(third.requests[0]!);
    expect(rebuilt.get("call_a")).toBe(answers.get("call_a"));
    expect(rebuilt.get("call_b")).toBe(answers.get("call_b"));
  });

  it("--no-continue reopens it as before: the delegate calls are interrupted and no sub-agent goes on", { timeout: 120_000 }, async () => {
    const ws = workspace();
    const id = await crashWithTwoTesters(ws, scriptedServer);
    const second = await scriptedServer(perAgent({ coordinator: [{ text: "I will re-plan" }] }));
    const resumed = await runOrca(["--resume", id, "--no-continue", "-p", "what now?", "--base-url", second.url, "--yes"], { ws });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim()).toBe("I will re-plan");
    expect(second.requests.map(agentOf)).toEqual(["coordinator"]);
    const answers = toolResults(second.requests[0]!);
    expect(answers.get("call_a")).toBe(INTERRUPTED_RESULT);
    expect(answers.get("call_b")).toBe(INTERRUPTED_RESULT);
    expect(readLog(sessionLogs(ws)[0]!).events.some((e) => e.type === "agent_continued")).toBe(false);
  });

  it("--no-continue without --resume or --continue is a usage error", async () => {
    const ws = workspace();
    const run = await runOrca(["--no-continue", "-p", "x", "--base-url", "http://127.0.0.1:59/v1"], { ws });
    expect(run.code).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe("orca: --no-continue only applies with --resume or --continue");
  });
});
