import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { EventBus } from "../../src/events/bus.js";
import { SessionLog } from "../../src/events/log.js";
import type { OrcaEvent } from "../../src/events/types.js";
import { LogWriteError } from "../../src/util/errors.js";

describe("EventBus", () => {
  it("stamps every event of one kind with the same hidden class, whatever else passed before", () => {
    // Node 20's V8 made a new hidden class for every event stamped by a spread that adds
    // properties (`{ ...input, ts, sessionId }`) once the site had seen several event shapes:
    // ~1 µs an event, and every consumer's reads of events megamorphic. V8's own check, in a child
    // process with its natives syntax on.
    const bus = fileURLToPath(new URL("../../src/events/bus.ts", import.meta.url));
    const script = `
      const { EventBus } = await import(${JSON.stringify(bus)});
      const bus = new EventBus("s1");
      const seen = [];
      bus.subscribe((e) => seen.push(e));
      bus.emit({ type: "user_message", agentId: "root", text: "go" });
      bus.emit({ type: "agent_started", agentId: "a1", parentId: "root", name: "n", label: "l", task: "t", tools: [], depth: 1, model: "m", system: "" });
      bus.emit({ type: "tool_started", agentId: "a1", callId: "c1", name: "read_file" });
      bus.emit({ type: "thinking_delta", agentId: "a1", text: "hm" });
      bus.emit({ type: "error", agentId: "a1", where: "model", message: "x" });
      for (let i = 0; i < 50; i++) bus.emit({ type: "text_delta", agentId: "a1", text: "token " + i });
      const [a, b] = seen.slice(-2);
      console.log(JSON.stringify({ same: %HaveSameMap(a, b), keys: Object.keys(b) }));
    `;
    const out = execFileSync(process.execPath, ["--allow-natives-syntax", "--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
    expect(JSON.parse(out)).toEqual({ same: true, keys: ["type", "agentId", "text", "ts", "sessionId"] });
  });

  it("a listener that throws becomes an error event, once; the others still get every event", () => {
    const bus = new EventBus("s1");
    const seen: OrcaEvent[] = [];
    bus.subscribe(() => {
      throw new Error("pane exploded\nwith a stack");
    });
    bus.subscribe((e) => seen.push(e));
    bus.emit({ type: "user_message", agentId: "root", text: "one" });
    bus.emit({ type: "user_message", agentId: "root", text: "two" });
    expect(seen.map((e) => e.type)).toEqual(["error", "user_message", "user_message"]);
    expect(seen[0]).toMatchObject({ type: "error", where: "listener", agentId: "root", message: "an event consumer failed on user_message: pane exploded" });
  });

  it("a listener that throws on the error event itself does not loop", () => {
    const bus = new EventBus("s1");
    let calls = 0;
    bus.subscribe(() => {
      calls++;
      throw new Error("always");
    });
    bus.emit({ type: "user_message", agentId: "root", text: "x" });
    expect(calls).toBe(2);
  });
});

describe("SessionLog", () => {
  it("a write that fails (a full disk: /dev/full) throws a LogWriteError naming the file and the code, then every later append does", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-log-"));
    try {
      const file = path.join(dir, "s.jsonl");
      fs.symlinkSync("/dev/full", file);
      const log = new SessionLog(file);
      const event: OrcaEvent = { type: "user_message", agentId: "root", text: "x", ts: 1, sessionId: "s" };
      expect(() => log.append(event)).toThrow(LogWriteError);
      expect(() => log.append(event)).toThrow(`the session log ${file} could not be written (ENOSPC)`);
      expect(log.failed).toBeInstanceOf(LogWriteError);
      log.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a closed descriptor fails the same way, and close() after it does not throw", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-log-"));
    try {
      const log = new SessionLog(path.join(dir, "s.jsonl"));
      const event: OrcaEvent = { type: "user_message", agentId: "root", text: "x", ts: 1, sessionId: "s" };
      log.append(event);
      fs.closeSync((log as unknown as { fd: number }).fd);
      expect(() => log.append(event)).toThrow(/could not be written \(EBADF\)/);
      expect(() => log.close()).not.toThrow();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
