import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EventInput, OrcaEvent, ToolCall } from "../../src/events/types.js";
import { appliedResult, interruptedWriteResult, notAppliedResult } from "../../src/sessions/interrupted-writes.js";
import { tempsInLog, tempsNamedBy } from "../../src/sessions/leftover-temps.js";
import { INTERRUPTED_RESULT, rebuildSession } from "../../src/sessions/rebuild.js";
import { contentHash } from "../../src/util/content-hash.js";

/**
 * What resume tells the model for a write a crash interrupted, decided from the file on disk
 * against the hashes the call logged (file_write) or its arguments (write_file's content).
 */

let dir: string;
let ts = 1;
const e = (input: EventInput): OrcaEvent => ({ ...input, ts: ts++, sessionId: "s" }) as OrcaEvent;
const A = "before\n";
const B = "after\n";

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-interrupted-")));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A session that crashed with `call` started, its run announcing writes or not, with or without its file_write. */
function crashed(call: ToolCall, opts: { announced: boolean; fileWrite: boolean; resumedWith?: string }): OrcaEvent[] {
  const events = [
    e({ type: "session_started", agentId: "coordinator", workspace: dir, model: "m", configPath: null, version: "0", ...(opts.announced ? { writesAnnounced: true as const } : {}) }),
    e({ type: "agent_started", agentId: "coordinator", name: "coordinator", task: "t", tools: [], depth: 0, model: "m", system: "s" }),
    e({ type: "assistant_message", agentId: "coordinator", content: "", toolCalls: [call] }),
    e({ type: "tool_started", agentId: "coordinator", callId: call.id, name: call.name }),
  ];
  if (opts.fileWrite) events.push(e({ type: "file_write", agentId: "coordinator", callId: call.id, tool: call.name, path: "f.txt", before: contentHash(A), after: contentHash(B), temp: ".orca-tmp-1-0123456789abcdef" }));
  if (opts.resumedWith) {
    events.push(e({ type: "session_started", agentId: "coordinator", workspace: dir, model: "m", configPath: null, version: "0", resumedFrom: "s", interrupted: [{ callId: call.id, result: opts.resumedWith }] }));
  }
  return events;
}

const edit: ToolCall = { id: "c1", name: "edit_file", raw: "", args: { path: "f.txt", old_string: "before", new_string: "after" } };
const write: ToolCall = { id: "c2", name: "write_file", raw: "", args: { path: "f.txt", content: B } };
const told = (events: OrcaEvent[]) => {
  const rebuilt = rebuildSession(events, { interruptedResult: interruptedWriteResult });
  return { result: rebuilt.agents[0]!.history.at(-1)!.content, described: rebuilt.described };
};

describe("an interrupted write is told applied, not applied, or unknown", () => {
  it("edit_file with its file_write: the file's hash decides", () => {
    fs.writeFileSync(path.join(dir, "f.txt"), B);
    expect(told(crashed(edit, { announced: true, fileWrite: true }))).toEqual({ result: appliedResult("f.txt"), described: [{ callId: "c1", result: appliedResult("f.txt") }] });
    fs.writeFileSync(path.join(dir, "f.txt"), A);
    expect(told(crashed(edit, { announced: true, fileWrite: true })).result).toBe(notAppliedResult("f.txt"));
    // Neither: something else changed it since.
    fs.writeFileSync(path.join(dir, "f.txt"), "third\n");
    expect(told(crashed(edit, { announced: true, fileWrite: true }))).toEqual({ result: INTERRUPTED_RESULT, described: [] });
    // A file that did not exist before and still does not.
    fs.rmSync(path.join(dir, "f.txt"));
    expect(told(crashed(edit, { announced: true, fileWrite: true })).result).toBe(INTERRUPTED_RESULT);
  });

  it("no file_write: not applied when its run announces writes, unknown in an older log", () => {
    fs.writeFileSync(path.join(dir, "f.txt"), A);
    expect(told(crashed(edit, { announced: true, fileWrite: false })).result).toBe(notAppliedResult("f.txt"));
    expect(told(crashed(edit, { announced: false, fileWrite: false })).result).toBe(INTERRUPTED_RESULT);
  });

  it("write_file: its content is its new version, with or without file_write", () => {
    fs.writeFileSync(path.join(dir, "f.txt"), B);
    expect(told(crashed(write, { announced: false, fileWrite: false })).result).toBe(appliedResult("f.txt"));
    fs.writeFileSync(path.join(dir, "f.txt"), A);
    expect(told(crashed(write, { announced: false, fileWrite: false })).result).toBe(INTERRUPTED_RESULT);
  });

  it("what an earlier resume told is told again, whatever the file says now; other tools stay unknown", () => {
    fs.writeFileSync(path.join(dir, "f.txt"), B);
    expect(told(crashed(edit, { announced: true, fileWrite: true, resumedWith: notAppliedResult("f.txt") }))).toEqual({ result: notAppliedResult("f.txt"), described: [] });
    const bash: ToolCall = { id: "c3", name: "bash", raw: "", args: { command: "true" } };
    expect(told(crashed(bash, { announced: true, fileWrite: false })).result).toBe(INTERRUPTED_RESULT);
  });

  it("the temporary files a log names are found from its events and from its file alike", () => {
    const events = crashed(edit, { announced: true, fileWrite: true });
    const expected = { workspace: dir, temps: [path.join(dir, ".orca-tmp-1-0123456789abcdef")] };
    expect(tempsNamedBy(events)).toEqual(expected);
    const log = path.join(dir, "s.jsonl");
    fs.writeFileSync(log, events.map((x) => JSON.stringify(x)).join("\n") + "\n");
    expect(tempsInLog(log)).toEqual(expected);
  });
});
