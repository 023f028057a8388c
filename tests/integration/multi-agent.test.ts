import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { describe, expect, it, vi } from "vitest";
import type { OrcaEvent } from "../../src/events/types.js";
import type { SessionSetup } from "../../src/orchestrator/create.js";
import { toolNames, type RecordedRequest, type ScriptedServer } from "../../src/model/scripted.js";
import { agentOf, expectValidHistories, perAgent, runOrca } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";
import { orchestra } from "../fixtures/rig-orchestra.js";

const delegate = (agent: string, task: string, label?: string) => ({ name: "delegate", args: { agent, task, ...(label ? { label } : {}) } });
const requestsOf = (s: ScriptedServer, id: string) => s.requests.filter((r) => agentOf(r) === id);
const lastTool = (r: RecordedRequest) => r.body.messages.filter((m) => m.role === "tool").at(-1)?.content ?? "";

function collect(o: SessionSetup): OrcaEvent[] {
  const events: OrcaEvent[] = [];
  o.session.bus.subscribe((e) => events.push(e));
  return events;
}

describe("delegation", () => {
  it("runs three sub-agents concurrently with isolated histories and whitelisted tools", async () => {
    const SECRET_CONTEXT = "coordinator-only context 7f3a";
    // Each sub-agent's answer waits until all three have asked: sub-agents run at the same time
    // (run one after another, the first would wait here for ever and the test would time out).
    let arrived = 0;
    let allAsked = () => {};
    const together = new Promise<void>((resolve) => (allAsked = resolve));
    const answer = (text: string) => async () => {
      if (++arrived === 3) allAsked();
      await together;
      return { text };
    };
    const server = await scriptedServer(
      perAgent({
        coordinator: [
          { toolCalls: [delegate("explorer", "find A", "a"), delegate("explorer", "find B", "b"), delegate("tester", "run C", "c")] },
          { text: "all three reported" },
        ],
        "explorer-1": [answer("A is in a.ts")],
        "explorer-2": [answer("B is in b.ts")],
        "tester-1": [answer("C passes")],
      }),
    );
    const ws = workspace({ "a.ts": "A\n" });
    const setup = await orchestra(ws, server.url);
    const events = collect(setup);
    const result = await setup.session.run(`do three things. ${SECRET_CONTEXT}`);
    expect(result.status).toBe("done");
    expect(result.result).toBe("all three reported");

    const subs = ["explorer-1", "explorer-2", "tester-1"].map((id) => requestsOf(server!, id)[0]!);
    // Overlap at the server: every sub-agent's request arrived before any of them was answered.
    // Sub-millisecond clocks: Date.now() often gives the last arrival and the first answer one value.
    const lastArrival = Math.max(...subs.map((r) => r.arrivedHr));
    const firstFinish = Math.min(...subs.map((r) => r.finishedHr ?? Infinity));
    expect(lastArrival).toBeLessThan(firstFinish);

    for (const r of subs) {
      expect(JSON.stringify(r.body.messages)).not.toContain(SECRET_CONTEXT);
      expect(r.body.messages).toHaveLength(2);
    }
    // Its whitelist, and message_agent: any agent may message its parent and siblings (can_message, issue 31).
    expect(toolNames(subs[0]!).sort()).toEqual(["get_skill", "glob", "grep", "list_dir", "message_agent", "read_file"]);
    expect(toolNames(subs[2]!)).toContain("bash");
    expect(toolNames(subs[2]!)).not.toContain("write_file");
    expect(toolNames(subs[0]!)).not.toContain("delegate");

    const coordinatorFinal = requestsOf(server, "coordinator")[1]!;
    const results = coordinatorFinal.body.messages.filter((m) => m.role === "tool").map((m) => m.content ?? "");
    expect(results).toHaveLength(3);
    expect(results[0]).toMatch(/status: done/);
    expect(results[0]).toContain("A is in a.ts");
    expect(results[2]).toContain("C passes");
    expectValidHistories(server.requests);

    const started = events.filter((e) => e.type === "agent_started" && e.agentId !== "coordinator");
    expect(started.map((e) => e.parentId)).toEqual(["coordinator", "coordinator", "coordinator"]);
    expect(setup.session.agents().map((a) => [a.id, a.status])).toEqual([
      ["coordinator", "done"],
      ["explorer-1", "done"],
      ["explorer-2", "done"],
      ["tester-1", "done"],
    ]);
  });

  it("refuses a call to a tool outside the sub-agent's whitelist, and nothing happens on disk", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("explorer", "look")] }, { text: "ok" }],
        "explorer-1": [{ toolCalls: [{ name: "write_file", args: { path: "pwned.txt", content: "x" } }] }, { text: "could not write" }],
      }),
    );
    const ws = workspace();
    const setup = await orchestra(ws, server.url, { config: "permissions:\n  mode: bypass\n" });
    await setup.session.run("go");
    expect(lastTool(requestsOf(server, "explorer-1")[1]!)).toMatch(/not available to agent explorer/);
    expect(fs.existsSync(ws.file("pwned.txt"))).toBe(false);
  });

  it("two sub-agents editing different lines of one file both land", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("editor", "edit line 1"), delegate("editor", "edit line 3")] }, { text: "both edited" }],
        "editor-1": [{ toolCalls: [{ name: "edit_file", args: { path: "f.txt", old_string: "one", new_string: "ONE" } }] }, { text: "done 1" }],
        "editor-2": [{ toolCalls: [{ name: "edit_file", args: { path: "f.txt", old_string: "three", new_string: "THREE" } }] }, { text: "done 3" }],
      }),
    );
    const ws = workspace({ "f.txt": "one\ntwo\nthree\n" });
    const setup = await orchestra(ws, server.url, { config: "permissions:\n  mode: accept-edits\n" });
    const result = await setup.session.run("edit");
    expect(result.status).toBe("done");
    expect(ws.read("f.txt")).toBe("ONE\ntwo\nTHREE\n");
    const final = requestsOf(server, "coordinator")[1]!;
    expect(final.body.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      expect.stringContaining("files changed: f.txt"),
      expect.stringContaining("files changed: f.txt"),
    ]);
  });

  it("cancelling one sub-agent mid-stream returns cancelled to the coordinator, which finishes; it can be resumed", async () => {
    let cancelSent = false;
    const server = await scriptedServer(
      perAgent({
        coordinator: [
          { toolCalls: [delegate("explorer", "slow one"), delegate("explorer", "quick one")] },
          { text: "one was cancelled, one answered" },
          { toolCalls: [{ name: "delegate", args: { resume: "explorer-1", task: "carry on" } }] },
          { text: "resumed and finished" },
        ],
        // The scripted latency (100 chunks, 50 ms apart) keeps the stream going while the test cancels it.
        "explorer-1": [{ text: "x".repeat(500), chunkChars: 5, chunkDelayMs: 50 }, { text: "finished after resume" }],
        "explorer-2": [{ text: "quick answer", delayMs: 100 }],
      }),
    );
    const ws = workspace();
    const setup = await orchestra(ws, server.url);
    // Cancelled once its stream has started: on its first text delta, not after some time.
    const session = setup.session;
    const off = session.bus.subscribe((e) => {
      if (e.type === "text_delta" && e.agentId === "explorer-1" && !cancelSent) {
        cancelSent = true;
        queueMicrotask(() => session.cancel("explorer-1"));
      }
    });
    const first = await session.run("two lookups");
    off();
    expect(cancelSent).toBe(true);
    expect(first.status).toBe("done");
    expect(first.result).toBe("one was cancelled, one answered");
    const results = requestsOf(server, "coordinator")[1]!.body.messages.filter((m) => m.role === "tool").map((m) => m.content ?? "");
    expect(results[0]).toMatch(/status: cancelled/);
    expect(results[1]).toMatch(/status: done/);
    expect(results[1]).toContain("quick answer");

    const second = await setup.session.run("resume the slow one");
    expect(second.result).toBe("resumed and finished");
    const resumed = requestsOf(server, "explorer-1")[1]!;
    const texts = resumed.body.messages.map((m) => `${m.role}:${m.content ?? ""}`);
    expect(texts[1]).toBe("user:slow one");
    expect(texts.at(-1)).toBe("user:carry on");
    expectValidHistories(server.requests);
  });

  it("cancelling the run during a sub-agent's sleep stops everything and leaves no sleep process", async () => {
    const marker = `orca-sleep-${process.pid}-${Date.now()}`;
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("tester", "sleep"), delegate("explorer", "stream")] }],
        "tester-1": [{ toolCalls: [{ name: "bash", args: { command: `exec -a ${marker} sleep 30` } }] }],
        // Scripted latency (500 chunks, 30 ms apart): the explorer is still streaming when the run is cancelled.
        "explorer-1": [{ text: "y".repeat(1000), chunkChars: 2, chunkDelayMs: 30 }],
      }),
    );
    const ws = workspace();
    const setup = await orchestra(ws, server.url, { config: "permissions:\n  mode: bypass\n" });
    const events = collect(setup);
    const running = setup.session.run("sleep and stream");
    // However long bash takes to start on a loaded machine: the sleep is there before the cancel.
    await vi.waitFor(() => expect(processesMatching(marker)).toBeGreaterThan(0), { timeout: 20_000, interval: 20 });
    setup.session.cancel();
    const result = await running;
    expect(result.status).toBe("cancelled");
    expect(processesMatching(marker)).toBe(0);
    const finished = events.filter((e) => e.type === "agent_finished");
    expect(finished.map((e) => [e.agentId, e.type === "agent_finished" && e.status]).sort()).toEqual([
      ["coordinator", "cancelled"],
      ["explorer-1", "cancelled"],
      ["tester-1", "cancelled"],
    ]);
    // The coordinator's delegate results keep what the sub-agents had, and their ids for a resume.
    const delegated = events.filter((e) => e.type === "tool_finished" && e.name === "delegate").map((e) => (e.type === "tool_finished" ? e.content : ""));
    expect(delegated).toHaveLength(2);
    for (const content of delegated) expect(content).toMatch(/^agent: \S+-1 .*\nstatus: cancelled/s);
    const sleepResult = events.find((e) => e.type === "tool_finished" && e.name === "bash");
    expect(sleepResult && sleepResult.type === "tool_finished" && sleepResult.content).toMatch(/cancelled/);
    // How each call ended is typed: the parent reads it from the status, not from the text.
    expect(sleepResult).toMatchObject({ ok: false, status: "cancelled" });
    for (const e of events) if (e.type === "tool_finished" && e.name === "delegate") expect(e.status).toBe("cancelled");
  });

  it("sub-agents cannot delegate unless whitelisted, and depth is bounded", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("explorer", "try to delegate")] }, { text: "ok" }],
        "explorer-1": [{ toolCalls: [delegate("editor", "nested")] }, { text: "could not" }],
      }),
    );
    const ws = workspace();
    const setup = await orchestra(ws, server.url);
    await setup.session.run("go");
    expect(lastTool(requestsOf(server, "explorer-1")[1]!)).toMatch(/not available to agent explorer/);
    expect(setup.session.agents().map((a) => a.id)).toEqual(["coordinator", "explorer-1"]);
  });
});

