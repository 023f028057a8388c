/**
 * Issue #31, item 4, in the dashboard: `orca --resume ID` of a run killed (kill -9) while two
 * testers worked opens on the old conversation and goes on by itself — both testers continue from
 * their histories in their own panes (marked continued), the coordinator gets their reports and
 * answers — with no call run twice. Needs a build; CI removed from orca's environment (Ink writes
 * only the final frame under CI).
 */
import { describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { RecordedRequest, ScriptedReply } from "../../src/model/scripted.js";
import { agentOf, perAgent, sessionLogs, toolResults } from "../fixtures/harness.js";
import { crashWithTwoTesters, suiteOf } from "../fixtures/team-crash.js";
import { orcaInTmux, scriptedServer, workspace } from "./rig.js";

describe("orca --resume ID in tmux, of a run killed with two sub-agents at work", () => {
  it("continues both testers in their panes, then the coordinator, without a prompt", { timeout: 150_000 }, async () => {
    const w = workspace();
    const id = await crashWithTwoTesters(w, scriptedServer);
    // Read-only tools from here: nothing asks, so the dashboard runs on its own.
    const tester = [
      (r: RecordedRequest): ScriptedReply => ({ toolCalls: [{ id: `call_read_${suiteOf(r)}`, name: "read_file", args: { path: `${suiteOf(r)}.log` } }] }),
      (r: RecordedRequest): ScriptedReply => ({ text: `SUITE-${suiteOf(r).toUpperCase()}-PASSED` }),
    ];
    const live = await scriptedServer(perAgent({ "tester-1": tester, "tester-2": tester, coordinator: [{ text: "TEAM-DONE: both suites passed" }] }));
    const t = orcaInTmux("team-resume", w, ["--resume", id, "--base-url", live.url], { columns: 140, rows: 40 });

    await t.waitFor(
      "the team to finish and the coordinator to answer",
      (s) => {
        expect(s).toContain("TEAM-DONE");
        expect(s).toContain("the stopped run goes on: tester-1, tester-2 continue from their own histories");
        expect(s).toMatch(/tester-\d \[suite A\] done · continued/);
        expect(s).toMatch(/tester-\d \[suite B\] done · continued/);
      },
      90_000,
    );

    // Each tester went on from its own history, with no new prompt; the coordinator got both reports.
    const coordinator = live.requests.filter((r) => agentOf(r) === "coordinator");
    expect(coordinator).toHaveLength(1);
    expect(coordinator[0]!.body.messages.at(-1)?.role).toBe("tool");
    expect(toolResults(coordinator[0]!).get("call_a")).toContain("SUITE-A-PASSED");
    expect(toolResults(coordinator[0]!).get("call_b")).toContain("SUITE-B-PASSED");
    expect(w.read("a.log")).toBe("a\n");
    expect(w.read("b.log")).toBe("b\n");

    t.keys("C-c");
    await t.waitFor("orca to exit", (s) => /EXIT=0/.test(s));
    const events = readLog(sessionLogs(w)[0]!).events;
    expect(events.filter((e) => e.type === "agent_continued").map((e) => e.agentId)).toEqual(["coordinator", "tester-1", "tester-2"]);
  });
});
