/**
 * The live-control half of `npm run bench -- delegation`: how long a background delegate call
 * takes to return (the sub-agent is still running), and how long giving an isolated sub-agent its
 * own git worktree takes in a repository of 1,000 files with uncommitted changes.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { startScriptedServer, type RecordedRequest, type ScriptedReply } from "../src/model/scripted.js";
import { Workspace } from "../src/tools/workspace.js";
import { WorktreeManager, type Worktree } from "../src/worktrees/worktree.js";
import { agentOf, tempWorkspace } from "../tests/fixtures/harness.js";
import { testOrchestra } from "../tests/fixtures/orchestra.js";

const ROUNDS = 7;
const REPO_FILES = 1000;

/** ms from the delegate call's start to its result, with `background: true`; the sub-agent answers 300 ms later. */
export async function backgroundReturn(): Promise<number[]> {
  const next = new Map<string, number>();
  const server = await startScriptedServer((request: RecordedRequest): ScriptedReply => {
    const id = agentOf(request);
    const i = next.get(id) ?? 0;
    next.set(id, i + 1);
    if (id === "coordinator" && i === 0) return { toolCalls: [{ name: "delegate", args: { agent: "explorer", task: "look", background: true } }] };
    if (id === "coordinator") return { text: "ok" };
    return { delayMs: 300, text: "looked" };
  });
  const ws = tempWorkspace({ "a.txt": "a\n" });
  const orchestra = await testOrchestra(ws, server.url);
  const times: number[] = [];
  try {
    const started = new Map<string, number>();
    orchestra.session.bus.subscribe((e) => {
      if (e.type === "tool_started" && e.name === "delegate") started.set(e.callId, performance.now());
      if (e.type === "tool_finished" && e.name === "delegate") times.push(performance.now() - started.get(e.callId)!);
    });
    for (let i = 0; i < ROUNDS; i++) {
      next.clear();
      const result = await orchestra.session.run("look in the background");
      if (result.status !== "done") throw new Error(`bench run ended ${result.status}: ${result.result}`);
    }
  } finally {
    await orchestra.session.close();
    await server.close();
    ws.cleanup();
  }
  return times;
}

/** ms for WorktreeManager.open: snapshot of the uncommitted changes, `git worktree add`, lock. */
export async function worktreeSetup(): Promise<number[]> {
  const files: Record<string, string> = {};
  for (let i = 0; i < REPO_FILES; i++) files[`src/d${i % 25}/f${i}.ts`] = `export const v${i} = ${i};\n`.repeat(20);
  const ws = tempWorkspace(files);
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@localhost", ...args], { cwd: ws.dir });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "bench");
  // A few uncommitted changes, as a coordinator that has been working would leave.
  for (let i = 0; i < 5; i++) fs.appendFileSync(ws.file(`src/d${i}/f${i}.ts`), "// edited\n");
  fs.writeFileSync(ws.file("NEW.md"), "untracked\n");
  const manager = new WorktreeManager({ dir: path.join(ws.dataDir, "worktrees"), sessionId: "bench", workspace: new Workspace(ws.dir) });
  const times: number[] = [];
  const made: Worktree[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const t = performance.now();
      const opened = await manager.open(`agent-${i}`);
      times.push(performance.now() - t);
      if ("unavailable" in opened) throw new Error(opened.unavailable);
      made.push(opened.worktree);
    }
  } finally {
    for (const wt of made) await manager.remove(wt);
    ws.cleanup();
  }
  return times;
}
