import { spawn } from "node:child_process";
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { proofOf, reapProcesses, type Leftover } from "../../src/sessions/leftovers.js";
import { processStartTime } from "../../src/util/proc.js";
import { alive } from "../fixtures/processes.js";
import { runOrca, sessionLogs, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

/**
 * Issue 33: a log whose process_started had no start time made `orca sessions --reap` end an
 * unrelated process group — the pid-reuse check was skipped. Without proof, nothing is signalled.
 */

let server: ScriptedServer | undefined;
let ws: TempWorkspace | undefined;
/** Started here, with their start times: ended after each test only by that proof. */
const started: Leftover[] = [];

afterEach(async () => {
  await server?.close();
  await reapProcesses(started.splice(0), 100);
  ws?.cleanup();
  server = undefined;
  ws = undefined;
});

/** An unrelated process group: a sleep leading its own group, as any program of the user's. */
function bystander(marker: string): number {
  const child = spawn("sleep", [marker], { detached: true, stdio: "ignore" });
  child.unref();
  started.push({ pgid: child.pid!, startTime: processStartTime(child.pid!), kind: "bash", command: "sleep", agentId: "test" });
  return child.pid!;
}

describe("the reaper needs proof", () => {
  it("orca sessions --reap leaves a group alone whose record has no start time, says so, and closes the record", async () => {
    server = await startScriptedServer([{ text: "hello" }]);
    ws = tempWorkspace();
    const first = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
    expect(first.code, first.stderr).toBe(0);
    const log = sessionLogs(ws)[0]!;
    const { sessionId } = readLog(log).events[0]!;
    const pgid = bystander("41.0404");
    // A record as a crashed run (or a hand-edited log) could leave it: started, never ended, no start time.
    fs.appendFileSync(log, `${JSON.stringify({ type: "process_started", ts: Date.now(), sessionId, agentId: "coordinator", pgid, startTime: null, kind: "bash", command: "forged" })}\n`);

    const reap = await runOrca(["sessions", "--reap"], { ws });
    expect(reap.code, reap.stderr).toBe(0);
    expect(alive(pgid)).toBe(true);
    expect(reap.stdout.trim().split("\n").filter((l) => !l.startsWith("config: "))).toEqual([
      `left process group ${pgid} alone (session ${sessionId}): its record has no start time that proves it is the one orca started (bash: forged)`,
    ]);
    // Said once: the record is closed, not reaped.
    const again = await runOrca(["sessions", "--reap"], { ws });
    expect(again.stdout).toContain("no process left running by a crashed run");
    expect(alive(pgid)).toBe(true);
    expect(readLog(log).events.at(-1)).toMatchObject({ type: "process_ended", pgid });
    expect(readLog(log).events.at(-1)).not.toHaveProperty("reaped");
  }, 60_000);

  it("proofOf: no start time or an unreadable one is unproven; another start time is gone; the recorded one is ours", () => {
    const pgid = bystander("42.0404");
    const real = processStartTime(pgid);
    const base: Leftover = { pgid, startTime: null, kind: "bash", command: "sleep", agentId: "a" };
    expect(proofOf(base)).toBe("unproven");
    expect(proofOf({ ...base, group: false })).toBe("unproven");
    expect(proofOf({ ...base, startTime: `${real}9` })).toBe("gone");
    expect(proofOf({ ...base, startTime: real })).toBe("ours");
    expect(alive(pgid)).toBe(true);
  });
});
