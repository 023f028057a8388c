/**
 * The sandbox's stand-ins (issue 26): a missing protected path (.orca, .mcp.json, .claude…) gets
 * an inert stand-in only while a sandboxed process runs. Through the real bin with real bwrap: a
 * scripted model calls bash, and the test looks at the user's tree on the host — during the run,
 * after each command, after orca has ended on a signal.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from "../../src/model/scripted.js";
import { lastToolResult, runOrca, tempWorkspace, type OrcaRun, type TempWorkspace } from "../fixtures/harness.js";
import { processesWith } from "../fixtures/processes.js";

let servers: ScriptedServer[] = [];
let ws: TempWorkspace | undefined;
afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
  ws?.cleanup();
  ws = undefined;
});

const bash = (command: string, background = false): ScriptedReply => ({
  toolCalls: [{ name: "bash", args: { command, ...(background ? { run_in_background: true } : {}) } }],
});

const PROTECTED = [".orca", ".mcp.json", ".claude", ".agents", ".vscode", ".idea", ".git"];

/** What of the workspace is there: what the user (or the command) made, never a stand-in. */
const tree = () => fs.readdirSync(ws!.dir).sort();
const treeBecomes = (names: string[]) => vi.waitFor(() => expect(tree(), "the user's tree").toEqual(names), { timeout: 10_000, interval: 20 });
const isStandIn = (name: string) => fs.statSync(ws!.file(name), { throwIfNoEntry: false })?.isDirectory() === true && fs.readdirSync(ws!.file(name)).length === 0;

/**
 * A temp dir of the test's own for orca's session dirs: another orca starting meanwhile (tests run
 * in parallel) would otherwise clean up what an orca under test failed to, and hide it.
 */
function privateTmp(): { TMPDIR: string } {
  const dir = path.join(ws!.home, "tmp");
  fs.mkdirSync(dir, { recursive: true });
  return { TMPDIR: dir };
}

/** orca -p --yes on a scripted model that answers `replies` and then hangs; `stop` ends it with a signal. */
async function startOrca(replies: ScriptedReply[]): Promise<{ server: ScriptedServer; stop(signal: NodeJS.Signals): Promise<OrcaRun> }> {
  const server = await startScriptedServer([...replies, { kind: "hang" }]);
  servers.push(server);
  ws ??= tempWorkspace();
  let pid = 0;
  const running = runOrca(["-p", "go", "--base-url", server.url, "--yes"], { ws, env: privateTmp(), onSpawn: (p) => (pid = p), timeoutMs: 60_000 });
  return {
    server,
    stop: (signal) => {
      process.kill(pid, signal);
      return running;
    },
  };
}

