/**
 * SubagentStart / SubagentStop around every sub-agent, however it ends, with the agent ids every
 * other event carries; PermissionRequest and Notification around the dialog; PreCompact. In
 * process where a test must cancel one sub-agent (the Session API), through the bin for a signal.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { describe, expect, it, vi } from "vitest";
import type { OrcaEvent } from "../../src/events/types.js";
import { systemPrompt, type RecordedRequest, type ScriptedReply, type ScriptedServer } from "../../src/model/scripted.js";
import type { SessionSetup } from "../../src/orchestrator/create.js";
import type { Approver, PermissionRequest } from "../../src/tools/approver.js";
import { alive, processesWith } from "../fixtures/processes.js";
import { agentOf, BIN, expectValidHistories, perAgent, TEST_KEY } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";
import { orchestra } from "../fixtures/rig-orchestra.js";

const delegate = (agent: string, task: string) => ({ name: "delegate", args: { agent, task } });
const requestsOf = (s: ScriptedServer, id: string) => s.requests.filter((r) => agentOf(r) === id);
const STEPPER = "---\nname: stepper\ndescription: Takes one step.\ntools: [list_dir]\nmax_steps: 1\n---\nYou list the workspace.\n";

/** A hook that appends the fields it is given, as one JSON line, to $HOOK_LOG. */
const logHook = (fields: string) => ({ type: "command", command: `jq -c '{${fields}}' >> "$HOOK_LOG"` });

