import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createDemoScript, DEMO_CONFIG, DEMO_PROMPT, demoSpeed } from "../model/demo-script.js";
import { startScriptedServer } from "../model/scripted.js";
import type { AnyTool } from "../tools/tool.js";
import { DEMO_MODEL } from "./first-frame.js";
import { runInteractive } from "./interactive.js";
import { holdTerminationSignals } from "./signal-hold.js";
import type { CliArgs, MainIo } from "./types.js";

/** How long a demo edit takes at speed 1: long enough to read the queue line while the other editor waits. */
export const DEMO_EDIT_MS = 1800;

/**
 * `orca --demo`: the real dashboard and runtime on a scripted model served on loopback — the same
 * OpenAI wire path a real endpoint uses — over a temporary copy of the shipped sample project.
 * Its session log stays in that temporary folder: the workspace it names is deleted on exit, so
 * it is nothing anyone could resume, and `orca sessions` never lists it.
 */
export async function runDemo(args: CliArgs, io: MainIo, packageDir: string, version: string): Promise<number> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "orca-demo-"));
  const releaseSignals = removeOnTermination(base);
  const workspace = path.join(base, "tiny-calc");
  fs.cpSync(path.join(packageDir, "demo", "sample-project"), workspace, { recursive: true });
  const configFile = path.join(base, "config.yaml");
  fs.writeFileSync(configFile, DEMO_CONFIG);
  const speed = demoSpeed(io.env.ORCA_DEMO_SPEED);
  const server = await startScriptedServer(createDemoScript({ speed }));
  try {
    return await runInteractive({ ...args, model: args.model ?? DEMO_MODEL }, io, packageDir, version, {
      baseUrl: server.url,
      configFile,
      workspace,
      // The demo never uses a real key, even when one is set, and keeps its log to itself.
      env: { ...io.env, OPENAI_API_KEY: "orca-demo-key", OPENAI_BASE_URL: undefined, ORCA_MODEL: undefined, ORCA_DATA_DIR: path.join(base, "data") },
      demo: true,
      initialPrompt: args.prompt ?? DEMO_PROMPT,
      wrapTool: pacedEdits(DEMO_EDIT_MS / speed),
    });
  } finally {
    await server.close();
    fs.rmSync(base, { recursive: true, force: true });
    releaseSignals();
  }
}

/**
 * The demo's folder goes however the process ends: at exit, and when a SIGTERM or SIGHUP comes
 * before the dashboard is up or its end hangs (signal-hold.ts).
 */
function removeOnTermination(base: string): () => void {
  const remove = (): void => fs.rmSync(base, { recursive: true, force: true });
  const release = holdTerminationSignals(remove);
  process.on("exit", remove);
  return () => {
    release();
    process.off("exit", remove);
  };
}

/**
 * The demo's edit_file takes `ms` before it writes, inside its scheduler slot: a real edit of a
 * tiny file takes a millisecond, and the other editor's wait for the same path (orca's per-path
 * serialisation) would never be on screen. The wait shown is the scheduler's own. The first edit
 * also holds until a second edit_file call has reached the scheduler (its access is computed when
 * it is submitted), at most `ms` × 4 longer: on a loaded machine the second editor's model step
 * can take longer than `ms`, and the wait would then never happen at all.
 */
export function pacedEdits(ms: number): (tool: AnyTool) => AnyTool {
  let submitted = 0;
  let held = false;
  let arrived: (() => void) | undefined;
  return (tool) => {
    if (tool.name !== "edit_file") return tool;
    return {
      ...tool,
      access(args, workspace) {
        submitted++;
        arrived?.();
        return tool.access(args, workspace);
      },
      async execute(args, ctx) {
        const first = !held;
        held = true;
        const second = new Promise<void>((resolve) => {
          arrived = () => {
            if (submitted >= 2) resolve();
          };
          arrived();
        });
        await sleep(ms, undefined, { signal: ctx.signal }).catch(() => undefined);
        if (first) await Promise.race([second, sleep(ms * 4, undefined, { signal: ctx.signal })]).catch(() => undefined);
        arrived = undefined;
        return tool.execute(args, ctx);
      },
    };
  };
}
