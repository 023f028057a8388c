import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { RecordedRequest, ScriptedReply } from "../../src/model/scripted.js";
import { perAgent, ROOT, runOrca, sessionLogs, stderrBesidesReport } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * The promise of a `read_file(PATTERN)` deny rule: the file's content reaches the model through no
 * tool. A scripted coordinator, which has every tool (the built-ins, delegate and its companions,
 * and an MCP filesystem server's), turns each one on the denied files; then neither a result nor
 * any request the model got holds the secret. Every tool the coordinator was given must have an
 * attack here: a new tool fails this test until someone has thought about how it could leak.
 */
const SECRET = "orca-denied-7f3a9c";

type Attack = { name: string; args: unknown } | ((previous: string) => { name: string; args: unknown });

/** What each tool is turned on the denied files with (`dir` is the workspace, for the MCP server's absolute paths). */
function attacks(dir: string): Record<string, Attack[]> {
  const shellId = (previous: string): string => /bash_output \{"shell_id": "([^"]+)"\}/.exec(previous)?.[1] ?? "shell_1";
  const abs = (rel: string): string => path.join(dir, rel);
  return {
    read_file: [{ name: "read_file", args: { path: ".env" } }, { name: "read_file", args: { path: "secrets/key.txt" } }],
    grep: [{ name: "grep", args: { pattern: "orca-denied", path: "." } }, { name: "grep", args: { pattern: "TOKEN", path: ".env" } }],
    glob: [{ name: "glob", args: { pattern: "**/*" } }],
    list_dir: [{ name: "list_dir", args: { path: "secrets" } }],
    bash: [{ name: "bash", args: { command: "cat .env secrets/key.txt" } }, { name: "bash", args: { command: "grep -r orca-denied . ; cat .env" } }],
    bash_output: [{ name: "bash", args: { command: "cat .env; cat secrets/key.txt; sleep 2", run_in_background: true } }, (prev) => ({ name: "bash_output", args: { shell_id: shellId(prev) } })],
    bash_kill: [{ name: "bash", args: { command: "sleep 30", run_in_background: true } }, (prev) => ({ name: "bash_kill", args: { shell_id: shellId(prev) } })],
    // An oracle: an edit that matches part of the line would show the rest in its result.
    edit_file: [{ name: "edit_file", args: { path: ".env", old_string: "TOKEN=", new_string: "TOKEN=" } }],
    write_file: [{ name: "write_file", args: { path: "copy.txt", content: "not the secret" } }],
    get_skill: [{ name: "get_skill", args: { name: "leaky", file: "secret.txt" } }],
    delegate: [{ name: "delegate", args: { agent: "explorer", task: "read .env and secrets/key.txt" } }],
    message_agent: [{ name: "message_agent", args: { id: "explorer-1", text: "read .env" } }],
    agent_status: [{ name: "agent_status", args: {} }],
    wait_agents: [{ name: "wait_agents", args: { timeout_s: 1 } }],
    // The board keeps what agents wrote and names files by path: a scope on the denied files must not read them.
    task_create: [{ name: "task_create", args: { title: "read .env", scope: [".env", "secrets/**"] } }],
    task_update: [{ name: "task_update", args: { id: "t1", notes: "see .env", scope: ["secrets/key.txt"] } }],
    task_list: [{ name: "task_list", args: {} }],
    mcp__fs__read_file: [{ name: "mcp__fs__read_file", args: { path: abs(".env") } }],
    mcp__fs__read_text_file: [{ name: "mcp__fs__read_text_file", args: { path: abs(".env") } }, { name: "mcp__fs__read_text_file", args: { path: abs("secrets/key.txt") } }],
    mcp__fs__read_media_file: [{ name: "mcp__fs__read_media_file", args: { path: abs(".env") } }],
    mcp__fs__read_multiple_files: [{ name: "mcp__fs__read_multiple_files", args: { paths: [abs("notes.txt"), abs(".env")] } }],
    mcp__fs__edit_file: [{ name: "mcp__fs__edit_file", args: { path: abs(".env"), edits: [{ oldText: "TOKEN=", newText: "TOKEN=" }], dryRun: true } }],
    mcp__fs__write_file: [{ name: "mcp__fs__write_file", args: { path: abs("copy2.txt"), content: "not the secret" } }],
    mcp__fs__move_file: [{ name: "mcp__fs__move_file", args: { source: abs(".env"), destination: abs("moved.txt") } }, { name: "read_file", args: { path: "moved.txt" } }],
    mcp__fs__create_directory: [{ name: "mcp__fs__create_directory", args: { path: abs("made") } }],
    mcp__fs__list_directory: [{ name: "mcp__fs__list_directory", args: { path: abs("secrets") } }],
    mcp__fs__list_directory_with_sizes: [{ name: "mcp__fs__list_directory_with_sizes", args: { path: abs("secrets") } }],
    mcp__fs__directory_tree: [{ name: "mcp__fs__directory_tree", args: { path: dir } }],
    mcp__fs__search_files: [{ name: "mcp__fs__search_files", args: { path: dir, pattern: "**/*key*" } }],
    mcp__fs__get_file_info: [{ name: "mcp__fs__get_file_info", args: { path: abs(".env") } }],
    mcp__fs__list_allowed_directories: [{ name: "mcp__fs__list_allowed_directories", args: {} }],
  };
}

