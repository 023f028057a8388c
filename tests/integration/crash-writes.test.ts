import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptedReply } from "../../src/model/scripted.js";
import { appliedResult, notAppliedResult } from "../../src/sessions/interrupted-writes.js";
import { contentHash } from "../../src/util/content-hash.js";
import { isTempName } from "../../src/util/atomic-write.js";
import { waitFor } from "../fixtures/crash-kill.js";
import { runOrca, sessionLogs, toolResults, type OrcaRun, type TempWorkspace } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * Issue #35: a file orca writes is always the old content or the new, never a torn one. orca is
 * killed with SIGKILL at moments spread over a large write_file and a large edit_file (32 MiB): the
 * file is checked after every kill, and every temporary file a kill left is gone once the next orca
 * has started. Then the resume: it tells the model whether an interrupted write was applied.
 */

const SIZE = 32 * 1024 * 1024;
const BIG = "big.txt";
const KILLS_INSIDE = 12;
const MAX_ATTEMPTS = 80;

function filler(tag: string, bytes: number): string {
  const line = `${tag} ${"the quick brown fox jumps over the lazy dog 0123456789 ".repeat(1)}\n`;
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes - 1) + "\n";
}

const OLD = `${filler("old", SIZE / 2)}MIDDLE OLD\n${filler("old", SIZE / 2)}`;
const EDITED = OLD.replace("MIDDLE OLD", "MIDDLE NEW");
// write_file's content also travels through the model's stream, the tokenizer and the log twice
// (the call and its tool_queued): 4 MiB keeps a run to a few seconds.
const WRITE_SIZE = 4 * 1024 * 1024;
const OLD_SMALL = filler("old", WRITE_SIZE);
const WRITTEN = filler("new", WRITE_SIZE);

interface Case {
  tool: "write_file" | "edit_file";
  callId: string;
  /** The replies up to and including the big call. */
  replies: () => ScriptedReply[];
  old: string;
  oldHash: string;
  newHash: string;
}

const CASES: Case[] = [
  {
    tool: "edit_file",
    callId: "call_edit",
    replies: () => [{ toolCalls: [{ id: "call_edit", name: "edit_file", args: { path: BIG, old_string: "MIDDLE OLD", new_string: "MIDDLE NEW" } }] }],
    old: OLD,
    oldHash: contentHash(OLD),
    newHash: contentHash(EDITED),
  },
  {
    tool: "write_file",
    callId: "call_write",
    replies: () => [
      // A window of the file is a read of it: the agent may then replace it whole.
      { toolCalls: [{ id: "call_read", name: "read_file", args: { path: BIG, limit: 1 } }] },
      { toolCalls: [{ id: "call_write", name: "write_file", args: { path: BIG, content: WRITTEN } }], chunkChars: WRITE_SIZE },
    ],
    old: OLD_SMALL,
    oldHash: contentHash(OLD_SMALL),
    newHash: contentHash(WRITTEN),
  },
];
// A context window the big arguments fit in: no compaction request between the call and the next.
const CONFIG = { ".orca/config.yaml": "sandbox:\n  enabled: false\nmodel:\n  context_window: 1000000000\n" };

/** The last `bytes` of a file: a log's newest events, without reading the 32 MiB arguments before them. */
function tail(file: string, bytes = 256 * 1024): string {
  const fd = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(fd).size;
    const start = Math.max(0, size - bytes);
    const buffer = Buffer.alloc(size - start);
    fs.readSync(fd, buffer, 0, buffer.length, start);
    return buffer.toString("utf8");
  } finally {
    fs.closeSync(fd);
  }
}

/** The newest events of a log, as far as they are whole lines. */
function tailEvents(file: string): { type: string; ts: number; callId?: string; temp?: string; interrupted?: { callId: string; result: string }[] }[] {
  const lines = tail(file).split("\n");
  lines.shift();
  const out = [];
  for (const line of lines) {
    try {
      out.push(JSON.parse(line) as ReturnType<typeof tailEvents>[number]);
    } catch {
      // the cut first line, or a torn last one
    }
  }
  return out;
}

function temps(dir: string): string[] {
  return fs.readdirSync(dir).filter(isTempName);
}

