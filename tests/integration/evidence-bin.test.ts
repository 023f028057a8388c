/**
 * An agent's evidence through the real bin and a scripted model (issue #28): the `json` result's
 * report (files with diffs that match the disk, commands with exit codes and test counts, flags),
 * `verify:` commands run in the sandbox when an agent ends, `change_set` per agent in stream-json,
 * the run report of the text format, and the evidence a coordinator reads in a delegate result.
 */
import fs from "node:fs";
import path from "node:path";
import { applyPatch } from "diff";
import { describe, expect, it } from "vitest";
import type { EventOf, OrcaEvent } from "../../src/events/types.js";
import type { AgentReport } from "../../src/review/report.js";
import { agentOf, perAgent, runOrca, toolResults, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

const MATH = "exports.add = (a, b) => a + b;\nexports.sub = (a, b) => a + b;\n";
const MATH_FIXED = "exports.add = (a, b) => a + b;\nexports.sub = (a, b) => a - b;\n";
const MATH_TEST = `const test = require("node:test");
const assert = require("node:assert");
const { add, sub } = require("./math.js");
test("add", () => assert.equal(add(2, 2), 4));
test("sub", () => assert.equal(sub(3, 1), 2));
`;
const NOTES = "line one\nline two\n";

/** An editor whose definition verifies its work with the test suite. */
const FIXER = `---
name: fixer
description: Fixes code; orca runs the tests after it.
tools: [read_file, edit_file, bash]
verify: node --test
---
You fix code.
`;

/** An editor with no verify: its claims stand on what it ran. */
const NOTER = `---
name: noter
description: Edits notes.
tools: [read_file, edit_file, write_file]
---
You edit notes.
`;

function notesWorkspace(extra: Record<string, string> = {}): TempWorkspace {
  return workspace({ "math.js": MATH, "math.test.js": MATH_TEST, "notes.txt": NOTES, ".orca/agents/fixer.md": FIXER, ".orca/agents/noter.md": NOTER, ...extra });
}

const call = (name: string, args: unknown) => ({ toolCalls: [{ name, args }] });

/** The coordinator hands out two tasks at once; the fixer fixes sub and says so, the noter edits notes and claims tests it never ran. */
function twoEditors() {
  return perAgent({
    coordinator: [
      {
        toolCalls: [
          { name: "delegate", args: { agent: "fixer", task: "fix sub in math.js", label: "fix sub" } },
          { name: "delegate", args: { agent: "noter", task: "reword line two of notes.txt" } },
        ],
      },
      { text: "Both done." },
    ],
    "fixer-1": [
      call("read_file", { path: "math.js" }),
      call("edit_file", { path: "math.js", old_string: "sub = (a, b) => a + b", new_string: "sub = (a, b) => a - b" }),
      { text: "Fixed sub in math.js: it added instead of subtracting." },
    ],
    "noter-1": [
      call("read_file", { path: "notes.txt" }),
      call("edit_file", { path: "notes.txt", old_string: "line two", new_string: "line 2" }),
      { text: "Reworded line two in notes.txt. All tests pass." },
    ],
  });
}

const agentOfReport = (report: AgentReport[], id: string) => report.find((a) => a.id === id)!;
const eventsOf = (stdout: string) => stdout.trim().split("\n").map((l) => JSON.parse(l) as OrcaEvent);

/** The two editors' run in `format`, which must end well. */
async function runTwoEditors(format: "json" | "stream-json" | "text") {
  const server = await scriptedServer(twoEditors());
  const ws = notesWorkspace();
  const run = await runOrca(["-p", "fix and reword", "--base-url", server.url, "--yes", "--output-format", format], { ws, timeoutMs: 60_000 });
  expect(run.code, run.stderr).toBe(0);
  return { run, server, ws };
}

describe("the json result's report", () => {
  it("holds each agent's files with diffs that match the disk, its commands, the verify run and the flags", async () => {
    const { run, server, ws } = await runTwoEditors("json");
    const out = JSON.parse(run.stdout) as { report: { agents: AgentReport[] } };
    const agents = out.report.agents;
    expect(agents.map((a) => a.id)).toEqual(["coordinator", "fixer-1", "noter-1"]);

    // Files and diffs: each diff, applied to the file as it was, gives the file on disk now.
    const fixer = agentOfReport(agents, "fixer-1");
    expect(fixer.label).toBe("fix sub");
    expect(fixer.task).toContain("fix sub in math.js");
    expect(fixer.files.map((f) => [f.path, f.status])).toEqual([["math.js", "modified"]]);
    expect(ws.read("math.js")).toBe(MATH_FIXED);
    expect(applyPatch(MATH, fixer.files[0]!.diff)).toBe(ws.read("math.js"));
    const noter = agentOfReport(agents, "noter-1");
    expect(noter.label).toBe("noter-1");
    expect(noter.files.map((f) => [f.path, f.status])).toEqual([["notes.txt", "modified"]]);
    expect(applyPatch(NOTES, noter.files[0]!.diff)).toBe(ws.read("notes.txt"));
    // The coordinator changed nothing itself.
    expect(agentOfReport(agents, "coordinator").files).toEqual([]);

    // verify: ran when the fixer ended; its exit code and the runner's counts are in the report.
    expect(fixer.commands).toEqual([{ command: "node --test", exit: 0, ms: expect.any(Number), tests: { runner: "node --test", passed: 2, failed: 0, skipped: 0 }, verify: true }]);
    expect(fixer.flags).toEqual([]);

    // The noter said all tests pass and ran none: flagged, with the rule and its evidence.
    expect(noter.commands).toEqual([]);
    expect(noter.flags).toEqual([
      {
        rule: "tests-claimed-unrun",
        message: expect.stringContaining("ran no test after its last edit"),
        evidence: [`"All tests pass."`],
      },
    ]);
    expect(noter.usage.input).toBeGreaterThan(0);

    // The coordinator read the evidence with each result: the flag and the verify run, not only prose.
    const coordinatorRequests = server.requests.filter((r) => agentOf(r) === "coordinator");
    const results = [...toolResults(coordinatorRequests.at(-1)!).values()].join("\n");
    expect(results).toMatch(/verify: node --test → exit 0 · .* · node --test: 2 passed, 0 failed, 0 skipped/);
    expect(results).toContain("⚑ unverified (tests-claimed-unrun)");
    expect(results).toContain("changed: math.js (modified, +1 −1)");
  });

  it("an agent that ran the tests after its last edit is not flagged; one whose last test run failed is", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [
          { toolCalls: [{ name: "delegate", args: { agent: "fixer", task: "fix sub" } }] },
          { toolCalls: [{ name: "delegate", args: { agent: "fixer", task: "break add" } }] },
          { text: "done" },
        ],
        "fixer-1": [
          call("edit_file", { path: "math.js", old_string: "sub = (a, b) => a + b", new_string: "sub = (a, b) => a - b" }),
          call("bash", { command: "node --test" }),
          { text: "Fixed sub in math.js; all tests pass." },
        ],
        "fixer-2": [
          call("read_file", { path: "math.js" }),
          call("edit_file", { path: "math.js", old_string: "add = (a, b) => a + b", new_string: "add = (a, b) => a - b" }),
          call("bash", { command: "node --test" }),
          { text: "Changed add in math.js. The tests pass." },
        ],
      }),
    );
    const ws = notesWorkspace({ "math.js": MATH });
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--yes", "--output-format", "json"], { ws, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    const agents = (JSON.parse(run.stdout) as { report: { agents: AgentReport[] } }).report.agents;
    const first = agentOfReport(agents, "fixer-1");
    expect(first.commands[0]).toMatchObject({ command: "node --test", exit: 0, tests: { runner: "node --test", passed: 2, failed: 0 } });
    expect(first.flags).toEqual([]);
    const second = agentOfReport(agents, "fixer-2");
    expect(second.commands[0]).toMatchObject({ exit: 1, tests: { runner: "node --test", failed: 1 } });
    // Its own run failed, and so did orca's verify run after it.
    expect(second.flags.map((f) => f.rule)).toEqual(["tests-claimed-failing", "verify-failed"]);
    expect(second.commands.at(-1)).toMatchObject({ command: "node --test", exit: 1, verify: true });
  });
});