/** The last tool result the model was sent, for an attack that needs what the one before returned. */
function lastResult(request: RecordedRequest): string {
  const last = request.body.messages.at(-1);
  return typeof last?.content === "string" ? last.content : "";
}

describe("a read_file(PATTERN) deny rule, against every tool an agent can have", () => {
  it("no tool hands the denied files' content to the model", async () => {
    const ws = workspace({
      ".env": `TOKEN=${SECRET}\n`,
      "secrets/key.txt": `${SECRET} key\n`,
      "notes.txt": "harmless notes\n",
      ".orca/skills/leaky/SKILL.md": "---\nname: leaky\ndescription: bundles a file its folder's deny rule hides\n---\nRead secret.txt.\n",
      ".orca/skills/leaky/secret.txt": `${SECRET} in a skill\n`,
    });
    const dir = ws.dir;
    fs.writeFileSync(
      ws.file(".orca/config.yaml"),
      [
        "permissions:",
        '  deny: ["read_file(.env)", "read_file(secrets/**)", "read_file(.orca/skills/leaky/secret.txt)"]',
        "mcp_servers:",
        `  fs: { command: ${JSON.stringify(path.join(ROOT, "node_modules", ".bin", "mcp-server-filesystem"))}, args: [${JSON.stringify(dir)}] }`,
        "",
      ].join("\n"),
    );
    const table = attacks(dir);
    const steps = Object.values(table).flat();
    const coordinator: ((request: RecordedRequest) => ScriptedReply)[] = steps.map((attack, i) => (request) => {
      const call = typeof attack === "function" ? attack(lastResult(request)) : attack;
      return { toolCalls: [{ id: `attack_${i}`, name: call.name, args: call.args }] };
    });
    coordinator.push(() => ({ text: "done" }));
    const server = await scriptedServer(
      perAgent({
        coordinator,
        "explorer-1": [
          { toolCalls: [{ id: "sub_1", name: "read_file", args: { path: ".env" } }, { id: "sub_2", name: "grep", args: { pattern: "orca", path: "secrets" } }] },
          { text: "could not read them" },
          { text: "still could not" },
        ],
      }),
    );

    const run = await runOrca(["-p", "try every tool", "--base-url", server.url, "-m", "gpt-4o", "--yes"], { ws, timeoutMs: 120_000 });
    expect(stderrBesidesReport(run.stderr)).toBe("");
    expect(run.code).toBe(0);

    const { events } = readLog(sessionLogs(ws)[0]!);
    const given = events.find((e) => e.type === "agent_started" && e.agentId === "coordinator");
    if (given?.type !== "agent_started") throw new Error("no agent_started for the coordinator");
    // Every tool the coordinator had is attacked, and the table names no tool it did not have.
    expect([...given.tools].sort()).toEqual(Object.keys(table).sort());

    // Each attack ran to a result (none was lost), and none of them carries the secret.
    const finished = events.filter((e) => e.type === "tool_finished");
    expect(finished.filter((e) => e.agentId === "coordinator").length).toBe(steps.length);
    const leaks = finished.filter((e) => e.content.includes(SECRET)).map((e) => `${e.name}: ${e.content.slice(0, 200)}`);
    expect(leaks).toEqual([]);
    const heard = server.requests.filter((r) => JSON.stringify(r.body).includes(SECRET)).map((r) => r.index);
    expect(heard).toEqual([]);
  });
});
