import fs from "node:fs";
import { loadEnvironment } from "./load-environment.js";
import path from "node:path";
import { addWritableRoots } from "../util/git-binary.js";
import { type AgentReport } from "../agent/definition.js";
import type { AgentReport as AgentRunReport } from "../review/report.js";
import { ConfigError, dataDir, type ConfigOverrides } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { type ProjectSetting } from "../config/trust.js";
import type { McpManager } from "../mcp/manager.js";
import { startMcp } from "../mcp/start.js";
import type { Model } from "../model/model.js";
import { Providers } from "../model/providers.js";
import { letConnectionsOpen } from "../model/preconnect.js";
import { createGetSkillTool, mapAllowedTools, preloadSkills, renderSkillsIndex, type SkillReport } from "../skills/index.js";
import type { Approver } from "../tools/approver.js";
import type { AnyTool } from "../tools/tool.js";
import { builtinTools, ShellManager } from "../tools/builtin/index.js";
import { CommandLauncher } from "../tools/builtin/launch.js";
import { runPersonCommand } from "../tools/builtin/bash.js";
import { childEnv } from "../tools/child-env.js";
import { linkRestoredEvent, nestedRepoEvent, Sandbox, sandboxNotice, sandboxOptions } from "../tools/sandbox/index.js";
import { isInside, Workspace } from "../tools/workspace.js";
import { createCompactor } from "../agent/compaction.js";
import { contextWindowFor } from "../model/tokens.js";
import { requirePrices } from "./budget-accounts.js";
import { bpeTokenCounter } from "../model/token-counter.js";
import { ContentStore } from "../sessions/content-store.js";
import { describeSkipped, type ResumePlan } from "../sessions/resume-plan.js";
import { reapProcesses, unendedProcesses } from "../sessions/leftovers.js";
import { planTeam } from "../sessions/team-plan.js";
import { removeLeftoverTemps } from "./leftover-temps.js";
import { Hooks } from "../hooks/index.js";
import { restoreAgents, type AgentState } from "./agents.js";
import { hookAgentOf, sandboxedHooks } from "./lifecycle.js";
import { heldEmit, processRecorder } from "../events/processes.js";
import { newSessionId, Session } from "./session.js";
import { createAgentEvidence } from "./evidence-setup.js";
import { codePaths, sandboxProbeFile } from "../config/code-paths.js";
import { type loadSessionInstructions } from "./instructions.js";
import { secretEnvValues } from "./secret-env.js";

export interface CreateSessionOptions {
  workspace: string;
  configFile?: string;
  overrides?: ConfigOverrides;
  env?: NodeJS.ProcessEnv;
  home?: string;
  packageDir: string;
  approver: Approver;
  agentName?: string;
  version: string;
  sessionId?: string;
  /** The demo and tests may run without a key against a loopback URL. */
  requireEndpoint?: boolean;
  /** Extra secrets to keep out of the log (the config's own are added automatically). */
  secrets?: string[];
  /** Continue a logged session: its agents are rebuilt and it appends to its own log. */
  resume?: ResumePlan;
  /** Default true: a resumed run that stopped with sub-agents at work goes on as a team (false: --no-continue). */
  continueTeam?: boolean;
  /**
   * Load the workspace's own settings (.orca/config.yaml, .orca/agents/, .orca/skills/,
   * .agents/skills/, .mcp.json). Default true: headless runs trust the folder they are pointed
   * at; the dashboard passes false for a folder the user has not trusted.
   */
  trustProject?: boolean;
  /**
   * Wraps each built-in tool. The demo uses it to give its edits a moment a person can see, so
   * the scheduler's per-path wait shows in the queue line; the scheduler itself is untouched.
   */
  wrapTool?: (tool: AnyTool) => AnyTool;
  /**
   * Default true: the root model's client and Node's fetch load while the sandbox probe runs (a
   * headless run's first request follows at once). The dashboard passes false and calls
   * `SessionSetup.warmModel` once its first frame is out: the user reads before typing.
   */
  warmModel?: boolean;
}

