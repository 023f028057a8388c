import os from "node:os";
import path from "node:path";
import { ConfigError } from "../util/errors.js";
import { projectSettings, trustStoreFor } from "../config/trust.js";
import { describeProjectSetting } from "../orchestrator/project-settings.js";
import { createSession, ignoredWarning, type CreateSessionOptions, type SessionSetup } from "../orchestrator/create.js";
import { dataDir } from "../config/load.js";
import { planResume, type ResumePlan } from "../sessions/resume-plan.js";
import { listSessions } from "../sessions/store.js";
import { dashboardSessions } from "./sessions-command.js";
import { DialogApprover } from "../ui/dialog-approver.js";
import { dismissEarlyFrame } from "../ui/early-frame-slot.js";
import type { DashboardHost } from "../ui/host.js";
import { resolveKeymap } from "../ui/keymap.js";
import { runDashboard } from "../ui/render.js";
import { clip, oneLine } from "../util/text.js";
import type { WelcomeInfo } from "../ui/Welcome.js";
import { holdTerminationSignals } from "./signal-hold.js";
import type { CliArgs, MainIo } from "./types.js";
import { dashboardCommands, dashboardReports } from "./dashboard-reports.js";

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
  /** The demo paces its edits (see createSession's wrapTool). */
  wrapTool?: CreateSessionOptions["wrapTool"];
}

/** `orca [prompt]`: the dashboard on a real endpoint (or, from runDemo, the scripted one). */
export async function runInteractive(args: CliArgs, io: MainIo, packageDir: string, version: string, setup: InteractiveSetup = {}): Promise<number> {
  if (!io.stdin.isTTY || !io.stdout.isTTY) throw new ConfigError("the dashboard needs a terminal; use -p for headless runs");
  const workspace = setup.resume?.workspace ?? setup.workspace ?? args.workspace;
  const configFile = setup.configFile ?? args.configFile;
  const env = setup.env ?? io.env;
  // The demo's workspace is a temporary copy of our own sample: nothing to ask about.
  const trustProject = setup.demo ? true : await decideTrust({ workspace, configFile, env, packageDir, io, model: args.model });
  // The user left the prompt without answering: nothing started, nothing written.
  if (trustProject === null) return 0;
  const approver = new DialogApprover();
  let started: SessionSetup | null = null;
  const killOnExit = () => started?.killChildrenSync();
  process.on("exit", killOnExit);
  let releaseSignals = (): void => {};
  const start = (resume: ResumePlan | undefined): Promise<SessionSetup> =>
    createSession({
      workspace: resume?.workspace ?? workspace,
      configFile,
      overrides: { model: args.model, baseUrl: setup.baseUrl ?? args.baseUrl, maxSteps: args.maxSteps, maxCostUsd: args.maxCostUsd, permissionMode: args.permissionMode },
      env,
      packageDir,
      approver,
      agentName: args.agent,
      version,
      requireEndpoint: setup.requireEndpoint,
      resume,
      continueTeam: !args.noContinue,
      trustProject,
      wrapTool: setup.wrapTool,
      // Loaded after the dashboard's first frame (warmUp below), not before it.
      warmModel: false,
    });
  try {
    started = await start(setup.resume);
    const keys = resolveKeymap(started.config.keys);
    if (keys.errors.length) {
      await started.session.close();
      throw new ConfigError(keys.errors.join("; "));
    }
    started.session.start();
    const initialPrompt = setup.initialPrompt ?? args.prompt;
    const welcome = (s: SessionSetup): WelcomeInfo => welcomeInfo(s, version, env.HOME);
    const host = dashboardHost({
      current: () => started!,
      replace: async (resumeId) => {
        const dir = dataDir(started!.config);
        const plan = resumeId === undefined ? undefined : planResume({ dataDir: dir, resume: resumeId, workspace });
        const next = await start(plan);
        next.session.start();
        const old = started!;
        started = next;
        await old.session.close("idle");
        old.killChildrenSync();
        // A new session (/clear) opens on the welcome screen again; a resumed one on its conversation.
        return { session: next.session, replay: plan?.events, notices: startupNotices(next), welcome: plan ? null : welcome(next) };
      },
      workspace: path.resolve(workspace),
    });
    // Kept through the close below: a signal ends the dashboard in order, never the process outright.
    releaseSignals = holdTerminationSignals(() => started?.killChildrenSync());
    host.report = dashboardReports({ ...args, workspace }, { ...io, env }, packageDir, version);
    host.commands = dashboardCommands(path.resolve(workspace), env.HOME, trustProject);
    const dashboard = runDashboard({
      session: started.session,
      approver,
      initialPrompt,
      demo: setup.demo,
      stdout: io.stdout,
      stdin: io.stdin,
      replay: setup.resume?.events,
      notices: startupNotices(started),
      keymap: keys.keymap,
      host,
      welcome: initialPrompt || setup.resume ? undefined : welcome(started),
      warmUp: () => void started?.warmModel(),
    });
    const { exitCode } = await dashboard;
    // SessionEnd's reason: the user left (prompt_input_exit), or a signal closed the terminal (other).
    await started.session.close(exitCode === 130 ? "cancelled" : "idle", exitCode === 129 || exitCode === 143 ? "other" : "prompt_input_exit");
    releaseSignals();
    for (const warning of started.warnings) io.stderr.write(`orca: warning: ${warning}\n`);
    return exitCode;
  } finally {
    releaseSignals();
    process.off("exit", killOnExit);
    started?.killChildrenSync();
  }
}

