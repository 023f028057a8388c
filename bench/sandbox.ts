/**
 * `npm run bench -- sandbox`: what the sandbox adds to each command. The median of 50 runs of
 * `true` through the same launcher bash uses — plain, then in the sandbox (workspace-write, in a
 * git repository, so protected paths and stand-ins are set up as for a real command, and with a
 * read_file deny rule to resolve) — alternating so machine noise hits both alike. Target: ≤ 15 ms added.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CommandLauncher } from "../src/tools/builtin/launch.js";
import { whenFinished } from "../src/tools/builtin/process-group.js";
import { Sandbox } from "../src/tools/sandbox/index.js";
import type { SandboxRequest } from "../src/tools/sandbox/index.js";
import { spread, type Spread } from "./stats.js";
import { Workspace } from "../src/tools/workspace.js";

const RUNS = 50;

export interface SandboxBench {
  plain_ms: number;
  sandboxed_ms: number;
  read_only_ms: number;
  added_ms: number;
  /** Each workspace-write run less the plain run beside it: min, median, max. */
  added: Spread;
}

/** Medians here are rounded to 0.1 ms. */
function median(values: number[]): number {
  return spread(values).median;
}

async function once(launcher: CommandLauncher, cwd: string, request: SandboxRequest): Promise<number> {
  const started = performance.now();
  const launched = await launcher.launch("true", cwd, request);
  const exit = await whenFinished(launched.child, undefined, launched.emptied);
  if (exit.code !== 0) throw new Error(`true exited with ${exit.code ?? exit.signal} (${request})`);
  return performance.now() - started;
}

export async function measure(): Promise<SandboxBench> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "orca-bench-sandbox-")));
  try {
    execFileSync("git", ["init", "-q", "."], { cwd: root });
    fs.writeFileSync(path.join(root, ".env"), "SECRET=1\n");
    const sandbox = await Sandbox.open({ enabled: true, workspace: new Workspace(root), denyReadPatterns: [".env*"] });
    const launcher = new CommandLauncher(sandbox);
    const plain: number[] = [];
    const sandboxed: number[] = [];
    const readOnly: number[] = [];
    // A few untimed runs first: the first spawns page bash and bwrap in.
    for (let i = 0; i < 3; i++) {
      await once(launcher, root, "none");
      await once(launcher, root, "workspace-write");
    }
    for (let i = 0; i < RUNS; i++) {
      plain.push(await once(launcher, root, "none"));
      sandboxed.push(await once(launcher, root, "workspace-write"));
      readOnly.push(await once(launcher, root, "read-only"));
    }
    await sandbox.close();
    const added = spread(sandboxed.map((ms, i) => ms - plain[i]!));
    const result = { plain_ms: median(plain), sandboxed_ms: median(sandboxed), read_only_ms: median(readOnly), added_ms: 0, added };
    result.added_ms = Math.round((result.sandboxed_ms - result.plain_ms) * 10) / 10;
    return result;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export async function run({ json }: { json: boolean }): Promise<void> {
  const result = await measure();
  if (json) {
    console.log(JSON.stringify(result));
    return;
  }
  // Both sides slow down on a busy machine, the sandbox's namespaces more: say how busy it was.
  console.log(`median of ${RUNS} runs of \`true\` each, Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores\n`);
  console.log("| command | ms | added | target |");
  console.log("|---|---|---|---|");
  console.log(`| bash -c true (no sandbox) | ${result.plain_ms} | | |`);
  console.log(`| in the sandbox (workspace-write) | ${result.sandboxed_ms} | ${result.added_ms} | ≤ 15 added |`);
  console.log(`| each run, less the plain run beside it | | min ${result.added.min} / median ${result.added.median} / max ${result.added.max} | |`);
  console.log(`| in the sandbox (read-only, plan mode) | ${result.read_only_ms} | ${Math.round((result.read_only_ms - result.plain_ms) * 10) / 10} | |`);
}
