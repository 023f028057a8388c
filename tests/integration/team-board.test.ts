/**
 * Issue 31, the task board through the real bin and a scripted model: a coordinator builds a board
 * of three tasks with a dependency; delegating the blocked one is refused until the first is done;
 * stream-json carries the task events and the json result the board; a delegation whose scope
 * meets a running task's warns, asks (agents.on_overlap: ask) or refuses.
 */
import { describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedServer } from "../../src/model/scripted.js";
import { acks, events, gate, requestsOf } from "../fixtures/team.js";
import { expectValidHistories, perAgent, runOrca } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

const call = (name: string, args: object) => ({ name, args });
/** The results of the last round a request carried (those after its last assistant message), in call order. */
function lastRound(request: RecordedRequest): string[] {
  const messages = request.body.messages;
  let at = messages.length;
  while (at > 0 && messages[at - 1]!.role !== "assistant") at--;
  return messages.slice(at).filter((m) => m.role === "tool").map((m) => m.content ?? "");
}
/** The results the coordinator's request number `n` (0-based) carried for its previous turn. */
const resultsAt = (s: ScriptedServer, n: number) => lastRound(requestsOf(s, "coordinator")[n]!);
const WS = { "src/a.ts": "export const a = 1;\n", "src/b.ts": "export const b = 2;\n", "docs/guide.md": "# guide\n" };