function processesMatching(marker: string): number {
  const out = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
  return out.split("\n").filter((line) => line.startsWith(marker)).length;
}

describe("delegation races", () => {
  it("two resumes of one sub-agent in one turn: the second is refused, even when both must wait for a slot", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [
          { toolCalls: [delegate("explorer", "first look")] },
          {
            toolCalls: [
              delegate("explorer", "slow 1"),
              delegate("explorer", "slow 2"),
              { name: "delegate", args: { resume: "explorer-1", task: "more A" } },
              { name: "delegate", args: { resume: "explorer-1", task: "more B" } },
            ],
          },
          { text: "done" },
        ],
        "explorer-1": [{ text: "looked" }, { text: "more", delayMs: 50 }, { text: "again" }],
        "explorer-2": [{ text: "slow", delayMs: 300 }],
        "explorer-3": [{ text: "slow", delayMs: 300 }],
      }),
    );
    const ws = workspace();
    // Five sub-agent runs in one run pass the fan-out guard's default (4); this test is about the resume race.
    const setup = await orchestra(ws, server.url, { config: "agents:\n  max_parallel: 2\n  confirm_fanout: 10\n" });
    const result = await setup.session.run("go");
    expect(result.status).toBe("done");
    const final = requestsOf(server, "coordinator")[2]!;
    const results = final.body.messages.filter((m) => m.role === "tool").slice(-4).map((m) => m.content ?? "");
    expect(results.filter((r) => /still running/.test(r))).toHaveLength(1);
    expectValidHistories(server.requests);
  });

  it("a tool-call budget is shared by parallel sub-agents and never overspent", async () => {
    const reads = (n: number) => ({ toolCalls: [{ name: "read_file", args: { path: `f${n}.txt` } }, { name: "read_file", args: { path: `g${n}.txt` } }] });
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("explorer", "a"), delegate("explorer", "b")] }, { text: "done" }],
        "explorer-1": [reads(1), { text: "a" }],
        "explorer-2": [reads(2), { text: "b" }],
      }),
    );
    const ws = workspace({ "f1.txt": "1", "g1.txt": "1", "f2.txt": "2", "g2.txt": "2" });
    const setup = await orchestra(ws, server.url, { config: "budget:\n  max_tool_calls: 4\n" });
    const events = collect(setup);
    const result = await setup.session.run("go");
    expect(result.status).toBe("budget");
    const ran = events.filter((e) => e.type === "tool_started");
    expect(ran.length).toBeLessThanOrEqual(4);
  });
});

