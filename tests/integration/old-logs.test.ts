import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { RecordedRequest } from "../../src/model/scripted.js";
import { expectValidHistories, perAgent, ROOT, runOrca, type TempWorkspace, stderrBesidesReport } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";
import { PLACEHOLDERS, SCENARIO_FILES, SCENARIO_PROMPT } from "../fixtures/logs/scenario.js";

/**
 * Sessions logged by an older orca must keep working: each log of tests/fixtures/logs/ (recorded by
 * record.ts with that version) is read whole and resumed. A field made required, an event renamed
 * or an enum value dropped fails here, not on a user's machine.
 */
const LOGS = path.join(ROOT, "tests", "fixtures", "logs");
const fixtures = fs.readdirSync(LOGS).filter((f) => f.endsWith(".jsonl"));

/** The fixture as a session of a fresh workspace: its placeholders are that workspace's paths. */
function install(fixture: string): { ws: TempWorkspace; file: string; sessionId: string } {
  const w = workspace({ ...SCENARIO_FILES, "notes.md": "# notes\n\ngreeting: the fixture\n" });
  const text = fs
    .readFileSync(path.join(LOGS, fixture), "utf8")
    .replaceAll(PLACEHOLDERS.workspace, w.dir)
    .replaceAll(PLACEHOLDERS.home, w.home)
    .replaceAll(PLACEHOLDERS.dataDir, w.dataDir);
  const sessionId = (JSON.parse(text.split("\n")[0]!) as { sessionId: string }).sessionId;
  const file = path.join(w.dataDir, "sessions", `${sessionId}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return { ws: w, file, sessionId };
}

const contents = (request: RecordedRequest): string[] => request.body.messages.map((m) => (typeof m.content === "string" ? m.content : ""));

describe("session logs of earlier versions", () => {
  it("there is at least one recorded log", () => {
    expect(fixtures.length).toBeGreaterThan(0);
  });

  for (const fixture of fixtures) {
    it(`${fixture}: every line is read as an event`, () => {
      const installed = install(fixture);
      const lines = fs.readFileSync(installed.file, "utf8").split("\n").filter((l) => l.trim());
      const log = readLog(installed.file);
      expect(log.skipped).toEqual([]);
      expect(log.events.length).toBe(lines.length);
      const types = new Set(log.events.map((e) => e.type));
      for (const t of ["session_started", "agent_started", "assistant_message", "tool_finished", "permission_decided", "process_ended", "agent_finished", "session_finished"]) {
        expect(types, t).toContain(t);
      }
    });

    it(`${fixture}: resumes — the coordinator sees its old conversation, and its explorer continues with its own`, async () => {
      const installed = install(fixture);
      const ws = installed.ws;
      const server = await scriptedServer(
        perAgent({
          coordinator: [{ toolCalls: [{ id: "call_again", name: "delegate", args: { resume: "explorer-1", task: "is the greeting still there?" } }] }, { text: "resumed and checked" }],
          "explorer-1": [{ text: "yes: hello.txt still greets from the fixture" }],
        }),
      );
      const run = await runOrca(["--resume", installed.sessionId, "-p", "go on", "--base-url", server.url, "-m", "gpt-4o", "--yes"], { ws });
      expect(stderrBesidesReport(run.stderr)).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe("resumed and checked");

      expectValidHistories(server.requests);
      const [coordinator, explorer] = [server.requests[0]!, server.requests[1]!];
      const said = contents(coordinator);
      expect(said).toContain(SCENARIO_PROMPT);
      // Its earlier tool results, as the model read them: the delegate's answer, a refusal, an error.
      expect(said.some((c) => c.includes("hello.txt greets from the fixture."))).toBe(true);
      expect(said.some((c) => c.includes("denied by rule deny: read_file(.env)"))).toBe(true);
      expect(said.some((c) => c.includes('unknown tool "no_such_tool"'))).toBe(true);
      expect(said.at(-1)).toBe("go on");
      // The explorer's own history: its task, the file it read, its answer, then the new task.
      const heard = contents(explorer);
      expect(heard.some((c) => c.includes("hello from the fixture"))).toBe(true);
      expect(heard).toContain("hello.txt greets from the fixture.");
      expect(heard.at(-1)).toContain("is the greeting still there?");
    });
  }
});
