import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { RecordedRequest, ScriptedReply } from "../../src/model/scripted.js";
import { INTERRUPTED_RESULT } from "../../src/sessions/rebuild.js";
import { logText, runAndKill, waitFor } from "../fixtures/crash-kill.js";
import { processesWith } from "../fixtures/processes.js";
import { agentOf, expectValidHistories, perAgent, runOrca, sessionLogs, TEST_KEY, stderrBesidesReport } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

const call = (name: string, args: unknown, id?: string): ScriptedReply => ({ toolCalls: [{ id, name, args }] });
const HANG: ScriptedReply = { kind: "hang" };

function messagesOf(request: RecordedRequest): { role: string; content: string | null; tool_call_id?: string }[] {
  return request.body.messages.map((m) => ({ role: m.role, content: m.content, ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}) }));
}

describe("crash and resume", () => {
  it("kill -9 during a bash call, resume with a new prompt: the call is reported unknown and the work completes", async () => {
    const ws = workspace();
    const first = await scriptedServer([call("bash", { command: "echo started > shell.pid; sleep 30.0202" }, "call_sleep"), HANG]);
    const killed = await runAndKill(
      ["-p", "start the long job", "--base-url", first.url, "--yes"],
      ws,
      () => logText(ws).includes('"type":"tool_started"') && fs.existsSync(ws.file("shell.pid")),
      "the bash call to start",
    );
    expect(killed.signal).toBe("SIGKILL");
    // The command ran in the sandbox, which dies with orca (bwrap --die-with-parent).
    await waitFor(() => processesWith("30.0202").length === 0, "the sandboxed command to die with orca");

    const [file] = sessionLogs(ws);
    const before = readLog(file!);
    expect(before.events.some((e) => e.type === "tool_started" && e.callId === "call_sleep")).toBe(true);
    expect(before.events.some((e) => e.type === "tool_finished")).toBe(false);
    const id = before.events[0]!.sessionId;

    const second = await scriptedServer([call("bash", { command: "echo finished > done.txt" }, "call_done"), { text: "all done" }]);
    const resumed = await runOrca(["--resume", id, "-p", "continue", "--base-url", second.url, "--yes"], { ws });
    expect(stderrBesidesReport(resumed.stderr)).toBe("");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout.trim()).toBe("all done");
    expect(ws.read("done.txt")).toBe("finished\n");

    expectValidHistories(second.requests);
    const seen = messagesOf(second.requests[0]!);
    expect(seen.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(seen[1]!.content).toBe("start the long job");
    expect(seen[3]).toEqual({ role: "tool", content: INTERRUPTED_RESULT, tool_call_id: "call_sleep" });
    expect(seen[4]!.content).toBe("continue");
    // The system prompt is the logged one, not a new one.
    expect(second.requests[0]!.body.messages[0]!.content).toBe(first.requests[0]!.body.messages[0]!.content);

    // One log, appended to; it is resumable again and holds no secret.
    expect(sessionLogs(ws)).toEqual([file]);
    const after = readLog(file!);
    expect(after.skipped).toEqual([]);
    const starts = after.events.filter((e) => e.type === "session_started");
    expect(starts).toHaveLength(2);
    expect(starts[1]).toMatchObject({ resumedFrom: id });
    expect(after.events.at(-1)).toMatchObject({ type: "session_finished", status: "done" });
    expect(fs.readFileSync(file!, "utf8")).not.toContain(TEST_KEY);

    // Resume of the resume: the whole conversation, both runs, comes back.
    const third = await scriptedServer([{ text: "third" }]);
    const again = await runOrca(["--resume", id, "-p", "one more", "--base-url", third.url], { ws });
    expect(again.code).toBe(0);
    const roles = messagesOf(third.requests[0]!).map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "user", "assistant", "tool", "assistant", "user"]);
    expectValidHistories(third.requests);
  });

  it("with --no-continue, a sub-agent killed mid-call is rebuilt and continued by hand with delegate {resume}", async () => {
    const ws = workspace();
    const first = await scriptedServer(
      perAgent({
        coordinator: [call("delegate", { agent: "tester", task: "run the slow suite" }, "call_delegate"), () => HANG],
        "tester-1": [call("bash", { command: "echo started > shell.pid; sleep 30.0303" }, "call_suite"), () => HANG],
      }),
    );
    await runAndKill(
      ["-p", "test it", "--base-url", first.url, "--yes"],
      ws,
      () => logText(ws).includes('"callId":"call_suite"') && fs.existsSync(ws.file("shell.pid")),
      "the sub-agent's bash call",
    );
    await waitFor(() => processesWith("30.0303").length === 0, "the sandboxed command to die with orca");

    const second = await scriptedServer(
      perAgent({
        coordinator: [call("delegate", { resume: "tester-1", task: "check the state and finish" }, "call_resume"), { text: "suite passed" }],
        "tester-1": [{ text: "ran it again: 12 passed" }],
      }),
    );
    // Without --no-continue the resume would continue tester-1 itself (team-resume.test.ts).
    const resumed = await runOrca(["--continue", "--no-continue", "-p", "go on", "--base-url", second.url, "--yes", "--output-format", "json"], { ws });
    expect(resumed.stderr).toMatch(/^orca: resuming session \S+ \(/);
    expect(resumed.code).toBe(0);
    const out = JSON.parse(resumed.stdout) as { result: string; agents: { id: string; status: string }[] };
    expect(out.result).toBe("suite passed");
    expect(out.agents.map((a) => [a.id, a.status])).toEqual([
      ["coordinator", "done"],
      ["tester-1", "done"],
    ]);

    expectValidHistories(second.requests);
    const coord = second.requests.filter((r) => agentOf(r) === "coordinator");
    const coordSeen = messagesOf(coord[0]!);
    expect(coordSeen.find((m) => m.tool_call_id === "call_delegate")?.content).toBe(INTERRUPTED_RESULT);
    const tester = second.requests.filter((r) => agentOf(r) === "tester-1");
    expect(tester).toHaveLength(1);
    const testerSeen = messagesOf(tester[0]!);
    expect(testerSeen.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(testerSeen[1]!.content).toBe("run the slow suite");
    expect(testerSeen[3]).toEqual({ role: "tool", content: INTERRUPTED_RESULT, tool_call_id: "call_suite" });
    expect(testerSeen[4]!.content).toBe("check the state and finish");
    expect(coord[1]!.body.messages.at(-1)?.content).toContain("ran it again: 12 passed");
  });

  it("a torn last line is skipped and reported, cut from the log, and the session resumes", async () => {
    const ws = workspace();
    const first = await scriptedServer([{ text: "first answer" }]);
    expect((await runOrca(["-p", "first question", "--base-url", first.url], { ws })).code).toBe(0);
    const [file] = sessionLogs(ws);
    fs.appendFileSync(file!, '{"type":"tool_finished","ts":17000000');
    expect(readLog(file!).skipped).toEqual([{ line: expect.any(Number), reason: "torn last line" }]);

    const second = await scriptedServer([{ text: "second answer" }]);
    const run = await runOrca(["--resume", "-p", "second question", "--base-url", second.url], { ws });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe("second answer");
    expect(run.stderr).toMatch(/resuming session/);
    expect(run.stderr).toMatch(/skipped \(torn last line\)/);
    expect(messagesOf(second.requests[0]!).map((m) => m.content).slice(1)).toEqual(["first question", "first answer", "second question"]);
    const after = readLog(file!);
    expect(after.skipped).toEqual([]);
    expect(after.events.filter((e) => e.type === "assistant_message")).toHaveLength(2);
  });

  it("orca sessions lists sessions newest first; --continue picks this workspace's, --resume the latest anywhere", async () => {
    const ws = workspace();
    const other = path.join(path.dirname(ws.dir), "other");
    fs.mkdirSync(other);
    const s = await scriptedServer([{ text: "answer A" }, { text: "answer B" }, { text: "resumed B" }, { text: "continued A" }]);
    expect((await runOrca(["-p", "prompt in A", "--base-url", s.url], { ws })).code).toBe(0);
    // B is newer: its first event is written by a process started after A's last one was.
    expect((await runOrca(["-p", "prompt in B", "--base-url", s.url, "-w", other], { ws })).code).toBe(0);

    const list = await runOrca(["sessions"], { ws });
    expect(list.code).toBe(0);
    const rows = list.stdout.split("\n").filter((l) => /prompt in/.test(l));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain("prompt in B");
    expect(rows[0]).toContain(other);
    expect(rows[1]).toContain("prompt in A");
    expect(rows[1]).toMatch(/\bdone\b/);

    const latest = await runOrca(["--resume", "-p", "more", "--base-url", s.url], { ws });
    expect(latest.code).toBe(0);
    expect(s.requests[2]!.body.messages[1]!.content).toBe("prompt in B");

    const cont = await runOrca(["--continue", "-p", "more", "--base-url", s.url], { ws });
    expect(cont.code).toBe(0);
    expect(cont.stdout.trim()).toBe("continued A");
    expect(s.requests[3]!.body.messages[1]!.content).toBe("prompt in A");
    expect(sessionLogs(ws)).toHaveLength(2);

    const after = await runOrca(["sessions"], { ws });
    const resumedRows = after.stdout.split("\n").filter((l) => /prompt in/.test(l));
    expect(resumedRows[0]).toContain("prompt in A");
    expect(resumedRows[0]).toMatch(/resumed 1×/);
  });

  it("no secret reaches the log, even when a tool prints the API key or a configured MCP header value", async () => {
    const ws = workspace();
    const HEADER_TOKEN = "tok-mcp-header-5f1e2d3c4b5a";
    fs.mkdirSync(ws.file(".orca"));
    fs.writeFileSync(
      ws.file(".orca/config.yaml"),
      `mcp_servers:\n  remote:\n    url: http://127.0.0.1:9/mcp\n    headers: { Authorization: "Bearer ${HEADER_TOKEN}" }\n    connect_timeout: 2000\n`,
    );
    // Commands get the key only when told to: here they are, so it can be printed.
    fs.appendFileSync(ws.file(".orca/config.yaml"), "tools:\n  pass_model_key: true\n");
    const s = await scriptedServer([call("bash", { command: `echo "key=$OPENAI_API_KEY header=${HEADER_TOKEN}"` }), { text: "printed" }]);
    const run = await runOrca(["-p", "print the key", "--base-url", s.url, "--yes"], { ws });
    expect(run.code).toBe(0);
    // The model did see the output (orca does not censor tools), but the log keeps neither value.
    expect(JSON.stringify(s.requests[1]!.body.messages)).toContain(TEST_KEY);
    const log = fs.readFileSync(sessionLogs(ws)[0]!, "utf8");
    expect(log).not.toContain(TEST_KEY);
    expect(log).not.toContain(HEADER_TOKEN);
    expect(log).toContain("key=[redacted] header=[redacted]");
  });

  it("unknown ids and an empty history are one-line errors with exit 2", async () => {
    const ws = workspace();
    const none = await runOrca(["--continue", "-p", "x", "--base-url", "http://127.0.0.1:59/v1"], { ws });
    expect(none.code).toBe(2);
    expect(none.stderr.trim().split("\n")).toHaveLength(1);
    expect(none.stderr).toMatch(/no session to continue/);
    const unknown = await runOrca(["--resume", "nope", "-p", "x", "--base-url", "http://127.0.0.1:59/v1"], { ws });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no session "nope"/);
  });
});
