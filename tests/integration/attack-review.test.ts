/**
 * Attacks on #28's evidence, each through a scripted model and the real session: what the run
 * report reads from disk, and whether `verify:` commands obey the permission rules.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runReport } from "../../src/cli/run-report.js";
import { readLog } from "../../src/events/log.js";
import type { EventOf, OrcaEvent } from "../../src/events/types.js";
import { reportsFromLog } from "../../src/review/report.js";
import { ContentStore } from "../../src/sessions/content-store.js";
import type { SessionSetup } from "../../src/orchestrator/create.js";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { perAgent, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";
import { testOrchestra } from "../fixtures/orchestra.js";
import { outsideDir } from "../fixtures/sandbox.js";

let server: ScriptedServer | undefined;
let ws: TempWorkspace | undefined;
let orchestra: SessionSetup | undefined;
let outside: { dir: string; cleanup(): void } | undefined;
let writer: ChildProcess | undefined;

afterEach(async () => {
  writer?.kill("SIGKILL");
  await orchestra?.session.close();
  await server?.close();
  ws?.cleanup();
  outside?.cleanup();
  server = orchestra = ws = outside = writer = undefined;
});

// Attacks on the run report's "file now": a report diffs each changed file from its version before
// to the file on disk, read by orca itself, outside the sandbox. An agent that wrote a file and
// then swapped it (with a command) for a symlink to a secret outside the workspace, or for a FIFO,
// must not get orca to read through it: the secret must not appear in the report (the headless
// json result, the log), and a FIFO must not be opened for its content (with no writer, that open
// never returns and holds the whole process).
const SECRET = "secret-7f3a-not-for-the-report";
const FIFO_TEXT = "from-the-fifo-91c2";

describe("the run report reads the files now without following what a command swapped in", () => {
  it("a changed file turned into a symlink to a secret outside, or into a FIFO, is not read through", async () => {
    outside = outsideDir();
    const secret = path.join(outside.dir, "id_secret");
    fs.writeFileSync(secret, `${SECRET}\n`);
    server = await startScriptedServer([
      { toolCalls: [{ name: "write_file", args: { path: "notes.txt", content: "notes\n" } }] },
      { toolCalls: [{ name: "write_file", args: { path: "pipe.txt", content: "pipe\n" } }] },
      { toolCalls: [{ name: "bash", args: { command: `rm notes.txt pipe.txt && ln -s ${secret} notes.txt && mkfifo pipe.txt` } }] },
      { text: "done" },
    ]);
    ws = tempWorkspace({});
    orchestra = await testOrchestra(ws, server.url);
    const result = await orchestra.session.run("go");
    expect(result.status).toBe("done");
    expect(fs.lstatSync(ws.file("notes.txt")).isSymbolicLink()).toBe(true);
    expect(fs.lstatSync(ws.file("pipe.txt")).isFIFO()).toBe(true);
    // A writer waits on the FIFO, so reading it would return its text rather than hang the test.
    writer = spawn("sh", ["-c", `printf ${FIFO_TEXT} > pipe.txt`], { cwd: ws.dir, stdio: "ignore" });
    const reports = runReport(orchestra);
    // What the headless run prints is what its log holds (the report was read back from it before).
    const contents = ContentStore.forSession(ws.dataDir, orchestra.session.id);
    expect(reports).toEqual(reportsFromLog(readLog(orchestra.session.logFile!).events, { contents, workspaceRoot: orchestra.session.workspaceRoot }));
    const text = JSON.stringify(reports);
    expect(text).toContain("notes.txt");
    expect(text).toContain("pipe.txt");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(FIFO_TEXT);
  });
});

// Attacks on `verify:` commands: orca runs them itself when an agent ends, without a dialog, so the
// rules that hold for every other command must hold for them: a deny rule refuses one, and plan
// mode (nothing writes) runs it in the read-only sandbox. The agent definition is a project's
// (`.orca/agents/`); a scripted coordinator delegates to it and the sub-agent ends at once.
const CHECKER = `---
name: checker
description: Looks at things; orca verifies after it.
tools: [read_file, list_dir]
verify: touch verified.txt
---
You look.
`;

async function runChecker(config: string): Promise<EventOf<"verify_finished">[]> {
  server = await startScriptedServer(
    perAgent({
      coordinator: [{ toolCalls: [{ name: "delegate", args: { agent: "checker", task: "look" } }] }, { text: "done" }],
      "checker-1": [{ text: "looked" }],
    }),
  );
  ws = tempWorkspace({ ".orca/agents/checker.md": CHECKER });
  orchestra = await testOrchestra(ws, server.url, { config });
  const events: OrcaEvent[] = [];
  orchestra.session.bus.subscribe((e) => events.push(e));
  const result = await orchestra.session.run("go");
  expect(result.status).toBe("done");
  return events.filter((e): e is EventOf<"verify_finished"> => e.type === "verify_finished");
}

describe("verify commands obey the permission rules", () => {
  it("a deny rule that matches a verify command refuses it", async () => {
    const verified = await runChecker('permissions:\n  deny: ["bash(touch *)"]\n');
    expect(verified).toHaveLength(1);
    expect(verified[0]).toMatchObject({ command: "touch verified.txt", status: "denied" });
    expect(fs.existsSync(ws!.file("verified.txt"))).toBe(false);
  });

  it("in plan mode a verify command runs in the read-only sandbox: it writes nothing", async () => {
    const verified = await runChecker("permissions:\n  mode: plan\nsandbox:\n  enabled: true\n");
    expect(verified).toHaveLength(1);
    expect(verified[0]!.exitCode).not.toBe(0);
    expect(fs.existsSync(ws!.file("verified.txt"))).toBe(false);
  });
});
