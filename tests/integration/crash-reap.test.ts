import { spawn } from "node:child_process";
import fs from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { EventOf } from "../../src/events/types.js";
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from "../../src/model/scripted.js";
import { reapProcesses, stillRunning, unendedProcesses, type Leftover } from "../../src/sessions/leftovers.js";
import { CommandLauncher } from "../../src/tools/builtin/launch.js";
import { signalGroup } from "../../src/tools/builtin/process-group.js";
import { Workspace } from "../../src/tools/workspace.js";
import { processStartTime } from "../../src/util/proc.js";
import { logText, runAndKill } from "../fixtures/crash-kill.js";
import { alive, processesWith } from "../fixtures/processes.js";
import { openSandbox } from "../fixtures/sandbox.js";
import { runOrca, sessionLogs, stderrBesidesReport, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

/**
 * No orphan outlives a crash: the log names every process group orca starts, and a resume of the
 * session (or `orca sessions --reap`) ends those a killed run left running — only those, checked by
 * the start time of their leader, never a stranger that got the same pid.
 */

const servers: ScriptedServer[] = [];
let ws: TempWorkspace | undefined;
/** Groups a test started, with their leader's start time: ended after it if still running — never by bare pid, which may be someone else's by then. */
const strays: Leftover[] = [];
const stray = (pgid: number): void => void strays.push({ pgid, startTime: processStartTime(pgid), kind: "bash", command: "stray", agentId: "test" });

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await reapProcesses(strays.splice(0), 100);
  ws?.cleanup();
  ws = undefined;
});

async function server(replies: ScriptedReply[]): Promise<ScriptedServer> {
  const s = await startScriptedServer(replies);
  servers.push(s);
  return s;
}

const bash = (args: Record<string, unknown>, id: string): ScriptedReply => ({ toolCalls: [{ id, name: "bash", args }] });

/**
 * Starts a run that puts a background shell (`sleep <bg>`) and a foreground command (`sleep <fg>`)
 * to work, then kills orca with SIGKILL. Outside a sandbox (sandbox.enabled: false) both outlive it.
 */
async function crashWithTwoGroups(bg: string, fg: string): Promise<{ id: string; file: string }> {
  ws = tempWorkspace({ ".orca/config.yaml": "sandbox:\n  enabled: false\n" });
  const first = await server([
    bash({ command: `sleep ${bg}`, run_in_background: true }, "call_bg"),
    bash({ command: `echo started > fg.txt; sleep ${fg}` }, "call_fg"),
    { kind: "hang" },
  ]);
  const killed = await runAndKill(
    ["-p", "start both", "--base-url", first.url, "--yes"],
    ws,
    // The log is written right after each spawn, but on a loaded machine orca can be preempted
    // between the two while the command already runs: the kill waits until both are on record.
    () => fs.existsSync(ws!.file("fg.txt")) && processesWith(fg).length > 0 && processesWith(bg).length > 0 && recordedStarts(ws!) === 2,
    "both commands to run and be on record",
  );
  expect(killed.signal).toBe("SIGKILL");
  const [file] = sessionLogs(ws);
  const events = readLog(file!).events;
  const started = events.filter((e): e is EventOf<"process_started"> => e.type === "process_started");
  expect(started.map((e) => [e.kind, e.command])).toEqual([
    ["background", `sleep ${bg}`],
    ["bash", `echo started > fg.txt; sleep ${fg}`],
  ]);
  for (const e of started) expect(e.startTime).toMatch(/:\d+$/);
  // Both outlived orca: nothing would ever end them.
  expect(processesWith(bg)).not.toEqual([]);
  expect(processesWith(fg)).not.toEqual([]);
  return { id: events[0]!.sessionId, file: file! };
}

/** How many process_started events the session log holds so far. */
function recordedStarts(workspace: TempWorkspace): number {
  return logText(workspace).split("\n").filter((line) => line.includes('"type":"process_started"')).length;
}

