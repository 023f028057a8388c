/**
 * `npm run bench -- hooks`: what one no-op PreToolUse hook (`true`, matcher `*`) adds to a tool
 * call, end to end through the ToolExecutor a session uses — schema check, the hook, the
 * permission check, the scheduler, the tool (a read_file of a small file), tool_finished — against
 * the same executor with no hook configured. Each round times N sequential calls both ways;
 * per_call_ms is the median round's difference divided by N. Spawning bash is most of it, so the
 * number tracks the machine's fork/exec cost; `cpu_ms` is orca's own CPU time per hooked call.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EventBus } from "../src/events/bus.js";
import type { ToolCall } from "../src/events/types.js";
import { fromClaudeSettings } from "../src/hooks/config.js";
import { Hooks } from "../src/hooks/hooks.js";
import { sandboxedHooks } from "../src/orchestrator/lifecycle.js";
import { Sandbox } from "../src/tools/sandbox/index.js";
import { bpeTokenCounter } from "../src/model/token-counter.js";
import { builtinTools, ShellManager } from "../src/tools/builtin/index.js";
import { ToolExecutor } from "../src/tools/executor.js";
import { HeadlessApprover } from "../src/tools/headless-approver.js";
import { Permissions } from "../src/tools/permissions/engine.js";
import { ToolRegistry } from "../src/tools/registry.js";
import { Scheduler } from "../src/tools/scheduler.js";
import { FileVersions } from "../src/tools/versions.js";
import { Workspace } from "../src/tools/workspace.js";
import { median } from "./stats.js";

const CALLS = 100;
const ROUNDS = 5;
const TARGET_MS = 15;

interface Rig {
  call(i: number): Promise<void>;
}

function rig(dir: string, withHook: boolean, sandbox?: Sandbox): Rig {
  const workspace = new Workspace(dir);
  const bus = new EventBus("bench");
  const emit = bus.emit;
  const registry = new ToolRegistry();
  for (const tool of builtinTools({ shells: new ShellManager(), bashTimeoutMs: 10_000, maxOutputTokens: 8_000, readOnlyCommands: [], tokens: bpeTokenCounter() })) registry.add(tool);
  const settings = withHook ? { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "true" }] }] } : {};
  const hooks = new Hooks({
    hooks: fromClaudeSettings(settings, { kind: "config", path: "bench" }).hooks,
    session: { sessionId: "bench", transcriptPath: () => null, cwd: dir, permissionMode: () => "default" },
    env: process.env,
    emit,
  });
  // As a session does where commands are sandboxed: the hook runs in the workspace-write sandbox.
  if (sandbox) hooks.setCommandWrapper(sandboxedHooks(sandbox));
  const permissions = new Permissions({ mode: "default", allow: [], ask: [], deny: [], approver: new HeadlessApprover(false), emit, workspace, hooks });
  const executor = new ToolExecutor({
    registry,
    scheduler: new Scheduler({ maxConcurrency: 8, emit }),
    permissions,
    workspace,
    emit,
    versions: new FileVersions(workspace),
    hooks,
  });
  const signal = new AbortController().signal;
  const caller = { agentId: "coordinator", agentName: "coordinator", allows: () => true, signal };
  return {
    async call(i) {
      const args = { path: "small.txt" };
      const calls: ToolCall[] = [{ id: `call_${withHook ? "h" : "n"}${i}`, name: "read_file", raw: JSON.stringify(args), args }];
      const [result] = await executor.runAll(calls, caller);
      if (!result?.ok) throw new Error(`read_file failed: ${result?.content}`);
    },
  };
}

async function timeCalls(r: Rig, round: number): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await r.call(round * CALLS + i);
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

export async function measure(): Promise<{ per_call_ms: number; sandboxed_per_call_ms: number | null; baseline_per_call_ms: number; cpu_ms: number; calls: number; rounds: number }> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-bench-hooks-")));
  try {
    fs.writeFileSync(path.join(dir, "small.txt"), "one\ntwo\nthree\n");
    const withHook = rig(dir, true);
    const without = rig(dir, false);
    // Where bubblewrap runs, also the hook inside the sandbox, as orca runs hooks by default there.
    const sandbox = await Sandbox.open({ enabled: "auto", workspace: new Workspace(dir) });
    const inSandbox = sandbox.available ? rig(dir, true, sandbox) : null;
    if (inSandbox) await timeCalls(inSandbox, 200);
    const sandboxed: number[] = [];
    // Warm-up: the first calls pay for loading code and the token counter.
    await timeCalls(without, 100);
    await timeCalls(withHook, 100);
    const added: number[] = [];
    const baseline: number[] = [];
    const cpu: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const base = await timeCalls(without, round);
      const hooked = await timeCalls(withHook, round);
      if (inSandbox) sandboxed.push(((await timeCalls(inSandbox, 300 + round)).wallMs - base.wallMs) / CALLS);
      baseline.push(base.wallMs / CALLS);
      added.push((hooked.wallMs - base.wallMs) / CALLS);
      cpu.push((hooked.cpuMs - base.cpuMs) / CALLS);
    }
    const round2 = (n: number) => Math.round(n * 100) / 100;
    await sandbox.close();
    return { per_call_ms: round2(median(added)), sandboxed_per_call_ms: sandboxed.length ? round2(median(sandboxed)) : null, baseline_per_call_ms: round2(median(baseline)), cpu_ms: round2(median(cpu)), calls: CALLS, rounds: ROUNDS };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function run({ json }: { json: boolean }): Promise<void> {
  const result = await measure();
  if (json) {
    console.log(JSON.stringify(result));
    return;
  }
  console.log(`${ROUNDS} rounds of ${CALLS} sequential read_file calls through the ToolExecutor, median round; Node ${process.version}, ${os.cpus().length} cores\n`);
  console.log("| metric | ms | target |");
  console.log("|---|---|---|");
  console.log(`| added per tool call, one no-op PreToolUse hook (\`true\`) | ${result.per_call_ms} | ≤ ${TARGET_MS} |`);
  console.log(`| the same hook in the command sandbox (bubblewrap), as orca runs hooks by default | ${result.sandboxed_per_call_ms ?? "no sandbox here"} | — |`);
  console.log(`| orca's own CPU added per call (the hook's process not counted) | ${result.cpu_ms} | — |`);
  console.log(`| a tool call with no hook configured | ${result.baseline_per_call_ms} | — |`);
}
