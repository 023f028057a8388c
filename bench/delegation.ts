/**
 * `npm run bench -- delegation`: what delegation in parallel buys, how fast a cancel stops
 * everything, how fast a background delegate returns and a worktree is set up (delegation-live.ts). A scripted model answers every completion after 200 ms; each sub-task takes three
 * completions (two tool steps and an answer).
 */
import { execFileSync } from "node:child_process";
import { startScriptedServer, type RecordedRequest, type ScriptedReply } from "../src/model/scripted.js";
import type { SessionSetup } from "../src/orchestrator/create.js";
import { agentOf, tempWorkspace } from "../tests/fixtures/harness.js";
import { backgroundReturn, worktreeSetup } from "./delegation-live.js";
import { median } from "./stats.js";
import { testOrchestra } from "../tests/fixtures/orchestra.js";

const COMPLETION_MS = 200;
const SUBTASKS = 4;
const CONFIG = "permissions:\n  mode: bypass\n";

function subtaskSteps(n: number): ScriptedReply[] {
  return [
    { delayMs: COMPLETION_MS, toolCalls: [{ name: "read_file", args: { path: `f${n}.txt` } }] },
    { delayMs: COMPLETION_MS, toolCalls: [{ name: "grep", args: { pattern: "line", path: `f${n}.txt` } }] },
    { delayMs: COMPLETION_MS, text: `sub-task ${n} done` },
  ];
}

/** Per-agent scripts: the coordinator delegates `count` sub-tasks, each an explorer. */
function delegationScript(count: number): (r: RecordedRequest) => ScriptedReply {
  const next = new Map<string, number>();
  const scripts: Record<string, ScriptedReply[]> = {
    coordinator: [
      {
        delayMs: COMPLETION_MS,
        toolCalls: Array.from({ length: count }, (_, i) => ({ name: "delegate", args: { agent: "explorer", task: `sub-task ${i + 1}` } })),
      },
      { delayMs: COMPLETION_MS, text: "all done" },
    ],
  };
  for (let i = 1; i <= count; i++) scripts[`explorer-${i}`] = subtaskSteps(i);
  return (request) => {
    const id = agentOf(request);
    const i = next.get(id) ?? 0;
    next.set(id, i + 1);
    return scripts[id]?.[i] ?? { kind: "error", status: 500, message: `no reply for ${id} #${i}` };
  };
}

/** One agent doing all twelve completions itself, one after another (what a single-agent tool does). */
function serialScript(): (r: RecordedRequest) => ScriptedReply {
  const steps: ScriptedReply[] = [];
  for (let n = 1; n <= SUBTASKS; n++) {
    steps.push(...subtaskSteps(n).slice(0, 2), { delayMs: COMPLETION_MS, toolCalls: [{ name: "list_dir", args: { path: "." } }] });
  }
  steps[steps.length - 1] = { delayMs: COMPLETION_MS, text: "all done" };
  let i = 0;
  return () => steps[i++] ?? { kind: "error", status: 500, message: "serial script exhausted" };
}

async function timedRun(script: (r: RecordedRequest) => ScriptedReply, agentName?: string): Promise<number> {
  const server = await startScriptedServer(script);
  const ws = tempWorkspace(Object.fromEntries(Array.from({ length: SUBTASKS }, (_, i) => [`f${i + 1}.txt`, "line one\nline two\n"])));
  let orchestra: SessionSetup | undefined;
  try {
    orchestra = await testOrchestra(ws, server.url, { config: CONFIG, agentName });
    const started = performance.now();
    const result = await orchestra.session.run("go");
    const ms = performance.now() - started;
    if (result.status !== "done") throw new Error(`bench run ended ${result.status}: ${result.result}`);
    return ms;
  } finally {
    await orchestra?.session.close();
    await server.close();
    ws.cleanup();
  }
}

