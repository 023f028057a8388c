/**
 * Live control of sub-agents through the real bin (`orca -p`) and a scripted model: steering a
 * running sub-agent with message_agent, background delegation, joining with wait_agents, and a
 * cancel (SIGINT) that stops background sub-agents with their processes.
 */
import fs from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { alive, processesWith } from "../fixtures/processes.js";
import type { OrcaEvent } from "../../src/events/types.js";
import type { RecordedRequest, ScriptedReply, ScriptedServer } from "../../src/model/scripted.js";
import { agentOf, expectValidHistories, perAgent, runOrca } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/** A promise the test resolves when a condition it watches for has happened. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const requestsOf = (s: ScriptedServer, id: string) => s.requests.filter((r) => agentOf(r) === id);
const userTexts = (r: RecordedRequest) => r.body.messages.filter((m) => m.role === "user").map((m) => m.content ?? "");
const bg = (agent: string, task: string) => ({ name: "delegate", args: { agent, task, background: true } });
const events = (stdout: string): OrcaEvent[] => stdout.trim().split("\n").map((l) => JSON.parse(l) as OrcaEvent);
/** The coordinator answers every request past its script with a short acknowledgement. */
const thenAck = (replies: Array<ScriptedReply | ((r: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>)>) => [...replies, ...Array.from({ length: 6 }, () => ({ text: "ack" }))];

describe("live control of sub-agents (orca -p)", () => {
  it("a message sent to a running sub-agent is in its next request, and in no sibling's or the coordinator's", async () => {
    const STEER = "steer-7c1f: only look at src/";
    const coordinatorWaits = gate();
    const server = await scriptedServer(
      perAgent({
        coordinator: thenAck([
          { toolCalls: [bg("explorer", "look at A"), bg("explorer", "look at B")] },
          { toolCalls: [{ name: "message_agent", args: { id: "explorer-1", text: STEER } }] },
          () => {
            coordinatorWaits.open();
            return { text: "both are running; waiting" };
          },
        ]),
        // Both stay in their first request until the message has been queued (the coordinator's third request).
        "explorer-1": [async () => (await coordinatorWaits.opened, { toolCalls: [{ name: "list_dir", args: { path: "." } }] }), { text: "A: steered to src/" }],
        "explorer-2": [async () => (await coordinatorWaits.opened, { toolCalls: [{ name: "list_dir", args: { path: "." } }] }), { text: "B: done" }],
      }),
    );
    const ws = workspace({ "src/a.ts": "a\n" });
    const run = await runOrca(["-p", "go", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(0);

    const [first, second] = requestsOf(server, "explorer-1");
    expect(userTexts(first!).join("\n")).not.toContain(STEER);
    // Appended after the tool result, as a user message of its own.
    const last = second!.body.messages.at(-1)!;
    expect(last.role).toBe("user");
    expect(last.content).toBe(`[message from coordinator]\n${STEER}`);
    expect(second!.body.messages.at(-2)!.role).toBe("tool");
    for (const r of requestsOf(server, "explorer-2")) expect(JSON.stringify(r.body.messages)).not.toContain("steer-7c1f");
    for (const r of requestsOf(server, "coordinator")) expect(userTexts(r).join("\n")).not.toContain("steer-7c1f");
    const results = requestsOf(server, "coordinator")[2]!.body.messages.filter((m) => m.role === "tool").at(-1)!.content;
    expect(results).toContain("queued for explorer-1");
    expectValidHistories(server.requests);
  });

  it("a background delegate returns before its sub-agent ends; the result reaches the coordinator's next request", async () => {
    const coordinatorWaits = gate();
    const server = await scriptedServer(
      perAgent({
        coordinator: thenAck([
          { toolCalls: [bg("explorer", "count the files")] },
          { text: "started it; I will report when it is back" },
          { text: "explorer says 3 files" },
        ]),
        // The sub-agent answers only once the coordinator has ended its turn and waits for it.
        "explorer-1": [async () => (await coordinatorWaits.opened, { text: "there are 3 files" })],
      }),
    );
    const ws = workspace({ "a.txt": "a" });
    const onStdout = (out: string) => {
      if (out.includes('"type":"agent_waiting"')) coordinatorWaits.open();
    };
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "stream-json"], { ws, onStdout });
    expect(run.code, run.stderr).toBe(0);
    const log = events(run.stdout);
    const at = (pred: (e: OrcaEvent) => boolean) => log.findIndex(pred);

    const delegateDone = at((e) => e.type === "tool_finished" && e.agentId === "coordinator" && e.name === "delegate");
    const subAnswered = at((e) => e.type === "assistant_message" && e.agentId === "explorer-1");
    const subFinished = at((e) => e.type === "agent_finished" && e.agentId === "explorer-1");
    expect(delegateDone).toBeGreaterThan(-1);
    expect(delegateDone).toBeLessThan(subAnswered);
    const delegated = log[delegateDone] as Extract<OrcaEvent, { type: "tool_finished" }>;
    expect(delegated.content).toMatch(/explorer-1 \(explorer\) started in the background/);
    expect(at((e) => e.type === "agent_backgrounded" && e.agentId === "explorer-1")).toBeGreaterThan(-1);
    // The coordinator ended its turn and waited, then was woken by the result.
    const waiting = at((e) => e.type === "agent_waiting" && e.agentId === "coordinator");
    expect(waiting).toBeGreaterThan(delegateDone);
    expect(waiting).toBeLessThan(subFinished);

    const coordinator = requestsOf(server, "coordinator");
    expect(coordinator).toHaveLength(3);
    const delivered = coordinator[2]!.body.messages.at(-1)!;
    expect(delivered.role).toBe("user");
    expect(delivered.content).toMatch(/^\[background sub-agent explorer-1 ended\]\nagent: explorer-1 \(explorer\)\nstatus: done/);
    expect(delivered.content).toContain("there are 3 files");
    const finished = log.filter((e) => e.type === "session_finished");
    expect(finished).toHaveLength(1);
    expect(at((e) => e.type === "session_finished")).toBeGreaterThan(subFinished);
    expectValidHistories(server.requests);
  });

  it("wait_agents joins two background sub-agents; their results are not delivered again", async () => {
    const joining = gate();
    const server = await scriptedServer(
      perAgent({
        coordinator: thenAck([
          { toolCalls: [bg("explorer", "find A"), bg("explorer", "find B")] },
          { toolCalls: [{ name: "wait_agents", args: { ids: ["explorer-1", "explorer-2"], timeout_s: 60 } }] },
          { text: "A and B are found" },
        ]),
        // Both end while the coordinator's wait_agents call runs.
        "explorer-1": [async () => (await joining.opened, { text: "A is in a.ts" })],
        "explorer-2": [async () => (await joining.opened, { text: "B is in b.ts" })],
      }),
    );
    const ws = workspace();
    const onStdout = (out: string) => {
      if (/"type":"tool_started"[^\n]*"name":"wait_agents"/.test(out)) joining.open();
    };
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "stream-json"], { ws, onStdout });
    expect(run.code, run.stderr).toBe(0);
    const coordinator = requestsOf(server, "coordinator");
    expect(coordinator).toHaveLength(3);
    const joined = coordinator[2]!.body.messages.at(-1)!;
    expect(joined.role).toBe("tool");
    expect(joined.content).toMatch(/^2 of 2 ended/);
    expect(joined.content).toContain("A is in a.ts");
    expect(joined.content).toContain("B is in b.ts");
    for (const r of coordinator) expect(userTexts(r).join("\n")).not.toContain("[background sub-agent");
    const log = events(run.stdout);
    const finished = log.filter((e) => e.type === "agent_finished").map((e) => [e.agentId, e.type === "agent_finished" && e.status]);
    expect([...finished].sort()).toEqual([
      ["coordinator", "done"],
      ["explorer-1", "done"],
      ["explorer-2", "done"],
    ]);
    expect(finished.at(-1)).toEqual(["coordinator", "done"]);
    const root = log.findLast((e) => e.type === "assistant_message" && e.agentId === "coordinator");
    expect(root && root.type === "assistant_message" && root.content).toBe("A and B are found");
  });

  it("SIGINT stops background sub-agents and their processes; orca exits 130", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: thenAck([{ toolCalls: [bg("tester", "run the slow thing")] }, { text: "it runs in the background" }]),
        "tester-1": [{ toolCalls: [{ name: "bash", args: { command: "echo started > pid.txt; exec sleep 600.0307" } }] }, { text: "never" }],
      }),
    );
    const ws = workspace();
    let pid = 0;
    const pending = runOrca(["-p", "go", "--base-url", server.url, "--yes", "--output-format", "stream-json"], { ws, onSpawn: (p) => (pid = p) });
    const pidFile = ws.file("pid.txt");
    // The coordinator has ended its turn and waits; the background tester's process runs.
    await expect
      .poll(() => requestsOf(server!, "coordinator").length >= 2 && fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").trim() !== "", { timeout: 20_000, interval: 50 })
      .toBe(true);
    // Commands run in the sandbox's pid namespace: find the sleeper on the host by its marker.
    const [sleeper] = processesWith("sleep 600.0307");
    expect(sleeper).toBeDefined();
    process.kill(pid, "SIGINT");
    const run = await pending;
    expect(run.code, run.stderr).toBe(130);
    await vi.waitFor(() => expect(alive(sleeper!)).toBe(false), { timeout: 5_000, interval: 50 });
    const log = events(run.stdout);
    const tester = log.find((e) => e.type === "agent_finished" && e.agentId === "tester-1");
    expect(tester && tester.type === "agent_finished" && tester.status).toBe("cancelled");
    const root = log.find((e) => e.type === "agent_finished" && e.agentId === "coordinator");
    expect(root && root.type === "agent_finished" && root.status).toBe("cancelled");
  });
});
