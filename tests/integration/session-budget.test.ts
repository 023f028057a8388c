import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { ScriptedReply, ScriptedServer } from "../../src/model/scripted.js";
import { processesWith } from "../fixtures/processes.js";
import { runOrca, sessionLogs, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

async function setup(replies: ScriptedReply[], budget: string): Promise<{ server: ScriptedServer; ws: TempWorkspace }> {
  const server = await scriptedServer(replies);
  const ws = workspace({ "a.txt": "A\n" });
  fs.mkdirSync(path.join(ws.dir, ".orca"));
  fs.writeFileSync(path.join(ws.dir, ".orca", "config.yaml"), `budget:\n${budget}`);
  return { server, ws };
}

const step = (text: string, calls: { name: string; args: unknown }[], usage?: { prompt: number; completion: number }): ScriptedReply => ({
  text,
  toolCalls: calls,
  ...(usage ? { usage } : {}),
});

describe("run budgets (exit 3, a message on stderr, the partial result)", () => {
  it("budget.max_tokens stops once the run has spent it", async () => {
    const { server, ws } = await setup(
      [
        step("looked at the root", [{ name: "list_dir", args: { path: "." } }], { prompt: 60_000, completion: 10 }),
        step("read a.txt", [{ name: "read_file", args: { path: "a.txt" } }], { prompt: 70_000, completion: 10 }),
        { text: "never sent" },
      ],
      "  max_tokens: 100000\n",
    );
    const run = await runOrca(["-p", "work", "--base-url", server.url, "--output-format", "json"], { ws });
    expect(run.code).toBe(3);
    expect(server.requests).toHaveLength(2);
    expect(run.stderr).toMatch(/^orca: Stopped: token budget reached \(130020 of 100000 tokens\)\.$/m);
    const out = JSON.parse(run.stdout) as { status: string; result: string };
    expect(out.status).toBe("budget");
    expect(out.result).toContain("read a.txt");
    expect(out.result).toContain("token budget reached");
  });

  it("budget.max_tokens: a request whose input alone would pass what is left is never sent (exit 3 before it)", async () => {
    // About 25 000 tokens of prose, read whole (tools.max_output_tokens raised): the second request
    // would carry it, and 1 010 spent + its input passes 20 000; the first request fits easily.
    const prose = Array.from({ length: 2_000 }, (_, i) => `Line ${i}: the quick brown fox jumps over the lazy dog.`).join("\n");
    const { server, ws } = await setup(
      [step("reading the big file", [{ name: "read_file", args: { path: "big.txt" } }], { prompt: 1_000, completion: 10 }), { text: "never sent" }],
      "  max_tokens: 20000\ntools:\n  max_output_tokens: 100000\n",
    );
    fs.writeFileSync(ws.file("big.txt"), prose);
    const run = await runOrca(["-p", "work", "--base-url", server.url, "--output-format", "stream-json"], { ws });
    expect(run.code).toBe(3);
    // The scripted server recorded the first request only: the second was stopped before it left.
    expect(server.requests).toHaveLength(1);
    expect(run.stderr).toMatch(/^orca: Stopped: token budget reached: the next request \(about \d+ input tokens\) would pass max_tokens \(1010 of 20000 tokens spent\)\.$/m);
    const events = readLog(sessionLogs(ws)[0]!).events;
    expect(events.filter((e) => e.type === "model_request")).toHaveLength(1);
    expect(events.find((e) => e.type === "tool_finished")).toMatchObject({ name: "read_file", ok: true, status: "ok" });
    expect(events.at(-1)).toMatchObject({ type: "session_finished", status: "budget" });
    const estimate = Number(/about (\d+) input tokens/.exec(run.stderr)?.[1]);
    expect(1010 + estimate).toBeGreaterThanOrEqual(20_000);
  });

  it("budget.max_tool_calls answers calls past the limit without running them, then stops", async () => {
    const { server, ws } = await setup(
      [
        step("one", [{ name: "list_dir", args: { path: "." } }]),
        step("two and three", [
          { name: "read_file", args: { path: "a.txt" } },
          { name: "write_file", args: { path: "b.txt", content: "B" } },
        ]),
        { text: "never sent" },
      ],
      "  max_tool_calls: 2\n",
    );
    const run = await runOrca(["-p", "work", "--base-url", server.url, "--yes"], { ws });
    expect(run.code).toBe(3);
    expect(server.requests).toHaveLength(2);
    expect(run.stderr).toMatch(/tool-call budget reached \(2 of 2 calls\)/);
    expect(run.stdout).toContain("two and three");
    expect(fs.existsSync(ws.file("b.txt"))).toBe(false);
    const finished = readLog(sessionLogs(ws)[0]!).events.filter((e) => e.type === "tool_finished");
    expect(finished.map((e) => (e.type === "tool_finished" ? [e.name, e.ok] : []))).toEqual([
      ["list_dir", true],
      ["read_file", true],
      ["write_file", false],
    ]);
    expect(finished[2]).toMatchObject({ content: expect.stringMatching(/not run: the run's tool-call budget is used up/) });
  });

  it("budget.max_duration stops a run stuck in a long bash call and kills it", async () => {
    const { server, ws } = await setup(
      [step("starting the long job", [{ name: "bash", args: { command: "echo started; sleep 30.0101" } }]), { text: "never sent" }],
      // Long enough for the first request to leave on a loaded machine (1.3 s after the agent
      // started, seen under a parallel suite), short against the 30 s sleep.
      "  max_duration: 5\n",
    );
    const run = await runOrca(["-p", "work", "--base-url", server.url, "--yes"], { ws });
    expect(run.code).toBe(3);
    expect(server.requests).toHaveLength(1);
    expect(run.stderr).toMatch(/time budget reached \(5s\)/);
    expect(run.stdout).toContain("starting the long job");
    expect(processesWith("30.0101")).toEqual([]);
    const events = readLog(sessionLogs(ws)[0]!).events;
    expect(events.find((e) => e.type === "tool_finished")).toMatchObject({ name: "bash", ok: false, status: "cancelled", content: "time budget reached (5s)" });
    expect(events.find((e) => e.type === "agent_finished")).toMatchObject({ status: "budget" });
    expect(events.at(-1)).toMatchObject({ type: "session_finished", status: "budget" });
  });
});
