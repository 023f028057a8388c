import crypto from "node:crypto";
import type { RunBudget } from "../agent/budget.js";
import type { AgentOutcome } from "../agent/loop.js";
import { processEnded } from "../events/constructors.js";
import { EventBus } from "../events/bus.js";
import { SessionLog } from "../events/log.js";
import { Redactor } from "../events/redact.js";
import type { SessionStatus, Usage } from "../events/types.js";
import { zeroUsage } from "../events/usage.js";
import { ToolExecutor } from "../tools/executor.js";
import { Permissions } from "../tools/permissions/engine.js";
import { withSources, type RuleInForce } from "../tools/permissions/in-force.js";
import { configRuleSource, removeSavedRule } from "../tools/permissions/save-rule.js";
import { ToolRegistry } from "../tools/registry.js";
import { Scheduler } from "../tools/scheduler.js";
import { FileVersions } from "../tools/versions.js";
import type { Workspace } from "../tools/workspace.js";
import { raceAbort } from "../util/race-abort.js";
import { CancelScope } from "../util/cancel-scope.js";
import { Cancelled, RunStuck, type LogWriteError } from "../util/errors.js";
import { AgentRegistry, type AgentState } from "./agents.js";
import { agentDisplayName } from "./conflict-report.js";
import { Delegator } from "./delegation.js";
import { turnCheckpoint } from "../review/checkpoints.js";
import { ReviewDesk } from "./review-desk.js";
import { McpStatusWatcher } from "./mcp-status.js";
import { RunLifecycle } from "./lifecycle.js";
import { AgentRunner } from "./agent-runner.js";
import { sessionFanoutGuard } from "./fanout.js";
import { sessionIsolation, type Isolation } from "./isolation.js";
import type { AgentSummary, ControlResult, McpServerState, RunResult, SchedulerCounts, SessionApi } from "./types.js";
import type { PermissionMode } from "../config/schema.js";
import type { SessionDeps } from "./session-deps.js";
import { userInput, type UserInputApi } from "./user-input.js";
import { describeUnproven } from "../sessions/leftovers.js";
import { TeamResume } from "./team-resume.js";
import { openRunBudget } from "./run-budget.js";
import { TaskBoard } from "./task-board.js";
export type { SessionDeps };