describe("headless output with sub-agents", () => {
  it("stream-json carries the sub-agents' events with parentId, and json lists every agent with status, steps and usage", async () => {
    const script = () =>
      perAgent({
        coordinator: [{ toolCalls: [delegate("explorer", "look around", "scan")] }, { text: "summary", usage: { prompt: 50, completion: 5 } }],
        "explorer-1": [{ toolCalls: [{ name: "list_dir", args: { path: "." } }] }, { text: "found a.txt", usage: { prompt: 30, completion: 3 } }],
      });
    const server = await scriptedServer(script());
    const ws = workspace({ "a.txt": "A\n" });
    const streamed = await runOrca(["-p", "scan", "--base-url", server.url, "--output-format", "stream-json"], { ws });
    expect(streamed.code, streamed.stderr).toBe(0);
    const events = streamed.stdout.trim().split("\n").map((l) => JSON.parse(l) as OrcaEvent);
    const sub = events.filter((e) => e.agentId === "explorer-1");
    expect(sub.map((e) => e.type)).toEqual(expect.arrayContaining(["agent_started", "model_request", "tool_queued", "tool_finished", "assistant_message", "agent_finished"]));
    expect(sub.every((e) => e.parentId === "coordinator")).toBe(true);

    const again = await scriptedServer(script());
    const json = await runOrca(["-p", "scan", "--base-url", again.url, "--output-format", "json"], { ws });
    expect(json.code, json.stderr).toBe(0);
    const out = JSON.parse(json.stdout) as { agents: { id: string; parent_id: string | null; status: string; steps: number; label?: string }[]; usage: { input_tokens: number } };
    expect(out.agents).toEqual([
      expect.objectContaining({ id: "coordinator", parent_id: null, status: "done", steps: 2 }),
      expect.objectContaining({ id: "explorer-1", parent_id: "coordinator", status: "done", steps: 2, label: "scan" }),
    ]);
    expect(out.usage.input_tokens).toBeGreaterThanOrEqual(80);
  });
});

describe("tool-call ids", () => {
  it("an endpoint that numbers calls call_0 in every response still gets unique ids in history", async () => {
    const same = (path: string) => ({ toolCalls: [{ id: "call_0", name: "read_file", args: { path } }] });
    const server = await scriptedServer([same("a.txt"), same("b.txt"), { text: "done" }]);
    const ws = workspace({ "a.txt": "A\n", "b.txt": "B\n" });
    const setup = await orchestra(ws, server.url);
    expect((await setup.session.run("read both")).status).toBe("done");
    const last = server.requests[2]!.body.messages;
    const ids = last.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.id) : []));
    expect(ids).toEqual(["call_0", "call_0_2"]);
    expect(last.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["call_0", "call_0_2"]);
    expectValidHistories(server.requests);
  });
});
