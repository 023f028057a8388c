import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { lastMessage, type ScriptedReply } from "../../src/model/scripted.js";
import { processesWith } from "../fixtures/processes.js";
import { expectValidHistories, lastToolResult, runOrca, sessionLogs, TEST_KEY, stderrBesidesReport } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

async function setup(replies: ScriptedReply[], files: Record<string, string> = {}) {
  const server = await scriptedServer(replies);
  const ws = workspace(files);
  return { server, ws };
}

const call = (name: string, args: unknown, id?: string): ScriptedReply => ({ toolCalls: [{ id, name, args }] });

describe("orca -p against the scripted server", () => {
  it("reads, edits and runs bash, then answers; every call is answered before the next request", async () => {
    const { server, ws } = await setup(
      [
        call("read_file", { path: "notes.txt" }),
        call("edit_file", { path: "notes.txt", old_string: "hello", new_string: "goodbye" }),
        call("bash", { command: "cat notes.txt && pwd" }),
        { text: "Changed hello to goodbye." },
      ],
      { "notes.txt": "hello world\n" },
    );
    const run = await runOrca(["-p", "change hello", "--base-url", server.url, "--yes"], { ws });
    expect(stderrBesidesReport(run.stderr)).toBe("");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("Changed hello to goodbye.");
    expect(ws.read("notes.txt")).toBe("goodbye world\n");
    expect(server.requests).toHaveLength(4);
    expect(lastToolResult(server.requests[1]!)).toContain("hello world");
    const bashResult = lastToolResult(server.requests[3]!);
    expect(bashResult).toContain("goodbye world");
    expect(bashResult).toContain(ws.dir);
    expectValidHistories(server.requests);
  });

  it("prompts come from stdin when -p has no argument", async () => {
    const { server, ws } = await setup([{ text: "hi" }]);
    const run = await runOrca(["-p", "--base-url", server.url], { ws, input: "what is up\n" });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests[0]!.body.messages.at(-1)?.content).toBe("what is up");
  });

  it("retries a 429 with Retry-After, then succeeds", async () => {
    const { server, ws } = await setup([{ kind: "error", status: 429, retryAfter: 0 }, { text: "ok after retry" }]);
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("ok after retry");
    expect(server.requests).toHaveLength(2);
  });

  it("500 three times: exit 1 with one line on stderr", async () => {
    const { server, ws } = await setup([
      { kind: "error", status: 500 },
      { kind: "error", status: 500 },
      { kind: "error", status: 500 },
    ]);
    fs.mkdirSync(path.join(ws.dir, ".orca"));
    fs.writeFileSync(path.join(ws.dir, ".orca", "config.yaml"), "model:\n  max_retries: 2\n");
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(1);
    expect(server.requests).toHaveLength(3);
    const lines = run.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^orca: .*500/);
    expect(run.stderr).not.toMatch(/\bat .*\.js:\d+/);
  });

  it("a stream cut mid-way fails the run with one line, not a success", async () => {
    const { server, ws } = await setup([{ text: "a long answer that will be cut", chunkChars: 4, cutAfterChunks: 3 }]);
    fs.mkdirSync(path.join(ws.dir, ".orca"));
    fs.writeFileSync(path.join(ws.dir, ".orca", "config.yaml"), "model:\n  max_retries: 0\n");
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("a failed run prints its one error line on stderr and nothing on stdout", async () => {
    const { server, ws } = await setup([{ kind: "error", status: 400, message: "bad request body" }]);
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/400/);
  });

  it("a stream without finish_reason is an error", async () => {
    const { server, ws } = await setup([{ text: "partial", omitFinishReason: true }]);
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/cut off|truncated/i);
  });

  it("malformed argument JSON is shown to the model, which corrects itself", async () => {
    const { server, ws } = await setup(
      [
        { toolCalls: [{ name: "read_file", rawArgs: '{"path": "a.txt"' }] },
        call("read_file", { path: "a.txt" }),
        { text: "read it" },
      ],
      { "a.txt": "content A\n" },
    );
    const run = await runOrca(["-p", "read a", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(0);
    const errorResult = lastToolResult(server.requests[1]!);
    expect(errorResult).toContain("not valid JSON");
    expect(errorResult).toContain('{"path": "a.txt"');
    expect(lastToolResult(server.requests[2]!)).toContain("content A");
    expectValidHistories(server.requests);
  });

  it("an unknown tool gets an error result listing the tools, and the run goes on", async () => {
    const { server, ws } = await setup([call("frobnicate", { x: 1 }), { text: "sorry" }]);
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(0);
    const result = lastToolResult(server.requests[1]!);
    expect(result).toMatch(/unknown tool "frobnicate"/);
    expect(result).toContain("read_file");
  });

  it("invalid arguments come back one line per issue", async () => {
    const { server, ws } = await setup([call("read_file", { path: 42, limit: "x" }), { text: "ok" }]);
    await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    const result = lastToolResult(server.requests[1]!);
    expect(result).toMatch(/invalid arguments for read_file/);
    expect(result).toMatch(/- path: /);
    expect(result).toMatch(/- limit: /);
  });

  it("refuses .. and symlink escapes, and nothing is written outside", async () => {
    const { server, ws } = await setup([
      call("write_file", { path: "../escaped.txt", content: "x" }),
      call("write_file", { path: "link/escaped.txt", content: "x" }),
      call("read_file", { path: "/etc/passwd" }),
      { text: "done" },
    ]);
    const outside = path.dirname(ws.dir);
    fs.mkdirSync(path.join(outside, "target"));
    fs.symlinkSync(path.join(outside, "target"), path.join(ws.dir, "link"));
    const run = await runOrca(["-p", "escape", "--base-url", server.url, "--yes"], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(lastToolResult(server.requests[1]!)).toMatch(/outside the workspace/);
    expect(lastToolResult(server.requests[2]!)).toMatch(/outside the workspace/);
    expect(lastToolResult(server.requests[3]!)).toMatch(/outside the workspace/);
    expect(fs.existsSync(path.join(outside, "escaped.txt"))).toBe(false);
    expect(fs.existsSync(path.join(outside, "target", "escaped.txt"))).toBe(false);
  });

  it("edit_file with a non-unique old_string is refused and the file is unchanged", async () => {
    const original = "x = 1\nx = 1\n";
    const { server, ws } = await setup(
      [call("edit_file", { path: "a.py", old_string: "x = 1", new_string: "x = 2" }), { text: "ok" }],
      { "a.py": original },
    );
    await runOrca(["-p", "edit", "--base-url", server.url, "--yes"], { ws });
    expect(lastToolResult(server.requests[1]!)).toMatch(/2 (places|matches|occurrences)/);
    expect(ws.read("a.py")).toBe(original);
  });

  it("bash_output reports running without an exit code, then exited with it", async () => {
    const { server, ws } = await setup([
      call("bash", { command: "echo started; sleep 1; echo finished; exit 7", run_in_background: true }),
      call("bash_output", { shell_id: "shell_1" }),
      call("bash", { command: "sleep 1.5" }),
      call("bash_output", { shell_id: "shell_1" }),
      { text: "ok" },
    ]);
    const run = await runOrca(["-p", "bg", "--base-url", server.url, "--yes"], { ws });
    expect(run.code, run.stderr).toBe(0);
    const running = lastToolResult(server.requests[2]!);
    expect(running).toMatch(/status: running/);
    expect(running).not.toMatch(/exit code/);
    const exited = lastToolResult(server.requests[4]!);
    expect(exited).toMatch(/status: exited/);
    expect(exited).toMatch(/exit code: 7/);
    expect(exited).toContain("finished");
  });

  it("works with only OPENAI_API_KEY and --base-url, and no config file anywhere", async () => {
    const { server, ws } = await setup([{ text: "minimal" }]);
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("minimal");
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
  });

  it("a bad config key exits 2 with one line naming its path", async () => {
    const { server, ws } = await setup([{ text: "never" }]);
    fs.mkdirSync(path.join(ws.dir, ".orca"));
    fs.writeFileSync(path.join(ws.dir, ".orca", "config.yaml"), "model:\n  nmae: gpt-4o\n");
    const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toContain("model.nmae: unknown key");
    expect(server.requests).toHaveLength(0);
  });

  it("no endpoint configured: exit 2 with a hint, and no request is sent", async () => {
    const ws = workspace();
    const run = await runOrca(["-p", "hi"], { ws, env: { OPENAI_API_KEY: undefined } });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/OPENAI_API_KEY/);
  });

  it("max_steps stops the run with a visible message and exit 3", async () => {
    const replies = Array.from({ length: 5 }, (_, i) => call("list_dir", { path: i % 2 ? "." : "./" }));
    const { server, ws } = await setup(replies);
    const run = await runOrca(["-p", "loop", "--base-url", server.url, "--max-steps", "3"], { ws });
    expect(run.code, run.stderr).toBe(3);
    expect(server.requests).toHaveLength(3);
    expect(run.stderr).toMatch(/step limit|max_steps/);
    expect(run.stdout).not.toMatch(/step limit|max_steps/);
  });

  it("the same call three times in a row ends the run as a loop", async () => {
    const replies = Array.from({ length: 5 }, () => call("list_dir", { path: "." }));
    const { server, ws } = await setup(replies);
    const run = await runOrca(["-p", "loop", "--base-url", server.url], { ws });
    expect(run.code, run.stderr).toBe(1);
    expect(server.requests).toHaveLength(3);
    expect(run.stderr).toMatch(/same call .*list_dir.* 3 times/);
  });

  it("polling a background shell that still runs is waiting, not a loop; polling one that ended is", async () => {
    const ws = workspace();
    const results: string[] = [];
    const server = await scriptedServer(async (request) => {
      const first = !request.body.messages.some((m) => m.role === "tool");
      if (first) return call("bash", { command: "while [ ! -f go ]; do sleep 0.02; done; echo finished; : > done", run_in_background: true });
      results.push(lastToolResult(request));
      // The shell's start, then six polls while it runs; then it may end.
      if (results.length === 7) fs.writeFileSync(ws.file("go"), "");
      // Polls answered only once the command's last line has run: what is left is the shell's exit,
      // which the step budget below covers however fast steps are (polling a running shell is
      // waiting, so a poll that came too soon is only another step).
      if (results.length >= 7) await vi.waitFor(() => expect(fs.existsSync(ws.file("done"))).toBe(true), { timeout: 20_000, interval: 10 });
      return call("bash_output", { shell_id: "shell_1" });
    });
    const run = await runOrca(["-p", "wait for it", "--base-url", server.url, "--yes", "--max-steps", "1000"], { ws });
    expect(results.slice(1, 7).every((r) => r.startsWith("status: running"))).toBe(true);
    expect(results.some((r) => r.startsWith("status: exited"))).toBe(true);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/same call .*bash_output.* 3 times/);
  });

  it("json output is one object with result, status, session id, usage, agents and duration", async () => {
    const { server, ws } = await setup([{ text: "the answer", usage: { prompt: 100, completion: 7 } }]);
    const run = await runOrca(["-p", "hi", "--base-url", server.url, "--output-format", "json"], { ws });
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      result: "the answer",
      status: "done",
      usage: { input_tokens: 100, output_tokens: 7 },
      agents: [{ id: "coordinator", name: "coordinator", status: "done", steps: 1 }],
    });
    expect(typeof out.session_id).toBe("string");
    expect(typeof out.duration_ms).toBe("number");
  });

  it("stream-json prints every event as a line, and the log keeps no secret", async () => {
    const { server, ws } = await setup([call("read_file", { path: "a.txt" }), { text: "done" }], { "a.txt": "A\n" });
    const run = await runOrca(["-p", "hi", "--base-url", server.url, "--output-format", "stream-json"], { ws });
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string });
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("session_started");
    expect(types).toEqual(expect.arrayContaining(["user_message", "agent_started", "model_request", "text_delta", "assistant_message", "tool_queued", "tool_started", "tool_finished", "usage", "agent_finished"]));
    expect(types.at(-1)).toBe("session_finished");
    const logs = sessionLogs(ws);
    expect(logs).toHaveLength(1);
    const log = fs.readFileSync(logs[0]!, "utf8");
    expect(log.trim().split("\n")).toHaveLength(events.length);
    expect(log).not.toContain(TEST_KEY);
    expect(run.stdout).not.toContain(TEST_KEY);
  });

  it("a key the model prints through bash is redacted in stream-json and the log", async () => {
    const { server, ws } = await setup([call("bash", { command: "echo key=$OPENAI_API_KEY" }), { text: "done" }], {
      // Commands get the key only when told to: here they are, so it can be printed.
      ".orca/config.yaml": "tools:\n  pass_model_key: true\n",
    });
    const run = await runOrca(["-p", "leak", "--base-url", server.url, "--yes", "--output-format", "stream-json"], { ws });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("key=[redacted]");
    expect(run.stdout).not.toContain(TEST_KEY);
    expect(fs.readFileSync(sessionLogs(ws)[0]!, "utf8")).not.toContain(TEST_KEY);
  });

  it("creates nothing in the workspace or home but the session log and orca's cache folder", async () => {
    const { server, ws } = await setup([{ text: "hi" }]);
    await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(fs.readdirSync(ws.dir)).toEqual([]);
    // ~/.cache/orca: the sandbox probe's kept answer, and on Node 22+ the compile cache.
    expect(fs.readdirSync(ws.home)).toEqual([".cache"]);
    expect(fs.readdirSync(path.join(ws.home, ".cache"))).toEqual(["orca"]);
    const cached = fs.readdirSync(path.join(ws.home, ".cache", "orca")).sort();
    expect(cached.filter((name) => name !== "compile-cache")).toEqual(["sandbox"]);
  });

  it("SIGINT cancels the run, kills the child process and exits 130", async () => {
    const { server, ws } = await setup([call("bash", { command: "echo started > pid.txt; sleep 30.0404" })]);
    let pid = 0;
    const pending = runOrca(["-p", "sleep", "--base-url", server.url, "--yes"], { ws, onSpawn: (p) => (pid = p) });
    const pidFile = ws.file("pid.txt");
    await vi.waitFor(() => expect(fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").trim()).toBeTruthy(), { timeout: 20_000, interval: 25 });
    await vi.waitFor(() => expect(processesWith("sleep 30.0404").length).toBeGreaterThan(0), { timeout: 20_000, interval: 25 });
    process.kill(pid, "SIGINT");
    const run = await pending;
    expect(run.code, run.stderr).toBe(130);
    expect(processesWith("30.0404")).toEqual([]);
    expect(lastMessage(server.requests[0]!)?.role).toBe("user");
  });

  it("headless permissions: ask = deny without --yes, deny rules beat --yes, plan mode refuses writes", async () => {
    const writeThenStop = (): ScriptedReply[] => [call("write_file", { path: "out.txt", content: "x" }), { text: "stopped" }];
    // default mode, no --yes: the write would ask, so it is refused with a hint
    let s = await setup(writeThenStop());
    let run = await runOrca(["-p", "write", "--base-url", s.server.url], { ws: s.ws });
    expect(run.code, run.stderr).toBe(0);
    expect(lastToolResult(s.server.requests[1]!)).toMatch(/--yes/);
    expect(fs.existsSync(s.ws.file("out.txt"))).toBe(false);
    await s.server.close();
    s.ws.cleanup();

    // a deny rule wins even with --yes
    s = await setup(writeThenStop());
    fs.mkdirSync(path.join(s.ws.dir, ".orca"));
    fs.writeFileSync(path.join(s.ws.dir, ".orca", "config.yaml"), "permissions:\n  deny: [\"write_file(*.txt)\"]\n");
    run = await runOrca(["-p", "write", "--base-url", s.server.url, "--yes"], { ws: s.ws });
    expect(lastToolResult(s.server.requests[1]!)).toMatch(/denied by rule deny: write_file\(\*\.txt\)/);
    expect(fs.existsSync(s.ws.file("out.txt"))).toBe(false);
    await s.server.close();
    s.ws.cleanup();

    // plan mode: read-only tools only, whatever --yes says
    s = await setup(writeThenStop());
    run = await runOrca(["-p", "write", "--base-url", s.server.url, "--yes", "--permission-mode", "plan"], { ws: s.ws });
    expect(lastToolResult(s.server.requests[1]!)).toMatch(/plan mode/);
    expect(fs.existsSync(s.ws.file("out.txt"))).toBe(false);
    await s.server.close();
    s.ws.cleanup();

    // an allow rule lets it through without --yes
    s = await setup(writeThenStop());
    fs.mkdirSync(path.join(s.ws.dir, ".orca"));
    fs.writeFileSync(path.join(s.ws.dir, ".orca", "config.yaml"), "permissions:\n  allow: [\"write_file(out.txt)\"]\n");
    run = await runOrca(["-p", "write", "--base-url", s.server.url], { ws: s.ws });
    expect(run.code, run.stderr).toBe(0);
    expect(s.ws.read("out.txt")).toBe("x");
  });

  it("--version and --help answer without a model", async () => {
    const ws = workspace();
    const version = await runOrca(["--version"], { ws });
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^orca \d+\.\d+\.\d+/);
    const help = await runOrca(["--help"], { ws });
    expect(help.stdout).toContain("--output-format");
    const bad = await runOrca(["--nope"], { ws });
    expect(bad.code).toBe(2);
    // One orca line, then usage (tests/integration/cli-usage.test.ts covers every case).
    expect(bad.stderr.trim().split("\n").filter((l) => l.startsWith("orca:"))).toEqual(["orca: unknown option --nope"]);
  });
});