describe("verify: commands", () => {
  it("run in the sandbox: a verify command cannot write outside the workspace, and its failure is reported", async () => {
    const outside = "verify-marker";
    const attacker = `---
name: attacker
description: Its definition's verify tries to leave the workspace.
tools: [read_file]
verify:
  - "echo pwned > $HOME/${outside}; echo pwned > ../${outside}; touch /tmp/../${outside}-root"
  - "node -e \\"require('fs').writeFileSync(require('os').homedir() + '/${outside}-node', 'x')\\""
  - "echo inside > verified.txt"
---
You look.
`;
    const server = await scriptedServer(
      perAgent({
        coordinator: [call("delegate", { agent: "attacker", task: "look" }), { text: "ok" }],
        "attacker-1": [{ text: "Looked." }],
      }),
    );
    const ws = notesWorkspace({ ".orca/agents/attacker.md": attacker });
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--yes", "--output-format", "stream-json"], { ws, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    const events = eventsOf(run.stdout);
    const verified = events.filter((e): e is EventOf<"verify_finished"> => e.type === "verify_finished");
    expect(verified.map((v) => v.agentId)).toEqual(["attacker-1", "attacker-1", "attacker-1"]);
    // The writes outside failed (read-only file system), so did the commands.
    expect(verified[0]!.exitCode).not.toBe(0);
    expect(verified[1]!.exitCode).not.toBe(0);
    expect(fs.existsSync(path.join(ws.home, outside))).toBe(false);
    expect(fs.existsSync(path.join(ws.home, `${outside}-node`))).toBe(false);
    expect(fs.existsSync(path.join(ws.dir, "..", outside))).toBe(false);
    expect(fs.existsSync(path.join("/", `${outside}-root`))).toBe(false);
    // Inside the workspace it may write, as an agent's command may.
    expect(verified[2]).toMatchObject({ exitCode: 0, status: "ok" });
    expect(ws.read("verified.txt")).toBe("inside\n");
    const changeSet = events.find((e): e is EventOf<"change_set"> => e.type === "change_set" && e.agentId === "attacker-1")!;
    expect(changeSet.flags.filter((f) => f.rule === "verify-failed")).toHaveLength(2);
  });

  it("do not run for an agent that did not end done", async () => {
    const server = await scriptedServer(
      perAgent({
        coordinator: [call("delegate", { agent: "fixer", task: "fix" }), { text: "ok" }],
        "fixer-1": [{ kind: "error", status: 400, message: "bad request" }],
      }),
    );
    const ws = notesWorkspace();
    const run = await runOrca(["-p", "go", "--base-url", server.url, "--yes", "--output-format", "stream-json"], { ws, timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(0);
    const events = eventsOf(run.stdout);
    expect(events.some((e) => e.type === "agent_finished" && e.agentId === "fixer-1" && e.status === "failed")).toBe(true);
    expect(events.filter((e) => e.type === "verify_finished")).toEqual([]);
    expect(events.some((e) => e.type === "change_set" && e.agentId === "fixer-1")).toBe(true);
  });
});

describe("stream-json and text", () => {
  it("stream-json emits a change_set when each agent ends, after its verify runs", async () => {
    const { run } = await runTwoEditors("stream-json");
    const events = eventsOf(run.stdout);
    const sets = events.filter((e): e is EventOf<"change_set"> => e.type === "change_set");
    expect(sets.map((s) => s.agentId).sort()).toEqual(["coordinator", "fixer-1", "noter-1"]);
    // The coordinator's comes last: it ends after its sub-agents.
    expect(sets.at(-1)!.agentId).toBe("coordinator");
    for (const set of sets) {
      const finished = events.findLastIndex((e) => e.type === "agent_finished" && e.agentId === set.agentId);
      expect(events.indexOf(set)).toBeGreaterThan(finished);
    }
    const fixer = sets.find((s) => s.agentId === "fixer-1")!;
    expect(fixer).toMatchObject({ label: "fix sub", files: [{ path: "math.js", status: "modified", added: 1, removed: 1 }], flags: [] });
    const verify = events.findIndex((e) => e.type === "verify_finished" && e.agentId === "fixer-1");
    expect(verify).toBeGreaterThan(-1);
    expect(verify).toBeLessThan(events.indexOf(fixer));
    expect(sets.find((s) => s.agentId === "noter-1")!.flags.map((f) => f.rule)).toEqual(["tests-claimed-unrun"]);
  });

  it("text prints the answer on stdout and a short run report on stderr", async () => {
    const { run } = await runTwoEditors("text");
    expect(run.stdout).toBe("Both done.\n");
    const lines = run.stderr.trim().split("\n");
    expect(lines[0]).toBe("orca: run report (2 agents with changes, commands or flags)");
    expect(run.stderr).toMatch(/^ {2}fix sub: 1 file \(\+1 −1\) · 1 command · tests: node --test: 2 passed, 0 failed, 0 skipped$/m);
    expect(run.stderr).toMatch(/^ {4}modified math\.js \(\+1 −1\)$/m);
    expect(run.stderr).toMatch(/^ {2}noter-1: 1 file \(\+1 −1\) · 0 commands · no tests run · ⚑ 1 flag: tests-claimed-unrun$/m);
    expect(run.stderr).toMatch(/^ {4}⚑ unverified \(tests-claimed-unrun\): says tests pass, but ran no test after its last edit/m);
  });
});