function fileHash(abs: string): string {
  return contentHash(fs.readFileSync(abs));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Start {
  run: Promise<OrcaRun>;
  pid: () => number;
  log: () => string | undefined;
}

/** Starts `orca -p` on a fresh scripted server; the log it writes is the one not there before. */
async function start(w: TempWorkspace, replies: ScriptedReply[], args: string[] = ["-p", "rewrite big.txt"]): Promise<Start> {
  const server = await scriptedServer(replies);
  const before = new Set(sessionLogs(w));
  let pid = 0;
  const run = runOrca([...args, "--base-url", server.url, "--yes"], { ws: w, onSpawn: (p) => (pid = p), timeoutMs: 120_000 });
  return { run, pid: () => pid, log: () => sessionLogs(w).find((f) => !before.has(f)) };
}

/** Resolves once a temporary file of orca's shows in `dir` (polled without pause), or after `withinMs`. */
function tempShows(dir: string, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  return new Promise<void>((resolve) => {
    const poll = () => (temps(dir).length || Date.now() > deadline ? resolve() : setImmediate(poll));
    poll();
  });
}

/** Whether the newest lines of the call's log show `type` for the call. */
function logged(run: Start, type: string, callId: string, bytes = 64 * 1024): boolean {
  const log = run.log();
  return log !== undefined && tail(log, bytes).split("\n").some((line) => line.includes(`"type":"${type}"`) && line.includes(`"callId":"${callId}"`));
}

/**
 * Resolves as soon as the log shows the call's tool_started. Once its permission is decided (just
 * before), the log is polled without pause — a stat, and a read of its end when it grew — so the
 * kill's delay counts from the moment the call started, not from the next tick of a timer.
 */
async function started(run: Start, callId: string): Promise<void> {
  await waitFor(() => logged(run, "permission_decided", callId), `${callId}'s permission`, 60_000);
  const deadline = Date.now() + 60_000;
  let size = -1;
  await new Promise<void>((resolve, reject) => {
    const poll = () => {
      const now = fs.statSync(run.log()!).size;
      if (now !== size) {
        size = now;
        if (logged(run, "tool_started", callId, 4096)) return resolve();
      }
      if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${callId} to start`));
      setImmediate(poll);
    };
    poll();
  });
}

describe("a SIGKILL during a large write leaves the old content or the new, never a torn file", () => {
  for (const c of CASES) {
    it(`${c.tool} of a large file (${c.old.length >> 20} MiB), killed at moments spread over the write`, { timeout: 900_000 }, async () => {
      const ws = workspace(CONFIG);
      const big = ws.file(BIG);
      fs.writeFileSync(big, c.old);

      // One uninterrupted run: the write lands whole, and its duration sets the spread of the kills.
      const full = await start(ws, [...c.replies(), { text: "done" }]);
      const done = await full.run;
      expect(done.code, done.stderr).toBe(0);
      expect(fileHash(big)).toBe(c.newHash);
      expect(temps(ws.dir)).toEqual([]);
      // How long the call takes, and when it makes its temporary file, after tool_started: taken
      // from every run whose call finished (the median), so the kills follow what the machine does now.
      const durations: number[] = [];
      const tempTimes: number[] = [];
      const learn = (log: string) => {
        const events = tailEvents(log);
        const at = (type: string) => events.find((e) => e.type === type && e.callId === c.callId);
        const [started, made, finished] = [at("tool_started"), at("file_write"), at("tool_finished")];
        if (!started || !finished) return;
        // From the log's times: durationMs also counts the call's queueing (logging its arguments).
        durations.push(finished.ts - started.ts);
        if (made) tempTimes.push(made.ts - started.ts);
      };
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
      learn(full.log()!);
      // Half the kills anywhere over the write, half around the temporary file's short life.
      const delay = () => (Math.random() < 0.5 || !tempTimes.length ? Math.random() * median(durations) * 1.1 : median(tempTimes) + Math.random() * 100);

      let inside = 0;
      let leftTemp = 0;
      let afterRename = 0;
      let pendingTemps: string[] = [];
      let previousLog: string | undefined;
      for (let attempt = 0; attempt < MAX_ATTEMPTS && (inside < KILLS_INSIDE || leftTemp < 1); attempt++) {
        fs.writeFileSync(big, c.old);
        const run = await start(ws, [...c.replies(), { kind: "hang" }]);
        await started(run, c.callId);
        // This orca started after the last kill: the temporary files that kill left are gone.
        for (const t of pendingTemps) expect(fs.existsSync(ws.file(t)), `${t} left by attempt ${attempt - 1}`).toBe(false);
        // Its log has served (the start read the temporary files' names from it): 64 MiB a run is too much to keep.
        if (previousLog) fs.rmSync(previousLog);
        // A moment spread over the write: the kill lands wherever it lands, and the file must hold.
        // While no kill has caught a temporary file yet, every third one is aimed at it: killed as
        // soon as it shows (a fast disk keeps it only a few ms, which random moments can miss).
        if (leftTemp < 1 && attempt % 3 === 2) await tempShows(ws.dir, median(durations) * 2 + 1_000);
        else await sleep(delay());
        process.kill(run.pid(), "SIGKILL");
        expect((await run.run).signal).toBe("SIGKILL");

        const events = tailEvents(run.log()!);
        const finished = events.some((e) => e.type === "tool_finished" && e.callId === c.callId);
        if (finished) learn(run.log()!);
        const hash = fileHash(big);
        expect([c.oldHash, c.newHash], `attempt ${attempt}: ${fs.statSync(big).size} bytes`).toContain(hash);
        if (!finished) inside++;
        if (!finished && hash === c.newHash) afterRename++;
        previousLog = run.log();
        pendingTemps = temps(ws.dir);
        if (pendingTemps.length) {
          leftTemp++;
          // Named in the log before it was created: that is how the next start knows it.
          const named = events.filter((e) => e.type === "file_write").map((e) => e.temp);
          expect(named).toEqual(expect.arrayContaining(pendingTemps));
        }
      }
      expect(inside).toBeGreaterThanOrEqual(KILLS_INSIDE);
      // At least one kill left a temporary file, which the next start removed (checked above).
      expect(leftTemp).toBeGreaterThanOrEqual(1);

      // The next start, whatever it runs, removes what the last kill left.
      const next = await start(ws, [{ text: "hello" }], ["-p", "hi"]);
      expect((await next.run).code).toBe(0);
      expect(temps(ws.dir)).toEqual([]);
      console.log(`${c.tool}: ${inside} kills inside the write (${afterRename} after its rename), ${leftTemp} left a temporary file; the write took ${median(durations)} ms (median), its temporary file was made after ${tempTimes.length ? median(tempTimes) : "-"} ms`);
    });
  }
});

describe("resume says whether an interrupted write was applied", () => {
  /**
   * Kills orca during the edit once `condition` holds (polled as fast as the test can), retrying
   * until a kill lands before the call's tool_finished. Returns the session id.
   */
  async function killDuringEdit(w: TempWorkspace, condition: (oldInode: number) => boolean): Promise<string> {
    const edit = CASES[0]!;
    for (let attempt = 0; attempt < 20; attempt++) {
      fs.rmSync(w.file(BIG), { force: true });
      fs.writeFileSync(w.file(BIG), OLD);
      const inode = fs.statSync(w.file(BIG)).ino;
      const run = await start(w, [...edit.replies(), { kind: "hang" }]);
      await started(run, edit.callId);
      await new Promise<void>((resolve) => {
        const poll = () => (condition(inode) ? resolve() : setImmediate(poll));
        poll();
      });
      process.kill(run.pid(), "SIGKILL");
      await run.run;
      const log = run.log()!;
      if (!tailEvents(log).some((e) => e.type === "tool_finished" && e.callId === edit.callId)) return path.basename(log, ".jsonl");
      // The kill came after the call had finished: not an interrupted write, so again.
      for (const f of sessionLogs(w)) fs.rmSync(f);
    }
    throw new Error("no kill landed inside the edit in 20 attempts");
  }

  async function resumeAndRead(w: TempWorkspace, id: string): Promise<{ told: string; run: OrcaRun }> {
    const server = await scriptedServer([{ text: "resumed" }]);
    const run = await runOrca(["--resume", id, "-p", "go on", "--base-url", server.url, "--yes"], { ws: w, timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    return { told: toolResults(server.requests[0]!).get("call_edit")!, run };
  }

  it("killed while the temporary file is being written: not applied, the temporary file is gone after the resume, and a later resume tells the same", { timeout: 300_000 }, async () => {
    const ws = workspace(CONFIG);
    const id = await killDuringEdit(ws, () => temps(ws.dir).length > 0);
    expect(fileHash(ws.file(BIG))).toBe(CASES[0]!.oldHash);
    expect(temps(ws.dir)).not.toEqual([]);
    const first = await resumeAndRead(ws, id);
    expect(first.told).toBe(notAppliedResult(BIG));
    expect(temps(ws.dir)).toEqual([]);
    // What was told is in the log: a later resume tells the same, whatever the file holds by then.
    const log = sessionLogs(ws).find((f) => f.endsWith(`${id}.jsonl`))!;
    const resumed = tailEvents(log).filter((e) => e.type === "session_started").at(-1)!;
    expect(resumed.interrupted).toEqual([{ callId: "call_edit", result: notAppliedResult(BIG) }]);
    fs.writeFileSync(ws.file(BIG), EDITED);
    expect((await resumeAndRead(ws, id)).told).toBe(notAppliedResult(BIG));
  });

  it("killed after the rename, before the call finished: applied", { timeout: 300_000 }, async () => {
    const ws = workspace(CONFIG);
    const big = ws.file(BIG);
    // The rename gives the file a new inode: the moment the write lands.
    const id = await killDuringEdit(ws, (oldInode) => fs.statSync(big).ino !== oldInode);
    expect(fileHash(big)).toBe(CASES[0]!.newHash);
    expect((await resumeAndRead(ws, id)).told).toBe(appliedResult(BIG));
  });
});