describe("a crash leaves no orphan for long", () => {
  it("kill -9 during a background shell and a foreground sleep: the resume ends both groups and says so, one line each", { timeout: 60_000 }, async () => {
    const { id, file } = await crashWithTwoGroups("31.0303", "32.0404");
    const second = await server([{ text: "carried on" }]);
    const resumed = await runOrca(["--resume", id, "-p", "continue", "--base-url", second.url], { ws: ws! });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim()).toBe("carried on");
    const lines = stderrBesidesReport(resumed.stderr).split("\n").filter(Boolean).sort();
    expect(lines).toEqual([
      expect.stringMatching(/^orca: ended process group \d+ left running by a crashed run \(background: sleep 31\.0303\)$/),
      expect.stringMatching(/^orca: ended process group \d+ left running by a crashed run \(bash: echo started > fg\.txt; sleep 32\.0404\)$/),
    ]);
    // Ended before the new run started, and recorded: the log no longer names a group left open.
    expect(processesWith("31.0303")).toEqual([]);
    expect(processesWith("32.0404")).toEqual([]);
    const events = readLog(file).events;
    expect(events.filter((e) => e.type === "process_ended" && e.reaped)).toHaveLength(2);
    expect(unendedProcesses(events)).toEqual([]);
  });

  it("orca sessions --reap ends them too, and a second --reap finds nothing", { timeout: 60_000 }, async () => {
    const { id } = await crashWithTwoGroups("33.0505", "34.0606");
    const reap = await runOrca(["sessions", "--reap"], { ws: ws! });
    expect(reap.code, reap.stderr).toBe(0);
    expect(reap.stdout.split("\n").filter((l) => l.startsWith("ended")).sort()).toEqual([
      expect.stringMatching(new RegExp(`^ended process group \\d+ left running by a crashed run of session ${id} \\(background: sleep 33\\.0505\\)$`)),
      expect.stringMatching(new RegExp(`^ended process group \\d+ left running by a crashed run of session ${id} \\(bash: echo started > fg\\.txt; sleep 34\\.0606\\)$`)),
    ]);
    expect(processesWith("33.0505")).toEqual([]);
    expect(processesWith("34.0606")).toEqual([]);
    const again = await runOrca(["sessions", "--reap"], { ws: ws! });
    expect(again.stdout).toContain("no process left running by a crashed run");
  });

  it("a concurrent resume: the second process exits 2 with `session … is in use by pid …`", { timeout: 60_000 }, async () => {
    ws = tempWorkspace();
    const first = await server([{ text: "first run done" }]);
    const done = await runOrca(["-p", "start", "--base-url", first.url], { ws });
    expect(done.code).toBe(0);
    const id = readLog(sessionLogs(ws)[0]!).events[0]!.sessionId;

    // The first resume holds the session while its model request hangs.
    const hanging = await server([{ kind: "hang" }]);
    let pid = 0;
    const holder = runOrca(["--resume", id, "-p", "go on", "--base-url", hanging.url], { ws, onSpawn: (p) => (pid = p), timeoutMs: 60_000 });
    await vi.waitFor(() => expect(hanging.requests).toHaveLength(1), { timeout: 30_000, interval: 25 });

    const second = await server([{ text: "never asked" }]);
    const refused = await runOrca(["--resume", id, "-p", "me too", "--base-url", second.url], { ws });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`orca: session ${id} is in use by pid ${pid}\n`);
    expect(second.requests).toHaveLength(0);

    // Once the holder is gone — even killed, leaving its lock behind — the session can be resumed.
    process.kill(pid, "SIGKILL");
    await holder;
    expect(fs.existsSync(`${sessionLogs(ws).find((f) => f.endsWith(".jsonl"))!}.lock`)).toBe(true);
    const third = await server([{ text: "resumed after all" }]);
    const after = await runOrca(["--resume", id, "-p", "now", "--base-url", third.url], { ws });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout.trim()).toBe("resumed after all");
  });
});

describe("leftovers are checked by their leader's start time", () => {
  function detachedSleep(marker: string): Promise<number> {
    const child = spawn("sleep", [marker], { detached: true, stdio: "ignore" });
    child.unref();
    stray(child.pid!);
    return Promise.resolve(child.pid!);
  }

  it("a live group whose leader has another start time (a reused pid) is not touched; the recorded one is ended", async () => {
    const pgid = await detachedSleep("35.0707");
    const real = processStartTime(pgid);
    const stranger: Leftover = { pgid, startTime: `${real}9`, kind: "bash", command: "sleep", agentId: "a" };
    expect(stillRunning(stranger)).toBe(false);
    expect(await reapProcesses([stranger], 500)).toEqual([{ process: stranger, result: "gone" }]);
    expect(alive(pgid)).toBe(true);

    const ours: Leftover = { ...stranger, startTime: real };
    expect(stillRunning(ours)).toBe(true);
    expect(await reapProcesses([ours], 500)).toEqual([{ process: ours, result: "ended" }]);
    expect(processesWith("35.0707")).toEqual([]);
  });

  it("a group whose leader is gone but whose members live on is still ended", async () => {
    // bash leads the group, starts a sleep in it and exits at once: the sleep is an orphan of the group.
    const child = spawn("bash", ["-c", "sleep 36.0808 & echo $!"], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
    stray(child.pid!);
    const startTime = processStartTime(child.pid!);
    await new Promise((resolve) => child.once("exit", resolve));
    await vi.waitFor(() => expect(processesWith("36.0808")).toHaveLength(1));
    const leftover: Leftover = { pgid: child.pid!, startTime, kind: "bash", command: "sleep", agentId: "a" };
    expect(stillRunning(leftover)).toBe(true);
    expect(await reapProcesses([leftover], 500)).toEqual([{ process: leftover, result: "ended" }]);
    expect(processesWith("36.0808")).toEqual([]);
  });
});

describe("with the sandbox, the group orca starts is bwrap's", () => {
  it("ending that group ends every process in the sandbox's pid namespace", { timeout: 30_000 }, async () => {
    ws = tempWorkspace();
    const sandbox = await openSandbox({ workspace: new Workspace(ws.dir) });
    try {
      const launcher = new CommandLauncher(sandbox);
      // A child in the sandbox that leaves the command's group (setsid): signalling the group alone would miss it.
      const { child, pid } = await launcher.launch("setsid sleep 37.0909 & sleep 38.1010", ws.dir);
      stray(pid);
      await vi.waitFor(() => expect(sleepers("37.0909").length + sleepers("38.1010").length).toBe(2), { timeout: 10_000 });
      const exited = new Promise((resolve) => child.once("exit", resolve));
      signalGroup(pid, "SIGKILL");
      await exited;
      // bwrap died; its init got SIGKILL (--die-with-parent) and the kernel ended the whole namespace.
      await vi.waitFor(() => expect([...processesWith("37.0909"), ...processesWith("38.1010")]).toEqual([]), { timeout: 10_000 });
    } finally {
      await sandbox.close();
    }
  });
});

/** The sleeps themselves: bwrap's and bash's command lines name the marker too. */
function sleepers(marker: string): number[] {
  return processesWith(marker).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "sleep";
    } catch {
      return false;
    }
  });
}

