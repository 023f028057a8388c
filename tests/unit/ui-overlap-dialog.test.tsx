/**
 * `agents.on_overlap: ask` on the dashboard: a delegation whose task scope meets a running task's
 * asks the person in the permission dialog — which tasks, which agent, which files — and the
 * answer decides it. The real session (scripted model over HTTP, real task board and scope
 * check) under the real App and DialogApprover; the keys are the person's.
 */
import { render } from "ink-testing-library";
import { describe, expect, it, vi } from "vitest";
import type { EventOf, OrcaEvent } from "../../src/events/types.js";
import type { ScriptedReply } from "../../src/model/scripted.js";
import { App } from "../../src/ui/App.js";
import { DialogApprover } from "../../src/ui/dialog-approver.js";
import { pressKeys } from "../fixtures/ink.js";
import { agentOf, perAgent, toolResults } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";
import { drawn, orchestra } from "../fixtures/rig-orchestra.js";

const WAIT = { timeout: 20_000, interval: 20 };
/** The answer keys show once the dialog is armed (untouched for a moment after it appeared). */
const ARMED = "y once";

describe("the ask-overlap dialog", () => {
  for (const answer of ["deny", "approve"] as const) {
    it(`shows both tasks, the running agent and the shared files; ${answer === "deny" ? "n with a reason refuses the delegation" : "y lets both run"}`, { timeout: 60_000 }, async () => {
      const ws = workspace({ "src/math.js": "export const add = (a, b) => a + b;\n", "src/io.js": "export {};\n" });
      // The first editor holds its request until the dialog is answered: its task stays in progress meanwhile.
      let release!: () => void;
      const answered = new Promise<void>((resolve) => (release = resolve));
      const editor = [async (): Promise<ScriptedReply> => (await answered, { text: "edited" })];
      const server = await scriptedServer(
        perAgent({
          coordinator: [
            {
              toolCalls: [
                { id: "call_t1", name: "task_create", args: { title: "rework the sources", scope: ["src/*.js"] } },
                { id: "call_t2", name: "task_create", args: { title: "fix add", scope: ["src/math.js"] } },
              ],
            },
            {
              toolCalls: [
                { id: "call_d1", name: "delegate", args: { agent: "editor", task: "rework src", task_id: "t1", background: true } },
                { id: "call_d2", name: "delegate", args: { agent: "editor", task: "fix add", task_id: "t2", background: true } },
              ],
            },
            ...Array.from({ length: 4 }, () => ({ text: "noted" })),
          ],
          "editor-1": editor,
          "editor-2": editor,
        }),
      );
      const approver = new DialogApprover();
      const setup = await orchestra(ws, server.url, { approver, config: "agents:\n  on_overlap: ask\n" });
      const events: OrcaEvent[] = [];
      setup.session.bus.subscribe((e) => events.push(e));
      const r = drawn(render(<App session={setup.session} approver={approver} />));
      const frame = () => r.lastFrame() ?? "";
      const see = (text: string) => vi.waitFor(() => expect(frame()).toContain(text), WAIT);

      const running = setup.session.run("rework the sources and fix add");
      await see("Permission: coordinator wants to run delegate");
      await see("asked by agents.on_overlap: ask");
      await see(`task t2's scope overlaps task t1 "rework the sources", which editor-1 is working on: src/math.js`);
      expect(frame()).not.toContain("src/io.js");
      await see(ARMED);
      if (answer === "deny") await pressKeys(r.stdin, ["n", ..."edit it after editor-1", "\r"]);
      else await pressKeys(r.stdin, ["y"]);
      release();

      // The coordinator's next request carries the delegation's result.
      await vi.waitFor(() => expect(server.requests.filter((q) => agentOf(q) === "coordinator").length).toBeGreaterThanOrEqual(3), WAIT);
      const result = toolResults(server.requests.filter((q) => agentOf(q) === "coordinator")[2]!).get("call_d2")!;
      const overlap = events.filter((e): e is EventOf<"task_overlap"> => e.type === "task_overlap");
      expect(overlap.map((e) => [e.taskId, e.otherTaskId, e.otherAgentId, e.files, e.policy, e.decidedBy])).toEqual([["t2", "t1", "editor-1", ["src/math.js"], "ask", "user"]]);
      if (answer === "deny") {
        expect(result).toBe(
          `Error: not delegated: task t2's scope overlaps task t1 "rework the sources", which editor-1 is working on: src/math.js, and the person declined it (agents.on_overlap: ask): edit it after editor-1.`,
        );
        expect(overlap[0]!.decision).toBe("denied");
        expect(events.some((e) => e.type === "agent_started" && e.agentId === "editor-2")).toBe(false);
        await see("⚠ scope overlap: t2 and t1 (editor-1) both match src/math.js — not delegated: declined");
      } else {
        expect(result).toMatch(/^Note: task t2's scope overlaps task t1 "rework the sources", which editor-1 is working on: src\/math\.js; the person approved running both\.\n\neditor-2 \(editor\) started in the background/);
        expect(overlap[0]!.decision).toBe("approved");
        await see("⚠ scope overlap: t2 and t1 (editor-1) both match src/math.js — approved by the person");
      }
      expect(approver.getSnapshot()).toEqual([]);
      setup.session.cancel();
      await running;
    });
  }
});