/**
 * Whether to load the workspace's own settings: yes when it has none or the user trusted it
 * before; otherwise the trust prompt asks. Null: the user quit the prompt.
 */
async function decideTrust(opts: { workspace: string; configFile?: string; env: NodeJS.ProcessEnv; packageDir: string; io: MainIo; model?: string }): Promise<boolean | null> {
  const home = opts.env.HOME ?? os.homedir();
  const settings = projectSettings(opts.workspace, { configFile: opts.configFile, home });
  if (settings.length === 0) return true;
  const store = trustStoreFor({ workspace: opts.workspace, configFile: opts.configFile, env: opts.env, packageDir: opts.packageDir });
  if (store.isTrusted(opts.workspace)) return true;
  // A first frame drawn for a workspace that had no settings a moment ago goes: the prompt draws on its own screen.
  dismissEarlyFrame();
  const { askTrust } = await import("../ui/trust.js");
  const answer = await askTrust({
    workspace: path.resolve(opts.workspace),
    settings: settings.map((s) => ({ name: s.name, details: describeProjectSetting(s, { workspace: opts.workspace, home }) })),
    stdin: opts.io.stdin,
    stdout: opts.io.stdout,
    home: opts.env.HOME,
    handOver: true,
  });
  if (answer === null) return null;
  // The dashboard's terminal from here (raw mode kept from the prompt): keys typed while the session
  // starts wait for the dashboard, behind those typed with the answer, and its frame is up meanwhile.
  const { paintEarlyFrame } = await import("../ui/early-frame.js");
  paintEarlyFrame({ stdin: opts.io.stdin, stdout: opts.io.stdout, demo: false, model: opts.model, handOver: true });
  if (answer === "always") store.trust(opts.workspace);
  return answer !== "no";
}

/** What the dashboard may ask of the CLI: the catalog for /agents and /skills, /sessions, and /clear and /resume. */
function dashboardHost(o: {
  current(): SessionSetup;
  replace(resumeId: string | undefined): ReturnType<NonNullable<DashboardHost["switchSession"]>>;
  workspace: string;
}): DashboardHost {
  return {
    catalog: () => {
      const s = o.current();
      return {
        agents: [...s.agents.definitions.values()].map((d) => ({ name: d.name, description: oneLine(d.description) })),
        skills: s.skills.skills.map((k) => ({ name: k.name, description: clip(oneLine(k.description), 120) })),
      };
    },
    listSessions: () => dashboardSessions(listSessions(dataDir(o.current().config)), o.workspace, o.current().session.id),
    memory: () => {
      const s = o.current();
      return { ...s.instructions, untrusted: s.ignored.some((i) => i.kind === "instructions") };
    },
    switchSession: (to) => o.replace(to.resume),
  };
}

/** What the welcome screen lists: what this session loaded. */
function welcomeInfo(started: SessionSetup, version: string, home: string | undefined): WelcomeInfo {
  const { session, config, mcp } = started;
  const provider = config.model.provider ? config.providers[config.model.provider] : undefined;
  const names = [...started.agents.definitions.keys()];
  return {
    version,
    model: session.modelName,
    endpoint: (provider ? provider.base_url : config.model.base_url) || undefined,
    workspace: session.workspaceRoot,
    home,
    agents: [session.rootAgentId, ...names.filter((n) => n !== session.rootAgentId).sort()],
    skills: started.skills.skills.map((s) => s.name),
    mcp: mcp ? { status: () => mcp.status(), onChange: (listener) => mcp.onChange(listener) } : undefined,
  };
}

/** What the dashboard says before anything runs: settings not loaded, files that failed to load. */
function startupNotices(started: SessionSetup): string[] {
  const skipped = started.ignored.length ? ignoredWarning(started.ignored) : null;
  return started.warnings.map((w) => `⚠ ${w === skipped ? `${w} (restart orca and answer y to load them)` : w}`);
}