/**
 * What start-up built: the runtime (`session`, see session.ts) and what was loaded for it. The
 * runtime has one name, Session; consumers outside the core see it through SessionApi (types.ts).
 */
export interface SessionSetup {
  session: Session;
  config: Config;
  configPath: string | null;
  agents: AgentReport;
  skills: SkillReport;
  mcp: McpManager | null;
  /** One line each: things that failed to load but did not stop orca. */
  warnings: string[];
  /** Project settings found but not loaded because the folder is not trusted. */
  ignored: ProjectSetting[];
  /** AGENTS.md, CLAUDE.md and imports joined into system prompts, and those skipped (/memory). */
  instructions: ReturnType<typeof loadSessionInstructions>;
  /**
   * Lifecycle hooks (issue #15), wired into the session. The CLI's signal handlers call
   * `hooks.settleSubagents` before a forced exit. A workspace's hooks run in the command sandbox
   * when it is open (unless `sandbox.hooks: false`); the user's own run as the user.
   */
  hooks: Hooks;
  /** Synchronous last-resort cleanup for process 'exit': kills shells and MCP children. */
  killChildrenSync(): void;
  /** Loads the root model's client and Node's fetch ahead of the first request (never fails). */
  warmModel(): Promise<void>;
  /** Every agent's report, from the session's events (a resumed session's old ones first), as its log holds them. */
  reports(): AgentRunReport[];
}

export async function createSession(opts: CreateSessionOptions): Promise<SessionSetup> {
  try {
    return await buildSession(opts);
  } catch (error) {
    // A resume that did not start gives its log back: nothing else will append to it.
    opts.resume?.lock?.release();
    throw error;
  }
}