export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${crypto.randomBytes(3).toString("hex")}`;
}

export class Session implements SessionApi {
  readonly id: string;
  readonly bus: EventBus;
  readonly workspace: Workspace;
  readonly registry = new ToolRegistry();
  readonly scheduler: Scheduler;
  readonly permissions: Permissions;
  /** Change sets, diffs and the person's review decisions (/review, /diff, /rewind). */
  readonly review: ReviewDesk;
  private isolation: Isolation | null = null;
  /** Which file version each agent has seen: stale writes are refused (tools/versions.ts). */
  readonly versions: FileVersions;
  readonly rootAgentId: string;
  private readonly executor: ToolExecutor;
  private readonly log: SessionLog | null;
  private readonly agentRegistry: AgentRegistry;
  private readonly delegator: Delegator;
  private readonly runner: AgentRunner;
  private readonly startedAt = Date.now();
  private readonly sessionScope = new CancelScope();
  private runScope: CancelScope | null = null;
  private runBudget: RunBudget | null = null;
  private closed = false;
  private readonly mcpWatcher: McpStatusWatcher | null;
  /** The session's own lifecycle hooks: SessionStart/End, UserPromptSubmit, Stop. */
  private readonly lifecycle: RunLifecycle;
  /** Keeps secrets out of every serialised form of the events (log, stream-json). */
  readonly redactor = new Redactor();
  /** `@path` mentions and `!command` from the dashboard's input box. */
  readonly input: UserInputApi;
  /** The stopped run a resume continues, taken up by the next run before its prompt (team-resume.ts). */
  private team: TeamResume | null = null;
  /** The team's task board, restored from a resumed log's events (orchestrator/task-board.ts). */
  readonly board: TaskBoard;

  constructor(private readonly deps: SessionDeps) {
    this.id = deps.sessionId ?? newSessionId();
    this.bus = new EventBus(this.id);
    this.lifecycle = new RunLifecycle(deps.hooks, this.bus.emit);
    for (const secret of deps.secrets ?? []) this.redactor.add(secret);
    this.workspace = deps.workspace;
    this.log = deps.logFile ? new SessionLog(deps.logFile, this.redactor, deps.logLock) : null;
    this.log?.record(this.bus, (failure) => this.logFailed(failure));
    // Every request of a run counts toward its token budget, compaction's summaries included.
    this.bus.subscribe((event) => event.type === "usage" && this.runBudget?.addUsage(event));
    const { config } = deps;
    this.board = new TaskBoard(this.bus.emit, deps.priorEvents);
    this.scheduler = new Scheduler({ maxConcurrency: config.scheduler.max_concurrency, emit: this.bus.emit });
    this.permissions = new Permissions({
      mode: config.permissions.mode,
      allow: config.permissions.allow,
      ask: config.permissions.ask,
      deny: config.permissions.deny,
      sandboxedCommands: config.permissions.sandboxed_commands,
      approver: deps.approver,
      emit: this.bus.emit,
      workspace: deps.workspace,
      sandbox: deps.sandbox,
      hooks: deps.hooks,
      stopRun: (agentId, reason) => this.stopRun(agentId, reason),
    });
    const inputDeps = { workspace: deps.workspace, run: deps.personCommand, emit: this.bus.emit, agentId: () => this.rootAgentId };
    this.input = userInput({ ...inputDeps, readDenied: (rel) => this.permissions.readDenied(rel), mode: () => this.permissions.mode });
    this.versions = new FileVersions(deps.workspace, { nameOf: (id) => agentDisplayName(id, this.agentRegistry.get(id)?.label), contents: deps.contents });
    const rootName = deps.agentName ?? config.agent.default;
    const rootDefinition = deps.agents.definitions.get(rootName);
    if (!rootDefinition) {
      const known = [...deps.agents.definitions.keys()].join(", ") || "none";
      throw new Error(`no agent named "${rootName}" (known agents: ${known})`);
    }
    this.rootAgentId = rootDefinition.name;
    this.agentRegistry = new AgentRegistry((definition) => deps.modelFor(definition.model === "inherit" ? config.model.name : definition.model));
    this.runner = new AgentRunner({
      config,
      workspace: deps.workspace,
      registry: this.registry,
      agents: this.agentRegistry,
      emit: this.bus.emit,
      executor: () => this.executor,
      delegator: () => this.delegator,
      budget: () => this.runBudget,
      fanout: sessionFanoutGuard({ config, approver: deps.approver, emit: this.bus.emit, definitions: deps.agents.definitions, agents: this.agentRegistry, modelFor: deps.modelFor, registry: this.registry, run: () => this.runBudget }),
      skillsIndex: deps.skillsIndex,
      preloadSkills: deps.preloadSkills,
      instructions: deps.instructions,
      compact: deps.compact,
    });
    this.delegator = new Delegator({
      agents: this.agentRegistry,
      definitions: deps.agents.definitions,
      rootAgentId: this.rootAgentId,
      maxDepth: config.agents.max_depth,
      maxParallel: config.agents.max_parallel,
      workspace: deps.workspace,
      versions: this.versions,
      emit: this.bus.emit,
      startAgent: (agent, task, signal) => this.runner.start(agent, task, signal),
      continueAgent: (agent, signal) => this.runner.continue(agent, signal),
      continueWith: (agent, message, signal) => this.runner.continueWith(agent, message, signal),
      hooks: deps.hooks,
      evidence: deps.evidence,
      team: { board: this.board, workspaceRoot: deps.workspace.root, onOverlap: config.agents.on_overlap, approver: deps.approver },
      isolation: (this.isolation = sessionIsolation({ deps, sessionId: this.id, scheduler: this.scheduler, emit: this.bus.emit, versions: this.versions, registry: this.registry, permissions: this.permissions })),
    });
    if (deps.team) this.team = new TeamResume({ plan: deps.team, agents: this.agentRegistry, delegator: this.delegator, emit: this.bus.emit, continueAgent: (a, s) => this.runner.continue(a, s), continueWith: (a, m, s) => this.runner.continueWith(a, m, s) });
    this.review = new ReviewDesk({ bus: this.bus, workspace: deps.workspace, contents: deps.contents, rootAgentId: this.rootAgentId, prior: deps.priorEvents, tell: (id, text) => this.message(id, text),
      held: () => this.isolation?.heldForReview() ?? [], acceptMerge: (id) => this.isolation?.accept(id, this.sessionScope.signal) ?? Promise.resolve(null),
      conversation: { root: () => this.agentRegistry.get(this.rootAgentId)!, prior: deps.priorConversation, busy: () => this.busy } });
    for (const tool of deps.tools) this.registry.add(tool);
    for (const tool of this.delegator.tools()) this.registry.add(tool);
    for (const [name, source] of Object.entries(deps.toolSources ?? {})) this.registry.addSource(name, source);
    this.executor = new ToolExecutor({
      registry: this.registry,
      scheduler: this.scheduler,
      permissions: this.permissions,
      workspace: deps.workspace,
      emit: this.bus.emit,
      durable: async () => this.log?.durable(),
      versions: this.versions,
      hooks: deps.hooks,
      stopRun: (agentId, reason) => this.stopRun(agentId, reason),
      beforeWrite: deps.sandbox?.beforeWrite?.bind(deps.sandbox), afterWrite: deps.sandbox?.afterWrite?.bind(deps.sandbox),
    });
    this.agentRegistry.add(this.rootAgentId, rootDefinition, undefined, 0);
    this.mcpWatcher = deps.mcp ? new McpStatusWatcher(deps.mcp, this.bus.emit, this.rootAgentId) : null;
  }

  get permissionMode(): PermissionMode { return this.permissions.mode; }

  // /permissions and the header's "sandboxed cmds: auto".
  readonly permissionRules = (): RuleInForce[] => withSources(this.permissions.rulesInForce(), configRuleSource(this.deps.config));
  readonly removeSessionRule = (text: string): boolean => this.permissions.removeSessionRule(text);
  readonly removeSavedRule = (text: string, scope: "project" | "user") => removeSavedRule(scope, text, this.deps.workspace.root, () => this.permissions.removeConfigRule(text));
  readonly sandboxedCommandsAuto = (): boolean => this.permissions.autoSandboxed();

  setPermissionMode(mode: PermissionMode): void {
    this.permissions.mode = mode;
    // Hooks read the mode from the config (their payload's permission_mode).
    this.deps.config.permissions.mode = mode;
  }

  setModel(name: string): void {
    const model = this.deps.modelFor(name);
    this.agentRegistry.get(this.rootAgentId)!.model = model;
    // Sub-agents whose definition says `model: inherit` start on it from now on.
    this.deps.config.model.name = name;
  }

  async compact(): Promise<boolean> {
    if (this.runScope) throw new Error("a run is in progress; compact when it ends");
    if (!this.deps.compact) return false;
    const root = this.agentRegistry.get(this.rootAgentId)!;
    const scope = new CancelScope(this.sessionScope.signal);
    try {
      const tools = this.runner.toolsFor(root).map((t) => this.registry.spec(t));
      return (await this.deps.compact(root, root.history, scope.signal, tools, true)) === true;
    } finally {
      scope.dispose();
    }
  }

  mcpServers(): McpServerState[] {
    return this.mcpWatcher?.snapshot() ?? [];
  }

  get modelName(): string {
    return this.agentRegistry.get(this.rootAgentId)!.model.name;
  }

  get workspaceRoot(): string { return this.workspace.root; }

  /** The budget of the run in progress (null between runs): compaction checks its summary request against it. */
  get budget(): RunBudget | null {
    return this.runBudget;
  }

  get busy(): boolean {
    return this.runScope !== null;
  }

  /** Emits session_started; separate from the constructor so consumers can subscribe first. */
  start(extra: { resumedFrom?: string } = this.deps.resumedFrom ? { resumedFrom: this.deps.resumedFrom } : {}): void {
    this.bus.emit({
      type: "session_started",
      agentId: this.rootAgentId,
      workspace: this.workspace.root,
      model: this.modelName,
      configPath: this.deps.configPath,
      version: this.deps.version,
      // write_file and edit_file log a file_write before they replace a file (tools/builtin/file-writes.ts).
      writesAnnounced: true,
      ...(this.deps.interrupted?.length ? { interrupted: this.deps.interrupted } : {}),
      ...extra,
    });
    this.mcpWatcher?.announce();
    for (const { process: p, result } of this.deps.leftovers ?? []) {
      if (result === "unproven") this.bus.emit({ type: "error", agentId: p.agentId, where: "resume", message: describeUnproven(p) });
      this.bus.emit(processEnded(p, result === "ended"));
    }
    this.lifecycle.sessionStart(this.agentRegistry.get(this.rootAgentId)!, extra.resumedFrom ? "resume" : "startup", this.modelName, this.sessionScope.signal);
  }

  agents(): AgentSummary[] {
    return this.agentRegistry.summaries();
  }

  /** Internal view for resume and tests. */
  agentState(id: string): AgentState | undefined {
    return this.agentRegistry.get(id);
  }

  allAgentStates(): AgentState[] {
    return this.agentRegistry.all();
  }

  /** Registers an agent rebuilt from a log (resume). */
  restoreAgent(state: AgentState): void {
    this.agentRegistry.restore(state);
  }

  totalUsage(): Usage {
    return this.agentRegistry.totalUsage();
  }

  schedulerCounts(): SchedulerCounts {
    return { running: this.scheduler.running, waiting: this.scheduler.waiting };
  }

  onSchedulerChange(listener: (counts: SchedulerCounts) => void): () => void {
    return this.scheduler.onChange(listener);
  }

  /** The agents the next run continues (a resumed session whose run stopped with sub-agents at work); run(null) does it. */
  get continuing(): string[] {
    return this.team?.team() ?? [];
  }

  async run(text: string | null): Promise<RunResult> {
    if (this.runScope) throw new Error("a run is already in progress");
    if (this.closed) throw new Error("the session is closed");
    const logFailure = this.log?.failed;
    if (logFailure) {
      this.bus.emit({ type: "error", agentId: this.rootAgentId, where: "log", message: `${logFailure.message}; the run was not started` });
      return { status: "failed", result: logFailure.message, answer: "", usage: zeroUsage(), durationMs: 0 };
    }
    const startedAt = Date.now();
    const root = this.agentRegistry.get(this.rootAgentId)!;
    const scope = new CancelScope(this.sessionScope.signal);
    this.runScope = scope;
    const { budget: runBudget, deadline } = openRunBudget(this.deps.config.budget, { scope, agentScope: (id) => this.agentRegistry.get(id)?.scope, emit: this.bus.emit, rootId: root.id }, this.team?.stopped);
    this.runBudget = runBudget;
    const usageBefore = { ...this.totalUsage() };
    try {
      const submitted = text === null ? { prompt: null } : await this.lifecycle.submitPrompt(root, text, scope.signal);
      if ("blocked" in submitted) return { status: "failed", result: submitted.blocked, answer: "", usage: zeroUsage(), durationMs: Date.now() - startedAt };
      const prompt = submitted.prompt;
      if (prompt !== null) this.bus.emit(turnCheckpoint(root.id, prompt));
      if (prompt !== null) this.bus.emit({ type: "user_message", agentId: root.id, text: prompt });
      // MCP servers still connecting must not hold up a cancel.
      await raceAbort(this.deps.ready ?? Promise.resolve(), scope.signal, () => undefined);
      const team = this.team;
      this.team = null;
      await team?.prepare(root, scope.signal);
      if (prompt !== null && root.history.length) root.history.push({ role: "user", content: prompt });
      let outcome: AgentOutcome;
      if (!root.history.length) outcome = await this.runner.start(root, prompt ?? "", scope.signal);
      else outcome = prompt === null && team ? await team.goOn(root, scope.signal) : await this.runner.continue(root, scope.signal);
      outcome = await this.lifecycle.afterStop(root, outcome, scope.signal, (message) => this.runner.continueWith(root, message, scope.signal));
      await this.deps.evidence?.agentEnded(root, outcome.status, scope.signal);
      const after = this.totalUsage();
      return {
        status: outcome.status as SessionStatus,
        result: outcome.result,
        answer: outcome.answer,
        usage: { input: after.input - usageBefore.input, output: after.output - usageBefore.output, cached: after.cached - usageBefore.cached },
        durationMs: Date.now() - startedAt,
      };
    } finally {
      clearTimeout(deadline);
      scope.dispose();
      this.runScope = null;
      this.runBudget = null;
    }
  }

  message(agentId: string, text: string): ControlResult {
    if (!text.trim()) return { ok: false, error: "the message is empty" };
    if (agentId === this.rootAgentId && !this.runScope) return { ok: false, error: "no run in progress: send it as a prompt" };
    return this.delegator.message(agentId, text);
  }

  background(agentId: string): ControlResult {
    return this.delegator.background(agentId);
  }

  cancel(scopeId?: string): void {
    if (!scopeId || scopeId === this.rootAgentId) {
      this.runScope?.cancel();
      return;
    }
    const agent = this.agentRegistry.get(scopeId);
    if (agent) this.delegator.cancel(agent);
  }

  /**
   * Ends the session: cancels what runs, gives SubagentStop hooks still due (and hooks still
   * running) a short deadline, runs SessionEnd, then kills what is left. `reason` is SessionEnd's:
   * prompt_input_exit when the user left the dashboard, other otherwise.
   */
  async close(status: SessionStatus = "idle", reason: "prompt_input_exit" | "other" = "other"): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sessionScope.cancel(new Cancelled("session closed"));
    this.mcpWatcher?.dispose();
    try {
      await this.lifecycle.close(this.agentRegistry.get(this.rootAgentId)!, reason);
      await this.deps.onClose?.();
    } finally {
      this.bus.emit({ type: "session_finished", agentId: this.rootAgentId, status, durationMs: Date.now() - this.startedAt });
      this.log?.close();
    }
  }

  get logFile(): string | null {
    return this.log?.file ?? null;
  }

  /**
   * The log is the source of truth: a run that can no longer be recorded stops (status failed) rather
   * than go on unrecorded, and every consumer is told why.
   */
  private logFailed(failure: LogWriteError): void {
    this.bus.emit({ type: "error", agentId: this.rootAgentId, where: "log", message: `${failure.message}; the run was stopped` });
    this.runScope?.cancel(failure);
  }

  /**
   * The run can make no progress: nothing is left that could wake any of its agents (the process
   * found its event loop empty). It fails with `message`, said once, instead of the process ending
   * silently with the run unfinished and no session_finished.
   */
  failStuckRun(message: string): void {
    if (!this.runScope || this.runScope.signal.aborted) return;
    this.bus.emit({ type: "error", agentId: this.rootAgentId, where: "run", message });
    this.runScope.cancel(new RunStuck(message));
  }

  /** A hook's `continue: false` (or a PermissionRequest interrupt): the run ends, its reason told. */
  private stopRun(agentId: string, reason: string): void {
    if (!this.runScope || this.runScope.signal.aborted) return;
    const agent = this.agentRegistry.get(agentId);
    this.bus.emit({ type: "error", agentId, parentId: agent?.parentId, where: "hook", message: reason });
    this.runScope.cancel(new Cancelled(`stopped: ${reason}`));
  }
}