function hookLog(file: string): Record<string, unknown>[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function collect(o: SessionSetup): OrcaEvent[] {
  const events: OrcaEvent[] = [];
  o.session.bus.subscribe((e) => events.push(e));
  return events;
}

describe("SubagentStart and SubagentStop", () => {
  it("SubagentStop fires once for each of three sub-agents: one done, one cancelled mid-stream, one at max_steps; every event has the same agent_id", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("explorer", "finish"), delegate("explorer", "stream slowly"), delegate("stepper", "one step")] }, { text: "all three ended" }],
        "explorer-1": [{ text: "found it" }],
        "explorer-2": [{ text: "x".repeat(4000), chunkChars: 5, chunkDelayMs: 20 }],
        "stepper-1": [{ toolCalls: [{ id: "ls1", name: "list_dir", args: { path: "." } }] }],
      }),
    );
    const ws = workspace({ ".orca/agents/stepper.md": STEPPER });
    const log = ws.file("hooks.log");
    const hooks = {
      SubagentStart: [{ hooks: [logHook("event: .hook_event_name, agent_id, agent_type")] }],
      SubagentStop: [{ hooks: [logHook("event: .hook_event_name, agent_id, agent_type, status, stop_hook_active, agent_transcript_path")] }],
      PreToolUse: [{ hooks: [logHook("event: .hook_event_name, agent_id, agent_type, tool_name, tool_use_id")] }],
    };
    const setup = await orchestra(ws, server.url, { config: `hooks: ${JSON.stringify(hooks)}\n`, env: { HOOK_LOG: log, PATH: process.env.PATH ?? "" } });
    const events = collect(setup);
    let cancelled = false;
    setup.session.bus.subscribe((e) => {
      // Mid-stream: at explorer-2's first streamed text.
      if (e.type === "text_delta" && e.agentId === "explorer-2" && !cancelled) {
        cancelled = true;
        queueMicrotask(() => setup.session.cancel("explorer-2"));
      }
    });

    const result = await setup.session.run("three things");
    expect(result.status).toBe("done");
    expect(cancelled).toBe(true);
    // The server marks the request finished when the client's abort closes it.
    await vi.waitFor(() => expect(requestsOf(server!, "explorer-2")[0]!.finishedAt).toBeDefined());
    const finished = Object.fromEntries(events.flatMap((e) => (e.type === "agent_finished" ? [[e.agentId, e.status]] : [])));
    expect(finished).toEqual({ "explorer-1": "done", "explorer-2": "cancelled", "stepper-1": "max_steps", coordinator: "done" });

    const sent = hookLog(log);
    const stops = sent.filter((s) => s.event === "SubagentStop");
    expect(stops.map((s) => [s.agent_id, s.agent_type, s.status, s.stop_hook_active]).sort()).toEqual([
      ["explorer-1", "explorer", "done", false],
      ["explorer-2", "explorer", "cancelled", false],
      ["stepper-1", "stepper", "max_steps", false],
    ]);
    expect(stops.every((s) => s.agent_transcript_path === setup.session.logFile)).toBe(true);
    expect(sent.filter((s) => s.event === "SubagentStart").map((s) => [s.agent_id, s.agent_type]).sort()).toEqual([
      ["explorer-1", "explorer"],
      ["explorer-2", "explorer"],
      ["stepper-1", "stepper"],
    ]);
    // The stepper's own tool call carries its id; the coordinator's delegate calls carry none (as in Claude Code).
    const tools = sent.filter((s) => s.event === "PreToolUse");
    expect(tools.filter((s) => s.agent_id !== null)).toEqual([{ event: "PreToolUse", agent_id: "stepper-1", agent_type: "stepper", tool_name: "list_dir", tool_use_id: "ls1" }]);
    expect(tools.filter((s) => s.agent_id === null)).toHaveLength(3);
    // Every hook event of a sub-agent is tagged with the id its other events carry.
    const hookEvents = events.filter((e) => e.type === "hook_started" && e.hookEvent.startsWith("Subagent"));
    expect(hookEvents.map((e) => [e.agentId, e.parentId]).sort()).toEqual([
      ["explorer-1", "coordinator"],
      ["explorer-1", "coordinator"],
      ["explorer-2", "coordinator"],
      ["explorer-2", "coordinator"],
      ["stepper-1", "coordinator"],
      ["stepper-1", "coordinator"],
    ]);

    // Closing the session (the shutdown path) fires nothing more: each had its one SubagentStop.
    await setup.session.close();
    expect(hookLog(log).filter((s) => s.event === "SubagentStop")).toHaveLength(3);
    expectValidHistories(server.requests);
  });

  it("SubagentStop exit 2 keeps the sub-agent going with stderr as its next message; stop_hook_active the second time", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("explorer", "look")] }, { text: "ok" }],
        "explorer-1": [{ text: "looked at src" }, { text: "looked at src and tests" }],
      }),
    );
    const ws = workspace();
    const log = ws.file("hooks.log");
    const script = `input=$(cat); jq -c '{agent_id, stop_hook_active, last_assistant_message}' <<<"$input" >> "$HOOK_LOG"; if [ "$(jq -r .stop_hook_active <<<"$input")" = false ]; then echo "check the tests dir too" >&2; exit 2; fi`;
    const hooks = { SubagentStop: [{ matcher: "explorer", hooks: [{ type: "command", command: script }] }] };
    const setup = await orchestra(ws, server.url, { config: `hooks: ${JSON.stringify(hooks)}\n`, env: { HOOK_LOG: log, PATH: process.env.PATH ?? "" } });
    const result = await setup.session.run("look around");
    expect(result.status).toBe("done");
    const second = requestsOf(server, "explorer-1")[1]!;
    expect(second.body.messages.at(-1)).toMatchObject({ role: "user", content: "SubagentStop hook feedback (you may not stop yet):\ncheck the tests dir too" });
    expect(hookLog(log)).toEqual([
      { agent_id: "explorer-1", stop_hook_active: false, last_assistant_message: "looked at src" },
      { agent_id: "explorer-1", stop_hook_active: true, last_assistant_message: "looked at src and tests" },
    ]);
    const delegated = requestsOf(server, "coordinator")[1]!.body.messages.filter((m) => m.role === "tool")[0]!.content ?? "";
    expect(delegated).toContain("looked at src and tests");
  });

  it("a second SIGINT cuts a headless run short: the sub-agent still gets its one SubagentStop, and nothing is left running", async () => {
    const ws = workspace();
    const pidFile = ws.file("shell.pid");
    const server = await scriptedServer(
      perAgent({
        coordinator: [{ toolCalls: [delegate("tester", "run the slow suite")] }, { text: "unreachable" }],
        // A command that ignores SIGTERM: a cancel needs its 2 s SIGKILL grace before the loop can end.
        "tester-1": [{ toolCalls: [{ name: "bash", args: { command: `trap '' TERM; echo started > '${pidFile}'; sleep 30.0203` } }] }],
      }),
    );
    const log = ws.file("hooks.log");
    fs.mkdirSync(ws.file(".orca"));
    fs.writeFileSync(ws.file(".orca/config.yaml"), `hooks: ${JSON.stringify({ SubagentStop: [{ hooks: [logHook("agent_id, status")] }] })}\n`);
    const child = spawn(process.execPath, [BIN, "-p", "test it", "--base-url", server.url, "--yes"], {
      cwd: ws.dir,
      env: { PATH: process.env.PATH ?? "", HOME: ws.home, ORCA_DATA_DIR: ws.dataDir, OPENAI_API_KEY: TEST_KEY, HOOK_LOG: log },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    try {
      await vi.waitFor(() => expect(fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").trim()).toBeTruthy(), { timeout: 20_000, interval: 50 });
      // Commands run in the sandbox's pid namespace: find the sleeper on the host by its marker.
      const [shellPid] = processesWith("sleep 30.0203");
      expect(shellPid).toBeDefined();
      child.kill("SIGINT");
      await vi.waitFor(() => expect(stderr).toContain("cancelling"), { timeout: 10_000, interval: 20 });
      child.kill("SIGINT");
      expect(await exited).toBe(130);
      expect(hookLog(log)).toEqual([{ agent_id: "tester-1", status: "cancelled" }]);
      await vi.waitFor(() => expect(alive(shellPid)).toBe(false), { timeout: 5_000, interval: 50 });
    } finally {
      child.kill("SIGKILL");
    }
  });
});

/** Answers every question "once", and remembers what it was asked. */
class RecordingApprover implements Approver {
  readonly asked: PermissionRequest[] = [];
  async request(request: PermissionRequest) {
    this.asked.push(request);
    return { decision: "once" as const };
  }
}

describe("around the permission dialog", () => {
  it("Notification runs when a person is asked; a PermissionRequest hook answers instead of the person", async () => {
    const server = await scriptedServer([
      { toolCalls: [{ id: "w1", name: "write_file", args: { path: "asked.txt", content: "a" } }] },
      { toolCalls: [{ id: "b1", name: "bash", args: { command: "touch answered-by-hook.txt" } }] },
      { text: "done" },
    ]);
    const ws = workspace();
    const log = ws.file("hooks.log");
    const allowBash = `echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}'`;
    const hooks = {
      Notification: [{ matcher: "permission_prompt", hooks: [logHook("event: .hook_event_name, message, notification_type")] }],
      PermissionRequest: [{ matcher: "Bash", hooks: [{ type: "command", command: allowBash }] }],
    };
    const approver = new RecordingApprover();
    const setup = await orchestra(ws, server.url, { approver, config: `hooks: ${JSON.stringify(hooks)}\n`, env: { HOOK_LOG: log, PATH: process.env.PATH ?? "" } });
    const events = collect(setup);
    expect((await setup.session.run("write and run")).status).toBe("done");
    expect(approver.asked.map((a) => a.tool)).toEqual(["write_file"]);
    expect(ws.read("asked.txt")).toBe("a");
    expect(fs.existsSync(ws.file("answered-by-hook.txt"))).toBe(true);
    await vi.waitFor(() => expect(hookLog(log)).toEqual([{ event: "Notification", message: "orca needs your permission to use write_file", notification_type: "permission_prompt" }]));
    const decided = events.filter((e) => e.type === "permission_decided").map((e) => e.type === "permission_decided" && [e.callId, e.decision, e.by]);
    expect(decided).toEqual([
      ["w1", "allow", "user"],
      ["b1", "allow", "hook"],
    ]);
  });
});

describe("PreCompact", () => {
  const WORKER = "---\nname: worker\ndescription: Reads files.\ntools: [read_file]\n---\nYou read files one by one.\n";
  const files = () => ({ ".orca/agents/worker.md": WORKER, "f.txt": `${"the quick brown fox jumps over the lazy dog\n".repeat(40)}` });
  const reader = (turns: number) => {
    let turn = 0;
    return (request: RecordedRequest): ScriptedReply => {
      if (systemPrompt(request).startsWith("You compact the working history")) return { text: "- Goals: read f.txt repeatedly." };
      turn++;
      // A new offset each time: the same call repeated would trip the loop guard.
      return turn > turns ? { text: "finished" } : { toolCalls: [{ id: `r${turn}`, name: "read_file", args: { path: "f.txt", offset: turn } }] };
    };
  };
  const settings = "model:\n  context_window: 4000\ncontext:\n  compact_at: 0.8\n  keep_rounds: 2\n";

  it("runs before each compaction with trigger auto; a block skips the compaction", async () => {
    const server = await scriptedServer(reader(12));
    const ws = workspace(files());
    const log = ws.file("hooks.log");
    let hooks = { PreCompact: [{ matcher: "auto", hooks: [logHook("event: .hook_event_name, trigger")] }] };
    const setup = await orchestra(ws, server.url, { agentName: "worker", config: `${settings}hooks: ${JSON.stringify(hooks)}\n`, env: { HOOK_LOG: log, PATH: process.env.PATH ?? "" } });
    let events = collect(setup);
    expect((await setup.session.run("read")).status).toBe("done");
    const compactions = events.filter((e) => e.type === "compacted").length;
    expect(compactions).toBeGreaterThan(0);
    expect(hookLog(log)).toEqual(Array.from({ length: compactions }, () => ({ event: "PreCompact", trigger: "auto" })));
    await setup.session.close();
    await server.close();

    const again = await scriptedServer(reader(12));
    hooks = { PreCompact: [{ matcher: "auto", hooks: [{ type: "command", command: 'echo "keep the whole history" >&2; exit 2' }] }] } as typeof hooks;
    const blocked = await orchestra(ws, again.url, { agentName: "worker", config: `${settings}hooks: ${JSON.stringify(hooks)}\n`, env: { PATH: process.env.PATH ?? "" } });
    events = collect(blocked);
    const before = again.requests.length;
    // Kept whole, the history outgrows the 4000-token window: that request is refused, not sent.
    expect((await blocked.session.run("read")).status).toBe("failed");
    expect(events.filter((e) => e.type === "compacted")).toEqual([]);
    expect(events.find((e) => e.type === "error" && e.where === "compaction")).toMatchObject({ message: "compaction skipped by a PreCompact hook: keep the whole history" });
    expect(events.find((e) => e.type === "error" && e.where === "context")).toMatchObject({ message: expect.stringMatching(/context window is 4,000 tokens: not sent$/) as unknown as string });
    const requests = events.filter((e) => e.type === "model_request");
    expect(again.requests.length - before).toBe(requests.length);
  });

  it("runs with trigger manual for /compact (session.compact), where a matcher on auto does not fire", async () => {
    const server = await scriptedServer(reader(3));
    const ws = workspace(files());
    const log = ws.file("hooks.log");
    const hooks = {
      PreCompact: [
        { matcher: "manual", hooks: [logHook("event: .hook_event_name, trigger")] },
        { matcher: "auto", hooks: [logHook("auto_only: true")] },
      ],
    };
    const setup = await orchestra(ws, server.url, { agentName: "worker", config: `model:\n  context_window: 200000\ncontext:\n  keep_rounds: 1\nhooks: ${JSON.stringify(hooks)}\n`, env: { HOOK_LOG: log, PATH: process.env.PATH ?? "" } });
    const events = collect(setup);
    expect((await setup.session.run("read")).status).toBe("done");
    // Far under the threshold: nothing compacted on its own.
    expect(events.filter((e) => e.type === "compacted")).toEqual([]);
    expect(await setup.session.compact()).toBe(true);
    expect(events.filter((e) => e.type === "compacted")).toHaveLength(1);
    expect(hookLog(log)).toEqual([{ event: "PreCompact", trigger: "manual" }]);
  });
});