async function buildSession(opts: CreateSessionOptions): Promise<SessionSetup> {
  const env = opts.env ?? process.env;
  const loadedEnv = loadEnvironment(opts);
  const { config, workspaceRoot, agents, skills, servers, providers } = loadedEnv;
  const main = providers.main.provider;
  if (opts.requireEndpoint !== false && !main.apiKey && !main.baseURL) {
    const demo = "try `orca --demo` to see orca without one";
    if (main.name === "default") {
      throw new ConfigError(
        `no model endpoint: set OPENAI_API_KEY (for OpenAI) or pass --base-url URL (Ollama, vLLM, any OpenAI-compatible server); ${demo}`,
      );
    }
    const variable = main.type === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
    throw new ConfigError(`no API key for provider "${main.name}": set ${variable} or providers.${main.name}.api_key; ${demo}`);
  }
  const rootName = opts.resume?.rebuilt.rootAgentId ?? opts.agentName ?? config.agent.default;
  const rootModelError = loadedEnv.modelErrors.get(rootName);
  if (rootModelError) throw new ConfigError(`agent ${rootName}: ${rootModelError}`);
  const warnings: string[] = [
    ...(loadedEnv.ignored.length ? [ignoredWarning(loadedEnv.ignored)] : []),
    ...agents.failed.map((f) => `agent file ${f.file} skipped: ${f.reason}`),
    ...skills.skipped.map((s) => `skill ${s.path} skipped: ${s.reason}`),
    ...loadedEnv.mcpJson.errors,
    ...loadedEnv.hooks.warnings,
    ...loadedEnv.instructions.skipped.map((s) => `instructions ${s.name} skipped: ${s.reason}`),
  ];
  const home = loadedEnv.home;
  const data = dataDir(config, home);
  // Inside a workspace that holds them (a home directory), what orca loads code and settings from
  // stays read-only to commands and asks for the file tools; a writable area that covers one was
  // refused when the config loaded.
  const ownDirs = codePaths({ env, home, dataDir: data, packageDir: opts.packageDir }).filter((p) => p.path !== opts.packageDir);
  const workspace = new Workspace(workspaceRoot, config.permissions.additional_dirs, ownDirs);

  // An agent's model: `inherit`, a name on the configured model's provider, or `provider/model`
  // (checked at load, so resolving cannot fail here). One Model per provider and name.
  const models = new Map<string, Model>();
  const modelFor = (spec: string): Model => {
    const choice = providers.resolve(spec);
    const key = Providers.label(choice);
    let model = models.get(key);
    if (!model) {
      model = providers.create(choice);
      models.set(key, model);
    }
    return model;
  };

  requirePrices(config, agents.definitions, modelFor);
  const prepareRootModel = async (): Promise<void> => {
    const definition = agents.definitions.get(rootName);
    if (!definition) return;
    try {
      // Every provider the run's agents may use: its connection opens now, in parallel (model/preconnect.ts).
      if (config.model.preconnect) {
        for (const d of agents.definitions.values()) {
          if (!loadedEnv.modelErrors.has(d.name)) modelFor(d.model === "inherit" ? config.model.name : d.model).preconnect?.();
        }
      }
      // Each handshake's next step goes out before the CPU-bound stretches (Node's fetch loading,
      // then the session), so its round trips pass while they run (letConnectionsOpen says why).
      await letConnectionsOpen();
      await modelFor(definition.model === "inherit" ? config.model.name : definition.model).prepare?.();
      await letConnectionsOpen();
    } catch {
      // Only a head start: the run reports a model it cannot make.
    }
  };

  // The shell grammar the permission check reads commands with is not loaded here: it loads while
  // the first request waits on the model (the agent loop's warm-up), or at the first check that
  // needs it. Loading it at start competed with the first request for the CPU, and a run with no
  // tool call (`orca -p hi`) waited at exit for it to finish compiling.
  const guarded = ownDirs.map((p) => p.path);
  makeGuardedDirs(guarded, [workspace.root, ...workspace.additionalDirs]);
  // orca's own git must not be one a command planted in an area it can write (git-binary.ts).
  const writableOptions = sandboxOptions(config, workspace, home, data);
  addWritableRoots([workspace.root, ...workspace.additionalDirs, ...(writableOptions.writable ?? []), path.join(data, "worktrees")]);
  const sandboxConfig = { ...config, sandbox: { ...config.sandbox, read_only: [...config.sandbox.read_only, ...guarded] } };
  const opening = Sandbox.open({ ...sandboxOptions(sandboxConfig, workspace, home, data, skills.skills.map((s) => s.dir)), probeCache: sandboxProbeFile(env, home), abandonedRemoved: true });
  let session: Session | null = null;
  // Every child process group orca starts is in the log, so a crash cannot hide one (sessions/leftovers.ts);
  // held until the log has its session_started, as MCP servers start before the session exists.
  const processEvents = heldEmit();
  const processes = processRecorder(processEvents.emit, () => session?.rootAgentId ?? rootName);
  const loadingMcp = startMcp({ servers, workspace, clientName: "orca", clientVersion: opts.version, processes });
  // The probe (when its answer is not kept) runs bwrap and waits for it: meanwhile the first
  // request's client and HTTP stack load, the provider's connection opens, and MCP servers start.
  const preparing = opts.warmModel === false ? Promise.resolve() : prepareRootModel();
  const mcp = await loadingMcp;
  const ready = mcp ? mcp.start() : Promise.resolve();
  let sandbox: Sandbox;
  try {
    sandbox = await opening;
  } catch (error) {
    await mcp?.close();
    throw error;
  }
  await preparing;
  const notice = sandboxNotice(sandbox.status, config.sandbox.enabled);
  if (notice) warnings.push(notice);
  const childEnvironment = childEnv(env, { modelKey: config.model.api_key, passModelKey: config.tools.pass_model_key });
  const shells = new ShellManager({ launcher: new CommandLauncher(sandbox, childEnvironment), recorder: processes });
  // A repository a command made, with what would run code taken out of it, or a link it replaced and orca put back: the user is told.
  sandbox.onNestedRepo((reports) => reports.forEach((r) => session?.bus.emit(nestedRepoEvent(r, workspace.root, session.rootAgentId))));
  sandbox.onLinkRestored((repairs) => repairs.forEach((r) => session?.bus.emit(linkRestoredEvent(r, session.rootAgentId))));

  const getSkill = createGetSkillTool({
    skills: () => skills.skills,
    onLoaded: (agentId, skill) => {
      if (skill.allowedTools.length) session?.permissions.preApprove(agentId, mapAllowedTools(skill.allowedTools), { SKILL_DIR: skill.dir, CLAUDE_SKILL_DIR: skill.dir });
    },
  });

  const resume = opts.resume;
  // Before anything of this run starts: what a crashed run of this session left running is ended.
  const leftovers = resume ? await reapProcesses(unendedProcesses(resume.events)) : [];
  // And the temporary files of writes a crash cut short, in this session and any other crashed one.
  await removeLeftoverTemps(dataDir(config, loadedEnv.home), resume?.events);
  const sessionId = resume?.sessionId ?? opts.sessionId ?? newSessionId();
  if (resume) warnings.push(...describeSkipped(resume.file, resume.skipped));
  const hooks = new Hooks({
    hooks: loadedEnv.hooks.hooks,
    session: { sessionId, transcriptPath: () => session?.logFile ?? null, cwd: workspace.root, permissionMode: () => session?.permissions.mode ?? config.permissions.mode },
    env,
    secrets: [config.model.api_key],
    emit: (event) => session?.bus.emit(event),
  });
  if (sandbox.available && config.sandbox.hooks) hooks.setCommandWrapper(sandboxedHooks(sandbox));
  const modelNameOf = (definitionModel: string) => (definitionModel === "inherit" ? config.model.name : definitionModel);
  const secrets = [
    config.model.api_key,
    ...providers.secrets(),
    ...(opts.secrets ?? []),
    ...Object.values(servers).flatMap((s) => ("headers" in s ? Object.values(s.headers) : secretEnvValues(s.env))),
  ]
    // "Bearer TOKEN": the token alone is as secret as the whole header value.
    .flatMap((s) => (s ? [s, /^\S+\s+(\S+)$/.exec(s)?.[1]] : []))
    .filter((s): s is string => Boolean(s));

  // The bash tool's options; verify commands run with the same (evidence-setup.ts).
  const bashOptions = { shells, bashTimeoutMs: config.tools.bash_timeout, maxOutputTokens: config.tools.max_output_tokens, tokens: bpeTokenCounter(), readOnlyCommands: config.scheduler.read_only_commands };
  const tools = builtinTools(bashOptions);
  const contents = ContentStore.forSession(dataDir(config, loadedEnv.home), sessionId);
  const evidence = createAgentEvidence({
    bash: bashOptions,
    contents,
    workspaceRoot: workspace.root,
    prior: resume?.events,
    policy: async (command, agentId) => {
      const permissions = session?.permissions;
      if (!permissions) return { deny: "the session has closed", sandbox: "read-only" };
      await permissions.ready(agentId);
      // A deny rule that matches, or may (a word only known at run time), as it would for the bash tool.
      const bash = tools.find((t) => t.name === "bash");
      const deny = config.permissions.deny.find((rule) => !bash || permissions.ruleMatches(bash, { command }, rule));
      return { ...(deny ? { deny } : {}), sandbox: permissions.mode === "plan" ? "read-only" : "workspace-write" };
    },
  });
  try {
    session = new Session({
      config,
      configPath: loadedEnv.path,
      workspace,
      agents,
      modelFor,
      approver: opts.approver,
      sandbox,
      tools: [...tools.map((tool) => (opts.wrapTool ? opts.wrapTool(tool) : tool)), getSkill],
      personCommand: (command, mode, signal) => runPersonCommand(command, workspace.root, mode, signal, session?.rootAgentId ?? "", bashOptions),
      toolSources: mcp ? { mcp: () => mcp.tools() } : {},
      mcp: mcp ?? undefined,
      ready,
      skillsIndex: renderSkillsIndex(skills.skills, config.skills.index_max_chars),
      instructions: loadedEnv.instructions.text,
      preloadSkills: (names) => {
        const { text, missing } = preloadSkills(names, skills.skills);
        for (const name of missing) warnings.push(`skill "${name}" named by an agent definition was not found`);
        return text;
      },
      logFile: resume?.file ?? path.join(dataDir(config, loadedEnv.home), "sessions", `${sessionId}.jsonl`),
      logLock: resume?.lock,
      leftovers,
      interrupted: resume?.rebuilt.described,
      contents,
      priorEvents: resume?.events,
      team: resume && opts.continueTeam !== false ? (planTeam(resume.events, resume.rebuilt.rootAgentId) ?? undefined) : undefined,
      priorConversation: resume?.rebuilt.conversationAt,
      worktreeDir: path.join(dataDir(config, loadedEnv.home), "worktrees"),
      evidence,
      secrets,
      version: opts.version,
      sessionId,
      // A resumed session keeps the agent it started with.
      agentName: resume?.rebuilt.rootAgentId ?? opts.agentName,
      resumedFrom: resume?.sessionId,
      compact: createCompactor<AgentState>({
        compactAt: config.context.compact_at,
        keepRounds: config.context.keep_rounds,
        windowFor: (name) => contextWindowFor(name, config.model.context_window),
        emit: (event) => session?.bus.emit(event),
        budget: () => session?.budget ?? null,
        preCompact: hooks.has("PreCompact") ? (agent, signal, trigger) => hooks.preCompact(hookAgentOf(agent), { trigger }, { signal }) : undefined,
      }),
      hooks,
      onClose: async () => {
        hooks.killAllSync();
        await Promise.all([shells.close(), mcp?.close()]);
      },
    });
    processEvents.openAfterStart(session.bus);
    // After the log's subscription (the constructor's): evidence reads what the log holds.
    evidence.attach(session.bus);
  } catch (error) {
    await Promise.all([shells.close(), mcp?.close()]);
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(error instanceof Error ? error.message.split("\n")[0]! : String(error));
  }
  if (resume) {
    const restoring = session;
    warnings.push(
      ...restoreAgents(resume.rebuilt, {
        definitions: agents.definitions,
        modelFor: (definition) => modelFor(modelNameOf(definition.model)),
        workspaceRoot: workspace.root,
        restoreAgent: (state) => restoring.restoreAgent(state),
        restoreVersions: (agentId, touches, ts) => restoring.versions.replay(agentId, touches, ts),
      }),
    );
  }

  return {
    session,
    config,
    configPath: loadedEnv.path,
    agents,
    skills,
    mcp,
    warnings,
    ignored: loadedEnv.ignored,
    instructions: loadedEnv.instructions,
    hooks,
    killChildrenSync: () => {
      hooks.killAllSync();
      shells.killAllSync();
      mcp?.killAllSync();
    },
    warmModel: prepareRootModel,
    reports: () => evidence.reports(),
  };
}

export { newSessionId };
export { loadEnvironment };

/** The one line that says a folder's own settings were left out, and which. */
export function ignoredWarning(ignored: readonly ProjectSetting[]): string {
  return `folder not trusted: project settings not loaded: ${ignored.map((s) => s.name).join(", ")}`;
}

/**
 * The sandbox keeps a path read-only only if it exists (a mount needs something to mount on): one
 * of orca's own folders missing inside a writable root is made now, private to the user, before
 * any command could make it first and fill it.
 */
function makeGuardedDirs(paths: readonly string[], writableRoots: readonly string[]): void {
  for (const p of paths) {
    if (!writableRoots.some((root) => isInside(root, p))) continue;
    try {
      fs.mkdirSync(p, { recursive: true, mode: 0o700 });
    } catch {
      // Not creatable (a read-only home): then no command can create it either.
    }
  }
}