function sleepers(marker: string): number {
  const out = execFileSync("ps", ["-eo", "stat=,args="], { encoding: "utf8" });
  return out.split("\n").filter((line) => line.includes(marker) && !line.trim().startsWith("Z")).length;
}

async function cancelLatency(): Promise<{ ms: number; orphans: number }> {
  const marker = `orca-bench-sleep-${process.pid}`;
  const next = new Map<string, number>();
  const server = await startScriptedServer((request) => {
    const id = agentOf(request);
    const i = next.get(id) ?? 0;
    next.set(id, i + 1);
    if (id === "coordinator" && i === 0) {
      return { toolCalls: Array.from({ length: SUBTASKS }, (_, k) => ({ name: "delegate", args: { agent: "tester", task: `sleep ${k}` } })) };
    }
    if (id.startsWith("tester-") && i === 0) return { toolCalls: [{ name: "bash", args: { command: `exec -a ${marker} sleep 30` } }] };
    return { text: "done" };
  });
  const ws = tempWorkspace();
  const orchestra = await testOrchestra(ws, server.url, { config: CONFIG });
  try {
    const running = orchestra.session.run("sleep everywhere");
    const deadline = Date.now() + 10_000;
    while (sleepers(marker) < SUBTASKS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const started = performance.now();
    orchestra.session.cancel();
    await running;
    // Stopped means: every agent reported, and no child process is left.
    while (sleepers(marker) > 0 && performance.now() - started < 5_000) await new Promise((r) => setTimeout(r, 5));
    const ms = performance.now() - started;
    const agentsRunning = orchestra.session.agents().filter((a) => a.status === "running").length;
    return { ms, orphans: sleepers(marker) + agentsRunning };
  } finally {
    await orchestra.session.close();
    await server.close();
    ws.cleanup();
  }
}

export async function run({ json }: { json: boolean }): Promise<void> {
  // A first run pays for JIT and module warm-up; measuring it would flatter the parallel case.
  await timedRun(delegationScript(1));
  const one = await timedRun(delegationScript(1));
  const parallel = await timedRun(delegationScript(SUBTASKS));
  const serial = await timedRun(serialScript(), "editor");
  const cancel = await cancelLatency();
  const background = await backgroundReturn();
  const worktree = await worktreeSetup();
  const result = {
    one_subtask_ms: Math.round(one),
    parallel_ms: Math.round(parallel),
    serial_ms: Math.round(serial),
    cancel_stop_ms: Math.round(cancel.ms),
    orphans: cancel.orphans,
    background_return_ms: Math.round(median(background)),
    worktree_setup_ms: Math.round(median(worktree)),
  };
  if (json) {
    console.log(JSON.stringify(result));
    return;
  }
  console.log(`Scripted model: ${COMPLETION_MS} ms per completion; ${SUBTASKS} sub-tasks of 3 completions each.\n`);
  console.log("measure                                        ms");
  console.log(`one sub-task, delegated                   ${String(result.one_subtask_ms).padStart(7)}`);
  console.log(`${SUBTASKS} sub-tasks, delegated in parallel        ${String(result.parallel_ms).padStart(7)}   (${(parallel / one).toFixed(2)}x one sub-task; target ≤ 1.3x)`);
  console.log(`${SUBTASKS} sub-tasks, one agent serially           ${String(result.serial_ms).padStart(7)}   (${(serial / parallel).toFixed(2)}x parallel)`);
  console.log(`cancel → every scope stopped              ${String(result.cancel_stop_ms).padStart(7)}   (target ≤ 500 ms; orphans: ${result.orphans})`);
  console.log(`background delegate → its result          ${String(result.background_return_ms).padStart(7)}   (median of ${background.length}; the sub-agent answers 300 ms later)`);
  console.log(`worktree setup, 1,000-file repo           ${String(result.worktree_setup_ms).padStart(7)}   (median of ${worktree.length}; target ≤ 300 ms; min ${Math.round(Math.min(...worktree))}, max ${Math.round(Math.max(...worktree))})`);
}
