/**
 * `orca sessions` through the bin, on logs real runs wrote: a run that failed before any answer
 * is hidden (listed and marked with --all), a prompt piped on stdin shows its first line even when
 * it is larger than the head window, and an old demo session (its workspace a deleted temporary
 * copy) never appears.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../../src/model/scripted.js";
import { latestSession, listedSessions, listSessions, readSessionInfo } from "../../src/sessions/store.js";
import { runOrca, sessionLogs, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

let ws: TempWorkspace | undefined;
let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  ws?.cleanup();
  ws = undefined;
  server = undefined;
});

/** The rows of `orca sessions` (after its two header lines), by the text of their prompt column. */
function rows(stdout: string): string[] {
  return stdout.split("\n").filter((l) => /^ {2}\d{8}-\d{6}-/.test(l));
}

/** A copy of a real log whose session looks like one `orca --demo` wrote before it kept its logs to itself. */
function legacyDemoLog(w: TempWorkspace, from: string): void {
  const id = "20250101-000000-dec0de";
  const text = fs
    .readFileSync(from, "utf8")
    .replace(/"sessionId":"[^"]+"/g, `"sessionId":"${id}"`)
    .replaceAll(JSON.stringify(w.dir).slice(1, -1), "/tmp/orca-demo-Ab12Cd/tiny-calc")
    .replace(/"text":"second task"/, '"text":"DEMO fix subtract"')
    // The newest of all, so that only its being a demo keeps it out of a list or a --resume.
    .replace(/"ts":(\d+)/g, (_, ts: string) => `"ts":${Number(ts) + 3_600_000}`);
  fs.writeFileSync(path.join(w.dataDir, "sessions", `${id}.jsonl`), text);
}

describe("orca sessions", () => {
  it("hides runs that never got an answer unless --all, shows a stdin prompt's first line, never lists demo sessions", { timeout: 60_000 }, async () => {
    ws = tempWorkspace({ ".orca/config.yaml": "model:\n  max_retries: 0\n" });
    let failNext = true;
    server = await startScriptedServer(() => {
      if (failNext) {
        failNext = false;
        return { kind: "error", status: 500, message: "upstream down" };
      }
      return { text: "answered" };
    });

    // 1. Fails before any answer.
    const failed = await runOrca(["-p", "NEVER answered", "--base-url", server.url], { ws });
    expect(failed.code).toBe(1);
    // 2. A multi-line prompt on stdin.
    const piped = await runOrca(["-p", "--base-url", server.url], { ws, input: "\nReview this file:\nline two\nline three\n" });
    expect(piped.code, piped.stderr).toBe(0);
    // 3. A prompt larger than the 64 KiB head the listing reads.
    const logLines = Array.from({ length: 1800 }, (_, i) => `2026-01-01T00:00:${String(i % 60).padStart(2, "0")} worker ${i % 7} handled request ${i}`);
    const big = `Summarise this log:\n${logLines.join("\n")}\n`;
    expect(big.length).toBeGreaterThan(64 * 1024);
    const huge = await runOrca(["-p", "--base-url", server.url], { ws, input: big });
    expect(huge.code, huge.stderr).toBe(0);
    // 4. An answered one, copied into an old-style demo log.
    const second = await runOrca(["-p", "second task", "--base-url", server.url], { ws });
    expect(second.code).toBe(0);
    const logs = sessionLogs(ws);
    expect(logs).toHaveLength(4);
    legacyDemoLog(ws, logs.find((f) => fs.readFileSync(f, "utf8").includes('"text":"second task"'))!);

    const list = await runOrca(["sessions"], { ws });
    expect(list.code, list.stderr).toBe(0);
    const shown = rows(list.stdout);
    expect(shown).toHaveLength(3);
    expect(list.stdout).not.toContain("NEVER answered");
    expect(list.stdout).not.toContain("DEMO fix subtract");
    expect(list.stdout).not.toContain("orca-demo-");
    expect(list.stdout).not.toContain("(no prompt)");
    expect(shown.some((r) => r.endsWith("Review this file: …"))).toBe(true);
    expect(shown.some((r) => r.endsWith("Summarise this log: …"))).toBe(true);
    expect(shown.some((r) => r.endsWith("second task"))).toBe(true);
    expect(list.stdout).toContain("1 that never got an answer not shown (orca sessions --all lists them)");

    const all = await runOrca(["sessions", "--all"], { ws });
    expect(all.code, all.stderr).toBe(0);
    const every = rows(all.stdout);
    expect(every).toHaveLength(4);
    const never = every.find((r) => r.includes("NEVER answered"))!;
    expect(never).toContain("failed, no answer");
    expect(every.filter((r) => r.includes("no answer"))).toEqual([never]);
    expect(all.stdout).not.toContain("DEMO fix subtract");
    expect(all.stdout).not.toContain("not shown");

    // `orca -p --resume` (the latest) never picks the demo's session either.
    expect(latestSession(ws.dataDir)?.firstPrompt).toBe("second task");
  });

  it("an unanswered session is left out of the resume list, and --resume ID still opens it", async () => {
    ws = tempWorkspace({ ".orca/config.yaml": "model:\n  max_retries: 0\n" });
    server = await startScriptedServer([{ kind: "error", status: 500 }, { text: "retried fine" }]);
    const failed = await runOrca(["-p", "first try", "--base-url", server.url], { ws });
    expect(failed.code).toBe(1);
    const [file] = sessionLogs(ws);
    const info = readSessionInfo(file!)!;
    expect(info).toMatchObject({ answered: false, demo: false, status: "failed", firstPrompt: "first try" });
    expect(listedSessions(listSessions(ws.dataDir))).toEqual([]);
    expect(listedSessions(listSessions(ws.dataDir), { all: true }).map((s) => s.id)).toEqual([info.id]);

    const again = await runOrca(["-p", "try again", "--resume", info.id, "--base-url", server.url], { ws });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe("retried fine");
    expect(readSessionInfo(file!)).toMatchObject({ answered: true, firstPrompt: "first try" });
  });
});