describe("the task board (orca -p)", () => {
  it("three tasks with a dependency: the blocked one is refused until the first is done; the events and the board are in stream-json", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: acks([
          {
            toolCalls: [
              call("task_create", { title: "map the code", scope: ["src/**"] }),
              call("task_create", { title: "document it", scope: ["docs/**"] }),
            ],
          },
          { toolCalls: [call("task_create", { title: "write the summary", depends_on: ["t1"], scope: ["docs/summary.md"] })] },
          // Blocked: t1 is still pending.
          { toolCalls: [call("delegate", { agent: "explorer", task: "summarise", task_id: "t3" })] },
          { toolCalls: [call("delegate", { agent: "explorer", task: "map src", task_id: "t1" })] },
          { toolCalls: [call("delegate", { agent: "explorer", task: "summarise", task_id: "t3" })] },
          { toolCalls: [call("task_list", {})] },
          { text: "board-done" },
        ]),
        "explorer-1": acks([
          { toolCalls: [call("my_task", {}), call("my_task_update", { id: "t2", notes: "not mine" })] },
          { toolCalls: [call("my_task_update", { notes: "two modules: a, b" })] },
          { text: "mapped: a.ts, b.ts" },
        ]),
        "explorer-2": acks([{ toolCalls: [call("my_task", {})] }, { text: "summary ready" }]),
      }),
    );
    const ws = workspace(WS);
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "stream-json"], { ws, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);

    const [refusedFirst] = resultsAt(server, 3);
    expect(refusedFirst).toMatch(/^Error: task t3 "write the summary" cannot be delegated yet: it depends on t1 "map the code" \(pending\), not done/);
    expect(resultsAt(server, 4)[0]).toMatch(/status: done/);
    expect(resultsAt(server, 5)[0]).not.toMatch(/^Error/);
    const list = resultsAt(server, 6)[0]!;
    expect(list).toContain("t1 [done] map the code · owner explorer-1 · scope src/** · notes: two modules: a, b");
    expect(list).toContain("t2 [pending] document it · no owner");
    expect(list).toContain("t3 [done] write the summary · owner explorer-2 · depends on t1");

    // The sub-agent sees its own task, and cannot touch another's.
    const [mine, notMine] = lastRound(requestsOf(server, "explorer-1")[1]!);
    expect(mine).toContain("t1 [in_progress] map the code · owner explorer-1");
    expect(notMine).toBe("Error: t2 is not a task of yours");
    // Its task text tells it which task it is.
    expect(JSON.stringify(requestsOf(server, "explorer-2")[0]!.body.messages)).toContain('This is task t3 \\"write the summary\\"');

    const log = events(run.stdout);
    const team = log.filter((e) => e.type === "task_created" || e.type === "task_updated");
    expect(team.map((e) => [e.type, e.taskId, "status" in e ? (e.status ?? "") : "", "owner" in e ? (e.owner ?? "") : ""])).toEqual([
      ["task_created", "t1", "", ""],
      ["task_created", "t2", "", ""],
      ["task_created", "t3", "", ""],
      ["task_updated", "t1", "in_progress", "explorer-1"],
      ["task_updated", "t1", "", ""],
      ["task_updated", "t1", "done", ""],
      ["task_updated", "t3", "in_progress", "explorer-2"],
      ["task_updated", "t3", "done", ""],
    ]);
    expect(log.find((e) => e.type === "task_created" && e.taskId === "t3")).toMatchObject({ dependsOn: ["t1"], scope: ["docs/summary.md"], agentId: "coordinator" });
    expectValidHistories(server.requests);
  });

  it("on_overlap warn: the delegate result and a notice name the files and the agent; the json result carries the board", async () => {
    const second = gate();
    const server = await scriptedServer(
      perAgent({
        coordinator: acks([
          { toolCalls: [call("task_create", { title: "refactor src", scope: ["src/**"] }), call("task_create", { title: "fix a", scope: ["src/a.ts", "test/a.test.ts"] })] },
          { toolCalls: [call("delegate", { agent: "explorer", task: "refactor", task_id: "t1", background: true })] },
          { toolCalls: [call("delegate", { agent: "explorer", task: "fix a", task_id: "t2" })] },
          () => (second.open(), { text: "both ran" }),
        ]),
        // explorer-1 works until the coordinator has heard the second delegation's result.
        "explorer-1": acks([async () => (await second.opened, { text: "refactored" })]),
        "explorer-2": acks([{ text: "fixed a" }]),
      }),
    );
    const ws = workspace(WS);
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "json"], { ws, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    const result = resultsAt(server, 3)[0]!;
    expect(result).toMatch(/^Warning: task t2's scope overlaps task t1 "refactor src", which explorer-1 is working on: src\/a\.ts\./);
    expect(result).toContain("fixed a");
    expect(run.stderr).toContain("orca: warning: scope overlap: t2 and t1 (explorer-1) both match src/a.ts — warned");
    const out = JSON.parse(run.stdout) as { tasks: { id: string; status: string; owner?: string; scope: string[] }[] };
    expect(out.tasks.map((t) => [t.id, t.status, t.owner])).toEqual([
      ["t1", "done", "explorer-1"],
      ["t2", "done", "explorer-2"],
    ]);
  });

  it.each([
    { policy: "ask", yes: false, decision: "denied", by: "headless", result: /^Error: not delegated: task t2's scope overlaps task t1 .*: src\/a\.ts, and the person declined it \(agents\.on_overlap: ask\)/ },
    { policy: "ask", yes: true, decision: "approved", by: "headless", result: /^Note: task t2's scope overlaps task t1 .*: src\/a\.ts; the person approved running both\./ },
    { policy: "refuse", yes: false, decision: "refused", by: "config", result: /^Error: task t2's scope overlaps task t1 .*: src\/a\.ts \(agents\.on_overlap: refuse\)/ },
  ])("on_overlap $policy (--yes: $yes): $decision", async ({ policy, yes, decision, by, result }) => {
    const second = gate();
    const server = await scriptedServer(
      perAgent({
        coordinator: acks([
          { toolCalls: [call("task_create", { title: "refactor src", scope: ["src"] }), call("task_create", { title: "fix a", scope: ["src/a.ts"] })] },
          { toolCalls: [call("delegate", { agent: "explorer", task: "refactor", task_id: "t1", background: true })] },
          { toolCalls: [call("delegate", { agent: "explorer", task: "fix a", task_id: "t2" })] },
          () => (second.open(), { text: "done" }),
        ]),
        "explorer-1": acks([async () => (await second.opened, { text: "refactored" })]),
        "explorer-2": acks([{ text: "fixed a" }]),
      }),
    );
    const ws = workspace({ ...WS, ".orca/config.yaml": `agents:\n  on_overlap: ${policy}\n` });
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "stream-json", ...(yes ? ["--yes"] : [])], { ws, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(resultsAt(server, 3)[0]).toMatch(result);
    const overlap = events(run.stdout).filter((e) => e.type === "task_overlap");
    expect(overlap).toEqual([expect.objectContaining({ taskId: "t2", otherTaskId: "t1", otherAgentId: "explorer-1", files: ["src/a.ts"], policy, decision, decidedBy: by })]);
    // A refused delegation starts nothing and leaves the task pending.
    expect(requestsOf(server, "explorer-2")).toHaveLength(decision === "approved" ? 1 : 0);
  });

  it("a resumed session restores the board from its log: the list is as it was, and new tasks number on", async () => {
    let server = await scriptedServer(
      perAgent({
        coordinator: [
          { toolCalls: [call("task_create", { title: "map the code", scope: ["src/**"] }), call("task_create", { title: "summarise", depends_on: ["t1"] })] },
          { toolCalls: [call("delegate", { agent: "explorer", task: "map src", task_id: "t1" })] },
          { text: "first run done" },
        ],
        "explorer-1": [{ toolCalls: [call("my_task_update", { notes: "a and b" })] }, { text: "mapped" }],
      }),
    );
    const ws = workspace(WS);
    const first = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "json"], { ws, timeoutMs: 60_000 });
    expect(first.code, first.stderr).toBe(0);
    const id = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    await server.close();

    server = await scriptedServer(
      perAgent({
        coordinator: [
          { toolCalls: [call("task_list", {}), call("task_create", { title: "review", depends_on: ["t2"] })] },
          { toolCalls: [call("delegate", { agent: "explorer", task: "summarise", task_id: "t2" })] },
          { text: "second run done" },
        ],
        "explorer-2": [{ text: "summary" }],
      }),
    );
    const second = await runOrca(["--resume", id, "-p", "go on", "--base-url", server.url, "--output-format", "json"], { ws, timeoutMs: 60_000 });
    expect(second.code, second.stderr).toBe(0);
    const [list, created] = resultsAt(server, 1);
    expect(list).toBe("t1 [done] map the code · owner explorer-1 · scope src/** · notes: a and b\nt2 [pending] summarise · no owner · depends on t1");
    expect(created).toBe('created t3 "review" (pending)');
    // t1 is done on the restored board, so t2 may be delegated now.
    expect(resultsAt(server, 2)[0]).not.toMatch(/^Error/);
    const out = JSON.parse(second.stdout) as { tasks: { id: string; status: string }[] };
    expect(out.tasks.map((t) => `${t.id}:${t.status}`)).toEqual(["t1:done", "t2:done", "t3:pending"]);
  });
});
