/**
 * `orca --resume` without an id in a real terminal: two sessions are made headless against the
 * scripted server, then the picker lists both, ↓ + Enter opens the older one and the dashboard
 * shows its old conversation. Needs a build (`npm run build`); CI is removed from orca's
 * environment because with CI set Ink writes only the final frame.
 */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { readLog } from "../../src/events/log.js";
import type { ScriptedReply } from "../../src/model/scripted.js";
import { perAgent, runOrca, sessionLogs, type TempWorkspace } from "../fixtures/harness.js";
import { exitCode, orcaInTmux, scriptedServer, workspace } from "./rig.js";

/** orca in tmux with the test's HOME and data dir; the shell prints the exit code and stays. */
const startOrca = (name: string, w: TempWorkspace, args: string[]) => orcaInTmux(name, w, args, { rows: 36 });

const delegate = (agent: string, label: string, task: string): ScriptedReply => ({ toolCalls: [{ id: "call_delegate", name: "delegate", args: { agent, label, task } }] });

/** Two finished sessions: the older one with a sub-agent, the newer one without. */
async function twoSessions(w: TempWorkspace): Promise<void> {
  const older = await scriptedServer(
    perAgent({
      coordinator: [delegate("explorer", "scan parser", "find the parser bug"), { text: "ALPHA-DONE: the parser is fixed" }],
      "explorer-1": [{ text: "explorer found the bug in parse()" }],
    }),
  );
  const a = await runOrca(["-p", "alpha: fix the parser", "--base-url", older.url, "--yes"], { ws: w });
  expect(a.stderr).toBe("");
  expect(a.code).toBe(0);
  const newer = await scriptedServer([{ text: "BETA-DONE: docs written" }]);
  const b = await runOrca(["-p", "beta: write the docs", "--base-url", newer.url, "--yes"], { ws: w });
  expect(b.code).toBe(0);
  expect(sessionLogs(w)).toHaveLength(2);
}

/**
 * Beside the real sessions: one whose run never got an answer and one an older `orca --demo` wrote
 * (its workspace a deleted temporary copy), both newer than the rest; the picker shows neither.
 */
function hiddenSessions(w: TempWorkspace): void {
  const beta = sessionLogs(w).find((f) => fs.readFileSync(f, "utf8").includes("beta: write the docs"))!;
  const lines = fs.readFileSync(beta, "utf8").trimEnd().split("\n");
  const later = (text: string, id: string) =>
    text.replace(/"sessionId":"[^"]+"/g, `"sessionId":"${id}"`).replace(/"ts":(\d+)/g, (_, ts: string) => `"ts":${Number(ts) + 3_600_000}`);
  const dir = `${w.dataDir}/sessions`;
  const unanswered = "20300101-000000-0a0a0a";
  const failed = { type: "session_finished", agentId: "coordinator", status: "failed", ts: 0, sessionId: unanswered };
  fs.writeFileSync(`${dir}/${unanswered}.jsonl`, `${later([...lines.slice(0, 2), JSON.stringify(failed)].join("\n").replace("beta: write the docs", "gamma: never answered"), unanswered)}\n`);
  const demo = "20300101-000000-0d0d0d";
  const demoText = later(lines.join("\n").replace("beta: write the docs", "delta: demo session"), demo).replaceAll(JSON.stringify(w.dir).slice(1, -1), "/tmp/orca-demo-Zz9Yy8/tiny-calc");
  fs.writeFileSync(`${dir}/${demo}.jsonl`, `${demoText}\n`);
}

describe("orca --resume picker in tmux", () => {
  it("lists both sessions newest first; ↓ + Enter opens the older one on its old conversation, which then continues", { timeout: 60_000 }, async () => {
    const ws = workspace();
    await twoSessions(ws);
    hiddenSessions(ws);
    const live = await scriptedServer([{ text: "GAMMA-DONE: carried on" }]);
    const t = startOrca("pick", ws, ["--resume", "--base-url", live.url]);

    await t.waitFor("the picker", (s) => {
      expect(s).toContain("resume a session");
      const lines = s.split("\n");
      const row = (text: string) => lines.findIndex((l) => l.includes(text));
      expect(row("alpha: fix the parser")).toBeGreaterThan(-1);
      expect(row("beta: write the docs")).toBeGreaterThan(-1);
      expect(row("beta: write the docs")).toBeLessThan(row("alpha: fix the parser"));
      expect(lines[row("beta: write the docs")]).toContain("▸");
      expect(s).not.toContain("gamma: never answered");
      expect(s).not.toContain("delta: demo session");
    });
    expect(t.display("#{alternate_on}")).toBe("1");

    t.keys("Down");
    await t.waitFor("the selection to move", (s) => (s.split("\n").find((l) => l.includes("▸")) ?? "").includes("alpha: fix the parser"));
    t.keys("Enter");

    await t.waitFor("the resumed dashboard", (s) => {
      expect(s).toContain("ALPHA-DONE");
      expect(s).toContain("Ask orca");
      expect(s.split("\n")[0]).toContain("resumed");
      expect(s).toContain("alpha: fix the parser");
      expect(s).toMatch(/delegate explorer "scan parser"/);
      expect(s).toMatch(/explorer-1 \[scan parser\] done/);
      expect(s).not.toContain("beta: write the docs");
      expect(s).not.toContain("resume a session");
    });

    t.keys("-l", "carry on");
    t.keys("Enter");
    await t.waitFor("the new answer", (s) => s.includes("GAMMA-DONE"));
    t.keys("C-c");
    expect(await exitCode(t)).toBe("0");
    expect(t.display("#{alternate_on}")).toBe("0");

    // The replay only drew the old events: the log holds each of them once, then the new turn.
    const alpha = sessionLogs(ws).map((f) => readLog(f).events).find((events) => events.some((e) => e.type === "user_message" && e.text === "alpha: fix the parser"))!;
    const prompts = alpha.filter((e) => e.type === "user_message" && e.agentId === "coordinator").map((e) => (e as { text: string }).text);
    expect(prompts).toEqual(["alpha: fix the parser", "carry on"]);
    expect(alpha.filter((e) => e.type === "session_started")).toHaveLength(2);
    expect(live.requests.length).toBe(1);
  });

  it("Esc leaves the picker with exit 0 and touches nothing; with no sessions it says so and exits 2", { timeout: 60_000 }, async () => {
    const ws = workspace();
    const empty = startOrca("empty", ws, ["--resume"]);
    expect(await exitCode(empty)).toBe("2");
    expect(empty.screen()).toContain("orca: no sessions yet");
    empty.kill();

    await twoSessions(ws);
    const before = sessionLogs(ws).map((f) => [f, fs.readFileSync(f, "utf8")]);
    const term = startOrca("quit", ws, ["--resume"]);
    await term.waitFor("the picker", (s) => s.includes("resume a session") && s.includes("alpha: fix the parser"));
    term.keys("b", "e", "t");
    await term.waitFor("the filter", (s) => s.includes("filter › bet") && !s.includes("alpha: fix the parser"));
    term.keys("Escape");
    expect(await exitCode(term)).toBe("0");
    expect(term.display("#{alternate_on}")).toBe("0");
    expect(term.screen()).not.toContain("orca:");
    expect(sessionLogs(ws).map((f) => [f, fs.readFileSync(f, "utf8")])).toEqual(before);
  });
});
