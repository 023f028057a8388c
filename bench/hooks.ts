/**
 * `npm run bench -- hooks`: what one no-op PreToolUse hook (`true`, matcher `*`) adds to a tool
 * call, measured at the Hooks facade — the call the executor will make before its permission
 * check. Each round times N sequential preToolUse calls with the hook and N with no hook
 * configured (the facade's fast path); per_call_ms is the median round's difference divided by N.
 * Spawning bash is most of it, so the number tracks the machine's fork/exec cost.
 */
import os from "node:os";
import { fromClaudeSettings } from "../src/hooks/config.js";
import { Hooks } from "../src/hooks/hooks.js";

const CALLS = 100;
const ROUNDS = 5;
const TARGET_MS = 15;

function facade(withHook: boolean): Hooks {
  const settings = withHook ? { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "true" }] }] } : {};
  const { hooks } = fromClaudeSettings(settings, { kind: "config", path: "bench" });
  return new Hooks({
    hooks,
    session: { sessionId: "bench", transcriptPath: () => null, cwd: os.tmpdir(), permissionMode: () => "default" },
    env: process.env,
    emit: () => {},
  });
}

async function timeCalls(hooks: Hooks): Promise<number> {
  const agent = { id: "coordinator", type: "coordinator" };
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const outcome = await hooks.preToolUse(agent, { id: `call_${i}`, name: "bash", args: { command: "npm test" } });
    if (outcome.decision !== undefined) throw new Error(`a no-op hook decided ${outcome.decision}`);
  }
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function measure(): Promise<{ per_call_ms: number; baseline_per_call_ms: number; calls: number; rounds: number }> {
  const withHook = facade(true);
  const without = facade(false);
  await timeCalls(withHook); // warm-up: the first spawns pay for loading code
  const added: number[] = [];
  const baseline: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const base = await timeCalls(without);
    const hooked = await timeCalls(withHook);
    baseline.push(base / CALLS);
    added.push((hooked - base) / CALLS);
  }
  const round2 = (n: number) => Math.round(n * 100) / 100;
  return { per_call_ms: round2(median(added)), baseline_per_call_ms: round2(median(baseline)), calls: CALLS, rounds: ROUNDS };
}

export async function run({ json }: { json: boolean }): Promise<void> {
  const result = await measure();
  if (json) {
    console.log(JSON.stringify(result));
    return;
  }
  console.log(`${ROUNDS} rounds of ${CALLS} sequential calls, median round; Node ${process.version}, ${os.cpus().length} cores\n`);
  console.log("| metric | ms | target |");
  console.log("|---|---|---|");
  console.log(`| added per tool call, one no-op PreToolUse hook (\`true\`) | ${result.per_call_ms} | ≤ ${TARGET_MS} |`);
  console.log(`| preToolUse with no hook configured | ${result.baseline_per_call_ms} | — |`);
}
