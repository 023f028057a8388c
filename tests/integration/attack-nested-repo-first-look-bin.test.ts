/**
 * The first look races the file tools: in accept-edits mode write_file writes a bare repository's
 * files (no path has a `.git` segment, so nothing asks) before any command runs. Were the first
 * look taken at the first command, it would record that folder as the user's (pinned, never
 * checked), and the user's `git -C tools status` would run its fsmonitor. Through the real bin, a
 * scripted model over real HTTP, real bwrap and real git.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from "../../src/model/scripted.js";
import { lastToolResult, runOrca, type TempWorkspace } from "../fixtures/harness.js";
import { bash, fsmonitor, repo, userGit } from "../fixtures/planted-repo.js";
import { outsideDir } from "../fixtures/sandbox.js";

let server: ScriptedServer | undefined;
let ws: TempWorkspace | undefined;
let outside: ReturnType<typeof outsideDir>;

beforeAll(() => {
  outside = outsideDir();
});
afterAll(() => outside.cleanup());
afterEach(async () => {
  await server?.close();
  ws?.cleanup();
  server = undefined;
  ws = undefined;
});

const ACCEPT_EDITS = "permissions:\n  mode: accept-edits\n  sandboxed_commands: auto\n";
const write = (file: string, content: string): ScriptedReply => ({ toolCalls: [{ name: "write_file", args: { path: file, content } }] });
/** A bare repository in tools/, written file by file, whose config runs `marker`'s command. */
const bareRepo = (marker: string): ScriptedReply[] => [
  write("tools/HEAD", "ref: refs/heads/main\n"),
  write("tools/objects/x", "x\n"),
  write("tools/refs/heads/x", "x\n"),
  write("tools/config", `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "${fsmonitor(marker)}"\n`),
];

async function orca(w: TempWorkspace, replies: ScriptedReply[]) {
  server = await startScriptedServer([...replies, { text: "done" }]);
  const run = await runOrca(["-p", "go", "--base-url", server.url, "--output-format", "stream-json"], { ws: w, timeoutMs: 90_000 });
  expect(run.code, run.stderr).toBe(0);
  return { run, results: replies.map((_, i) => lastToolResult(server!.requests[i + 1]!)) };
}

describe("a bare repository the file tools write is a command's, not the user's", () => {
  it("written before any command, then a command runs: the user's git in tools/ runs no fsmonitor", async () => {
    const marker = path.join(outside.dir, "fsmonitor-first-look");
    ws = repo({ ".orca/config.yaml": ACCEPT_EDITS });
    const { results } = await orca(ws, [...bareRepo(marker), bash("echo ran")]);
    expect(results.slice(0, 4).every((r) => !/^Error/.test(r))).toBe(true);
    expect(results[4]).toMatch(/ran/);
    userGit(ws.file("tools"), "status");
    userGit(ws.dir, "--git-dir=tools", "status");
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("written with no command at all: the check at close finds it", async () => {
    const marker = path.join(outside.dir, "fsmonitor-no-command");
    ws = repo({ ".orca/config.yaml": ACCEPT_EDITS });
    const { run } = await orca(ws, bareRepo(marker));
    userGit(ws.file("tools"), "status");
    userGit(ws.dir, "--git-dir=tools", "status");
    expect(fs.existsSync(marker)).toBe(false);
    expect(run.stdout).toMatch(/"type":"nested_repo_neutralised"[^\n]*"path":"tools"/);
  });
});
