import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lockSessionLog, SessionLog } from "../../src/events/log.js";
import { SessionInUse } from "../../src/util/errors.js";
import { PidLock } from "../../src/util/pid-lock.js";
import { processStartTime, sameProcess } from "../../src/util/proc.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function tmp(): string {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-lock-"));
  return dir;
}

/** A pid that belonged to a process that has exited (and was reaped). */
async function deadPid(): Promise<number> {
  const child = spawn("true");
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
}

describe("processStartTime", () => {
  it("names this process and tells a reused pid apart", () => {
    const start = processStartTime(process.pid);
    expect(start).toMatch(/^[0-9a-f-]*:\d+$/);
    expect(sameProcess(process.pid, start)).toBe(true);
    expect(sameProcess(process.pid, `${start}0`)).toBe(false);
  });
});

describe("PidLock", () => {
  it("one holder at a time: a second acquire names the live holder; release frees it", () => {
    const file = path.join(tmp(), "s.jsonl.lock");
    const first = PidLock.acquire(file);
    expect(first).toBeInstanceOf(PidLock);
    expect(PidLock.acquire(file)).toEqual({ heldBy: { pid: process.pid, startTime: processStartTime(process.pid) } });
    (first as PidLock).release();
    const again = PidLock.acquire(file);
    expect(again).toBeInstanceOf(PidLock);
    (again as PidLock).release();
    expect(fs.readdirSync(dir!)).toEqual([]);
  });

  it("a lock whose holder died is stale and taken over", async () => {
    const file = path.join(tmp(), "s.jsonl.lock");
    fs.writeFileSync(file, JSON.stringify({ pid: await deadPid(), startTime: "x:1" }));
    const lock = PidLock.acquire(file);
    expect(lock).toBeInstanceOf(PidLock);
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toMatchObject({ pid: process.pid });
  });

  it("a lock whose pid now belongs to another process (a reused pid) is stale and taken over", () => {
    const file = path.join(tmp(), "s.jsonl.lock");
    // pid 1 is alive, but it is not the process that wrote this lock: its start time differs.
    fs.writeFileSync(file, JSON.stringify({ pid: 1, startTime: "another-boot:12345" }));
    expect(PidLock.acquire(file)).toBeInstanceOf(PidLock);
  });

  it("a damaged lock names nobody and is taken over", () => {
    const file = path.join(tmp(), "s.jsonl.lock");
    fs.writeFileSync(file, "{not json");
    expect(PidLock.acquire(file)).toBeInstanceOf(PidLock);
  });

  it("a session log takes its lock: a second writer is refused with SessionInUse naming the pid", () => {
    const file = path.join(tmp(), "20260101-000000-abcdef.jsonl");
    const log = new SessionLog(file);
    expect(() => new SessionLog(file)).toThrow(SessionInUse);
    expect(() => lockSessionLog(file)).toThrow(`session 20260101-000000-abcdef is in use by pid ${process.pid}`);
    log.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    new SessionLog(file).close();
  });
});
