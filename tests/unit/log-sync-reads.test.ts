import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readLog, SessionLog } from "../../src/events/log.js";
import type { OrcaEvent } from "../../src/events/types.js";

/**
 * Issue 32 item 6: with 64 agents reading at once, a sync of the log before every call (3–4 ms
 * each, on the event loop) held all of them up. A call queued as a pure read changes nothing, so
 * its start is not synced; every call that may change something still is, and finds everything
 * logged before it on disk.
 */

const base = { ts: 1, sessionId: "s", agentId: "a" };
type Access = Extract<OrcaEvent, { type: "tool_queued" }>["access"];
const queued = (callId: string, access: Access, agentId = "a"): OrcaEvent => ({ ...base, agentId, type: "tool_queued", callId, name: "tool", args: {}, access, waitsFor: [] });
const started = (callId: string, agentId = "a"): OrcaEvent => ({ ...base, agentId, type: "tool_started", callId, name: "tool" });

let dir: string | undefined;
afterEach(() => {
  vi.restoreAllMocks();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function open(): { log: SessionLog; syncs: () => number; file: string } {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-log-sync-"));
  const file = path.join(dir, "s.jsonl");
  const log = new SessionLog(file);
  const spy = vi.spyOn(fs, "fdatasyncSync");
  return { log, syncs: () => spy.mock.calls.length, file };
}

describe("the session log's syncs before a call", () => {
  it("skips a pure read's start, syncs a write's, a command's, an exclusive call's and an unscheduled one's", async () => {
    const { log, syncs, file } = open();
    log.append(queued("r1", { reads: ["src/a.ts"], writes: [] }));
    log.append(started("r1"));
    expect(syncs()).toBe(0);
    log.append(queued("w1", { reads: [], writes: ["src/a.ts"] }));
    log.append(started("w1"));
    expect(syncs()).toBe(1);
    log.append(queued("c1", { reads: ["."], writes: [], command: true }));
    log.append(started("c1"));
    expect(syncs()).toBe(2);
    log.append(queued("x1", "exclusive"));
    log.append(started("x1"));
    expect(syncs()).toBe(3);
    // delegate and other unscheduled tools are never queued: their start is synced by durable(),
    // which their executor awaits before running them; the starts of one turn share the sync.
    log.append(started("d1"));
    log.append(started("d2"));
    expect(syncs()).toBe(3);
    await log.durable();
    expect(syncs()).toBe(4);
    await log.durable();
    expect(syncs()).toBe(4);
    log.close();
    expect(readLog(file).events.map((e) => e.type)).toHaveLength(10);
  });

  it("keys a read by agent and call: another agent's call of the same id that writes is synced", async () => {
    const { log, syncs } = open();
    log.append(queued("call_1", { reads: ["a"], writes: [] }, "explorer-1"));
    log.append(queued("call_1", { reads: [], writes: ["a"] }, "editor-1"));
    log.append(started("call_1", "editor-1"));
    expect(syncs()).toBe(1);
    log.append(started("call_1", "explorer-1"));
    await log.durable();
    expect(syncs()).toBe(1);
    // A second start of the same read (none is expected) is synced: the note is used once.
    log.append(started("call_1", "explorer-1"));
    await log.durable();
    expect(syncs()).toBe(2);
    log.close();
  });

  it("a failed owed sync is the log's failure: durable() rejects with it and the recorder hears of it once", async () => {
    const { log } = open();
    const failures: string[] = [];
    log.record({ subscribe: () => () => {} }, (failure) => failures.push(failure.message));
    vi.mocked(fs.fdatasyncSync).mockImplementation(() => {
      throw Object.assign(new Error("disk gone"), { code: "EIO" });
    });
    log.append(started("d1"));
    await expect(log.durable()).rejects.toThrow(/could not be written \(EIO\)/);
    expect(failures).toHaveLength(1);
    expect(() => log.append(started("d2"))).toThrow(/EIO/);
    await expect(log.durable()).rejects.toThrow(/EIO/);
    log.close();
  });
});

describe("the session log's close (the last thing before exit)", () => {
  const finished: OrcaEvent = { ...base, type: "session_finished", status: "done", durationMs: 1 };
  const message: OrcaEvent = { ...base, type: "user_message", text: "hi" };

  it("syncs nothing more when its last line was synced as it was written (session_finished): one sync ends a run, not two", () => {
    const { log, syncs, file } = open();
    const fsyncs = vi.spyOn(fs, "fsyncSync");
    log.append(message);
    log.append(finished);
    expect(syncs()).toBe(1);
    log.close();
    expect(syncs() + fsyncs.mock.calls.length).toBe(1);
    expect(readLog(file).events.map((e) => e.type)).toEqual(["user_message", "session_finished"]);
  });

  it("syncs what was written after the last sync", () => {
    const { log, syncs } = open();
    const fsyncs = vi.spyOn(fs, "fsyncSync");
    log.append(finished);
    log.append(message);
    log.close();
    expect(syncs()).toBe(1);
    expect(fsyncs).toHaveBeenCalledTimes(1);
  });

  it("a sync that failed is tried again at close", () => {
    const { log } = open();
    const fsyncs = vi.spyOn(fs, "fsyncSync");
    vi.mocked(fs.fdatasyncSync).mockImplementationOnce(() => {
      throw Object.assign(new Error("disk busy"), { code: "EIO" });
    });
    expect(() => log.append(finished)).toThrow(/EIO/);
    log.close();
    expect(fsyncs).toHaveBeenCalledTimes(1);
  });
});
