import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { processEnded, toolFinished } from "../../src/events/constructors.js";
import { eventSchema } from "../../src/events/types.js";
import { ROOT } from "../fixtures/harness.js";

const stamp = { ts: 1, sessionId: "s" };
const parse = (event: object) => eventSchema().parse({ ...stamp, ...event });

describe("toolFinished", () => {
  it("derives ok from the status, and the error from the content when none is given", () => {
    const who = { agentId: "explorer-1", parentId: "main" };
    const call = { callId: "c1", name: "read_file" };
    expect(parse(toolFinished(who, call, { status: "ok", content: "1\thi", durationMs: 3, diff: "--- a", versions: [] }))).toEqual({
      ...stamp,
      type: "tool_finished",
      agentId: "explorer-1",
      parentId: "main",
      callId: "c1",
      name: "read_file",
      ok: true,
      status: "ok",
      content: "1\thi",
      durationMs: 3,
      diff: "--- a",
    });
    const denied = parse(toolFinished({ agentId: "main" }, call, { status: "denied", content: "Error: denied by rule read_file(.env)", durationMs: 0, diff: "x" }));
    expect(denied).toMatchObject({ ok: false, status: "denied", error: "denied by rule read_file(.env)" });
    expect(denied).not.toHaveProperty("diff");
    expect(denied).not.toHaveProperty("parentId");
    expect(parse(toolFinished({ agentId: "main" }, call, { status: "timeout", content: "Error: x", error: "killed at 120 s", durationMs: 9 }))).toMatchObject({ ok: false, error: "killed at 120 s" });
  });
});

describe("processEnded", () => {
  const p = { agentId: "main", pgid: 42, kind: "bash" as const, command: "sleep 30", group: true };
  it("a group that ended while orca ran names only its pgid; a reaped one says what it was", () => {
    expect(parse(processEnded(p))).toEqual({ ...stamp, type: "process_ended", agentId: "main", pgid: 42 });
    expect(parse(processEnded(p, true))).toEqual({ ...stamp, type: "process_ended", agentId: "main", pgid: 42, reaped: true, kind: "bash", command: "sleep 30" });
    expect(parse(processEnded({ ...p, kind: "mcp", group: false }, true))).toMatchObject({ kind: "mcp", group: false });
  });
});

/** Every `.ts` file under a folder of src/. */
function sources(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return sources(rel);
    return /\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

describe("events with several producers", () => {
  it("are built only by their constructor: no producer writes tool_finished or process_ended by hand", () => {
    const byHand = sources("src")
      .filter((f) => !["src/events/constructors.ts", "src/events/schema.ts"].includes(f))
      .filter((f) => /type: "(tool_finished|process_ended)"/.test(fs.readFileSync(path.join(ROOT, f), "utf8")));
    expect(byHand).toEqual([]);
  });
});