describe("stand-ins are there only while a sandboxed process runs", () => {
  it("after a writing command has finished, nothing orca made is in the user's tree, while orca still runs", async () => {
    const orca = await startOrca([bash("echo hi > out.txt")]);
    await vi.waitFor(() => expect(orca.server.requests.length).toBe(2), { timeout: 30_000 });
    await treeBecomes(["out.txt"]);
    await orca.stop("SIGTERM");
    expect(tree()).toEqual(["out.txt"]);
  }, 60_000);

  it("during a command the protected paths cannot be made, not even by a process that outlives it in the background", async () => {
    const attempt = "mkdir .orca .claude .git; echo '{}' > .mcp.json; mkdir -p .vscode/x";
    const orca = await startOrca([
      bash(
        // Escaped from the command's process group, trying again and again while the command runs
        // (it waits for a hundred tries) and while it ends.
        `setsid bash -c 'for _ in $(seq 100); do ${attempt}; done; echo > tried; while :; do ${attempt}; done' </dev/null >/dev/null 2>&1 & ` +
          `${attempt}; while [ ! -f tried ]; do sleep 0.02; done; echo attempted > marker; ls -a`,
      ),
    ]);
    await vi.waitFor(() => expect(orca.server.requests.length).toBe(2), { timeout: 30_000 });
    const result = lastToolResult(orca.server.requests[1]!);
    expect(result).toContain("Read-only file system");
    // The command saw its stand-ins…
    expect(result).toContain(".mcp.json");
    // …and once it has ended the host has none, and nothing was made in their place.
    await treeBecomes(["marker", "tried"]);
    await orca.stop("SIGTERM");
    expect(tree()).toEqual(["marker", "tried"]);
  }, 60_000);

  it("a background shell keeps the protection while other commands end, and its end removes the stand-ins", async () => {
    const orca = await startOrca([
      bash("while [ ! -f go ]; do sleep 0.02; done; mkdir .orca/agents; echo '{}' > .mcp.json; echo tried > bg-done", true),
      bash("echo foreground > fg.txt"),
    ]);
    await vi.waitFor(() => expect(orca.server.requests.length).toBe(3), { timeout: 30_000 });
    // The foreground command has ended; the background shell still relies on the stand-ins.
    expect(isStandIn(".orca") && isStandIn(".mcp.json")).toBe(true);
    fs.writeFileSync(ws!.file("go"), "");
    await vi.waitFor(() => expect(fs.existsSync(ws!.file("bg-done"))).toBe(true), { timeout: 10_000 });
    await treeBecomes(["bg-done", "fg.txt", "go"]);
    await orca.stop("SIGTERM");
    expect(tree()).toEqual(["bg-done", "fg.txt", "go"]);
  }, 60_000);

  it("a workspace's hook, sandboxed after the command has ended, has its own stand-ins: it cannot make the paths either", async () => {
    const attempt = "echo '{}' > .mcp.json; mkdir .claude .vscode";
    ws = tempWorkspace({
      ".orca/hooks/after.sh": `#!/usr/bin/env bash\nfor _ in $(seq 50); do ${attempt}; done 2>/dev/null\necho ran > "$CLAUDE_PROJECT_DIR/hook-ran"\n`,
      ".orca/config.yaml": "hooks:\n  PostToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: 'bash \"$CLAUDE_PROJECT_DIR\"/.orca/hooks/after.sh'\n",
    });
    const orca = await startOrca([bash("echo hi > out.txt")]);
    await vi.waitFor(() => expect(orca.server.requests.length).toBe(2), { timeout: 30_000 });
    await treeBecomes([".orca", "hook-ran", "out.txt"]);
    await orca.stop("SIGTERM");
    expect(tree()).toEqual([".orca", "hook-ran", "out.txt"]);
  }, 60_000);

  it.each(["SIGTERM", "SIGHUP"] as const)("%s to orca during a command leaves nothing behind", async (signal) => {
    const orca = await startOrca([bash("touch started; sleep 30.0606")]);
    await vi.waitFor(() => expect(fs.existsSync(ws!.file("started"))).toBe(true), { timeout: 30_000 });
    expect(PROTECTED.filter(isStandIn), "the stand-ins while the command runs").toEqual(PROTECTED);
    await orca.stop(signal);
    expect(processesWith("30.0606"), "the command outlived orca").toEqual([]);
    expect(tree()).toEqual(["started"]);
  }, 60_000);
});

it("a second orca beside a session whose .mcp.json stand-in is in place starts without an EISDIR warning", async () => {
  const first = await startOrca([bash("touch started; while [ ! -f go ]; do sleep 0.02; done")]);
  await vi.waitFor(() => expect(fs.existsSync(ws!.file("started"))).toBe(true), { timeout: 30_000 });
  expect(isStandIn(".mcp.json")).toBe(true);
  const second = await startScriptedServer([{ text: "hello" }]);
  servers.push(second);
  const run = await runOrca(["-p", "hi", "--base-url", second.url], { ws: ws!, env: privateTmp() });
  fs.writeFileSync(ws!.file("go"), "");
  await vi.waitFor(() => expect(first.server.requests.length).toBe(2), { timeout: 30_000 });
  await first.stop("SIGTERM");
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).not.toMatch(/EISDIR|\.mcp\.json/);
  expect(tree()).toEqual(["go", "started"]);
}, 60_000);
