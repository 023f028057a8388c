import { ConfigError } from "../config/errors.js";
import { createOrchestra, type Orchestra } from "../orchestrator/create.js";
import type { ResumePlan } from "../sessions/plan.js";
import { DialogApprover } from "../ui/dialog-approver.js";
import { runDashboard } from "../ui/render.js";
import type { CliArgs } from "./args.js";
import type { MainIo } from "./main.js";

export interface InteractiveSetup {
  baseUrl?: string;
  configFile?: string;
  workspace?: string;
  env?: NodeJS.ProcessEnv;
  demo?: boolean;
  initialPrompt?: string;
  requireEndpoint?: boolean;
  /** `--resume` / `--continue`: the session to continue, in the workspace it recorded. */
  resume?: ResumePlan;
}

/** `orca [prompt]`: the dashboard on a real endpoint (or, from runDemo, the scripted one). */
export async function runInteractive(args: CliArgs, io: MainIo, packageDir: string, version: string, setup: InteractiveSetup = {}): Promise<number> {
  if (!io.stdin.isTTY || !io.stdout.isTTY) throw new ConfigError("the dashboard needs a terminal; use -p for headless runs");
  const approver = new DialogApprover();
  let orchestra: Orchestra | null = null;
  const killOnExit = () => orchestra?.killChildrenSync();
  process.on("exit", killOnExit);
  try {
    orchestra = await createOrchestra({
      workspace: setup.resume?.workspace ?? setup.workspace ?? args.workspace,
      configFile: setup.configFile ?? args.configFile,
      overrides: { model: args.model, baseUrl: setup.baseUrl ?? args.baseUrl, maxSteps: args.maxSteps, permissionMode: args.permissionMode },
      env: setup.env ?? io.env,
      packageDir,
      approver,
      agentName: args.agent,
      version,
      requireEndpoint: setup.requireEndpoint,
      resume: setup.resume,
    });
    orchestra.session.start();
    const { exitCode } = await runDashboard({
      session: orchestra.session,
      approver,
      initialPrompt: setup.initialPrompt ?? args.prompt,
      demo: setup.demo,
      stdout: io.stdout,
      stdin: io.stdin,
      replay: setup.resume?.events,
    });
    await orchestra.session.close(exitCode === 130 ? "cancelled" : "idle");
    for (const warning of orchestra.warnings) io.stderr.write(`orca: warning: ${warning}\n`);
    return exitCode;
  } finally {
    process.off("exit", killOnExit);
    orchestra?.killChildrenSync();
  }
}
