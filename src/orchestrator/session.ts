import crypto from "node:crypto";
import { allowsTool, type AgentReport } from "../agent/definition.js";
import { RunBudget } from "../agent/budget.js";
import { runAgentLoop, type AgentOutcome } from "../agent/loop.js";
import type { Config } from "../config/schema.js";
import { EventBus } from "../events/bus.js";
import { SessionLog } from "../events/log.js";
import { Redactor } from "../events/redact.js";
import type { SessionStatus, Usage } from "../events/types.js";
import { addUsage, zeroUsage } from "../events/usage.js";
import type { ChatMessage, Model, ToolSpec } from "../model/model.js";
import { estimateRequestTokens } from "../model/tokens.js";
import type { Approver } from "../tools/approver.js";
import { ToolExecutor } from "../tools/executor.js";
import { Permissions } from "../tools/permissions/engine.js";
import { ToolRegistry } from "../tools/registry.js";
import { Scheduler } from "../tools/scheduler.js";
import type { AnyTool } from "../tools/tool.js";
import { FileVersions } from "../tools/versions.js";
import type { Workspace } from "../tools/workspace.js";
import { raceAbort } from "../util/race-abort.js";
import { CancelScope } from "../util/cancel-scope.js";
import { WorktreeManager } from "../worktrees/worktree.js";
import { AgentRegistry, type AgentState } from "./agents.js";
import { agentDisplayName } from "./conflict-report.js";
import { Delegator } from "./delegation.js";
import { Isolation } from "./isolation.js";
import { buildSystemPrompt } from "./prompts.js";
import type { AgentSummary, ControlResult, RunResult, SchedulerCounts, SessionApi } from "./types.js";

export interface SessionDeps {
  config: Config;
  configPath: string | null;
  workspace: Workspace;
  agents: AgentReport;
  /** Builds the model for a name ("inherit" resolved already). */
  modelFor(name: string): Model;
  approver: Approver;
  /** Tools other than delegate (built-ins, get_skill); MCP tools come through `toolSources`. */
  tools: AnyTool[];
  toolSources?: Record<string, () => AnyTool[]>;
  /** Awaited before the first model request (MCP servers connecting). */
  ready?: Promise<void>;
  skillsIndex?: string;
  preloadSkills?(names: string[]): string;
  /** Where the JSONL log goes; null for no log. */
  logFile: string | null;
  secrets?: string[];
  version: string;
  sessionId?: string;
  agentName?: string;
  /** Called by close(): kill shells, close MCP. */
  onClose?(): Promise<void>;
  /** Optional compaction, run before each model request with the tools that request offers. */
  compact?(agent: AgentState, history: ChatMessage[], signal: AbortSignal, tools: ToolSpec[]): Promise<void>;
  /** Set when this session continues a logged one (recorded in session_started). */
  resumedFrom?: string;
  /** Where `isolation: worktree` agents get their git worktrees (`<data_dir>/worktrees`); unset: no isolation. */
  worktreeDir?: string;
}

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
  /** Which file version each agent has seen: stale writes are refused (tools/versions.ts). */
  readonly versions: FileVersions;
  readonly rootAgentId: string;
  private readonly executor: ToolExecutor;
  private readonly log: SessionLog | null;
  private readonly agentRegistry: AgentRegistry;
  private readonly delegator: Delegator;
  private readonly startedAt = Date.now();
  private readonly sessionScope = new CancelScope();
  private runScope: CancelScope | null = null;
  private runBudget: RunBudget | null = null;
  private closed = false;
  /** Keeps secrets out of every serialised form of the events (log, stream-json). */
  readonly redactor = new Redactor();

  constructor(private readonly deps: SessionDeps) {
    this.id = deps.sessionId ?? newSessionId();
    this.bus = new EventBus(this.id);
    for (const secret of deps.secrets ?? []) this.redactor.add(secret);
    this.workspace = deps.workspace;
    if (deps.logFile) {
      this.log = new SessionLog(deps.logFile, this.redactor);
      const log = this.log;
      this.bus.subscribe((event) => log.append(event));
    } else {
      this.log = null;
    }
    const { config } = deps;
    this.scheduler = new Scheduler({ maxConcurrency: config.scheduler.max_concurrency, emit: this.bus.emit });
    this.permissions = new Permissions({
      mode: config.permissions.mode,
      allow: config.permissions.allow,
      ask: config.permissions.ask,
      deny: config.permissions.deny,
      approver: deps.approver,
      emit: this.bus.emit,
      workspace: deps.workspace,
    });
    this.versions = new FileVersions(deps.workspace, { nameOf: (id) => agentDisplayName(id, this.agentRegistry.get(id)?.label) });
    const rootName = deps.agentName ?? config.agent.default;
    const rootDefinition = deps.agents.definitions.get(rootName);
    if (!rootDefinition) {
      const known = [...deps.agents.definitions.keys()].join(", ") || "none";
      throw new Error(`no agent named "${rootName}" (known agents: ${known})`);
    }
    this.rootAgentId = rootDefinition.name;
    this.agentRegistry = new AgentRegistry((definition) => deps.modelFor(definition.model === "inherit" ? config.model.name : definition.model));
    this.delegator = new Delegator({
      agents: this.agentRegistry,
      definitions: deps.agents.definitions,
      rootAgentId: this.rootAgentId,
      maxDepth: config.agents.max_depth,
      maxParallel: config.agents.max_parallel,
      workspace: deps.workspace,
      versions: this.versions,
      emit: this.bus.emit,
      startAgent: (agent, task, signal) => this.startAgent(agent, task, signal),
      continueAgent: (agent, signal) => this.continueAgent(agent, signal),
      isolation: deps.worktreeDir
        ? new Isolation({
            manager: new WorktreeManager({ dir: deps.worktreeDir, sessionId: this.id, workspace: deps.workspace }),
            workspace: deps.workspace,
            scheduler: this.scheduler,
            emit: this.bus.emit,
          })
        : null,
    });
    for (const tool of deps.tools) this.registry.add(tool);
    for (const tool of this.delegator.tools()) this.registry.add(tool);
    for (const [name, source] of Object.entries(deps.toolSources ?? {})) this.registry.addSource(name, source);
    this.executor = new ToolExecutor({
      registry: this.registry,
      scheduler: this.scheduler,
      permissions: this.permissions,
      workspace: deps.workspace,
      emit: this.bus.emit,
      versions: this.versions,
    });
    this.agentRegistry.add(this.rootAgentId, rootDefinition, undefined, 0);
  }

  get modelName(): string {
    return this.agentRegistry.get(this.rootAgentId)!.model.name;
  }

  get workspaceRoot(): string {
    return this.workspace.root;
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
      ...extra,
    });
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

  async run(text: string): Promise<RunResult> {
    if (this.runScope) throw new Error("a run is already in progress");
    if (this.closed) throw new Error("the session is closed");
    const startedAt = Date.now();
    const root = this.agentRegistry.get(this.rootAgentId)!;
    const scope = new CancelScope(this.sessionScope.signal);
    this.runScope = scope;
    const { budget } = this.deps.config;
    this.runBudget = new RunBudget({
      maxTokens: budget.max_tokens,
      maxToolCalls: budget.max_tool_calls,
      maxDuration: budget.max_duration,
    });
    const usageBefore = { ...this.totalUsage() };
    // The time budget must stop a run that is stuck in a long tool or stream, not only between steps.
    const durationMs = budget.max_duration === undefined ? undefined : budget.max_duration * 1000;
    // setTimeout fires at once past 2^31-1 ms; such a budget is no limit in practice.
    const deadline = durationMs !== undefined && durationMs < 2 ** 31 - 1 ? setTimeout(() => scope.cancel("time budget reached"), durationMs) : undefined;
    try {
      this.bus.emit({ type: "user_message", agentId: root.id, text });
      // MCP servers still connecting must not hold up a cancel.
      await raceAbort(this.deps.ready ?? Promise.resolve(), scope.signal, () => undefined);
      let outcome: AgentOutcome;
      if (root.history.length === 0) {
        outcome = await this.startAgent(root, text, scope.signal);
      } else {
        root.history.push({ role: "user", content: text });
        outcome = await this.continueAgent(root, scope.signal);
      }
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

  async close(status: SessionStatus = "idle"): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sessionScope.cancel("session closed");
    try {
      await this.deps.onClose?.();
    } finally {
      this.bus.emit({ type: "session_finished", agentId: this.rootAgentId, status, durationMs: Date.now() - this.startedAt });
      this.log?.close();
    }
  }

  get logFile(): string | null {
    return this.log?.file ?? null;
  }

  private toolsFor(agent: AgentState): AnyTool[] {
    return this.registry.list().filter((tool) => this.allows(agent, tool.name));
  }

  /** The whitelist, with delegate's companions coming with it, and none of them without a sub-agent to hand work to. */
  private allows(agent: AgentState, toolName: string): boolean {
    if (Delegator.isControlTool(toolName)) return this.delegator.allowsControlTool(agent, toolName);
    return allowsTool(agent.definition, toolName);
  }

  private async startAgent(agent: AgentState, task: string, parentSignal: AbortSignal): Promise<AgentOutcome> {
    const parent = agent.parentId ? this.agentRegistry.get(agent.parentId) : undefined;
    const system = buildSystemPrompt(agent.definition, {
      workspaceRoot: (agent.workspace ?? this.workspace).root,
      worktree: agent.worktree ? { branch: agent.worktree.branch, mainRoot: this.workspace.root } : undefined,
      agentId: agent.id,
      parentName: parent ? `${parent.definition.name} (${parent.id})` : undefined,
      delegates: this.delegator.delegatesFor(agent),
      // An index of skills the agent cannot load would only mislead it.
      skillsIndex: allowsTool(agent.definition, "get_skill") ? (this.deps.skillsIndex ?? "") : "",
      preloadedSkills: agent.definition.skills.length ? (this.deps.preloadSkills?.(agent.definition.skills) ?? "") : "",
    });
    agent.history.push({ role: "system", content: system }, { role: "user", content: task });
    this.bus.emit({
      type: "agent_started",
      agentId: agent.id,
      parentId: agent.parentId,
      name: agent.definition.name,
      label: agent.label,
      task,
      tools: this.toolsFor(agent).map((t) => t.name),
      depth: agent.depth,
      model: agent.model.name,
      system,
    });
    if (agent.background) this.bus.emit({ type: "agent_backgrounded", agentId: agent.id, parentId: agent.parentId, by: "delegate" });
    return this.continueAgent(agent, parentSignal);
  }

  /** Runs the agent's loop on its current history under a fresh scope below `parentSignal`. */
  private async continueAgent(agent: AgentState, parentSignal: AbortSignal): Promise<AgentOutcome> {
    const scope = new CancelScope(parentSignal);
    agent.scope = scope;
    agent.status = "running";
    const { config } = this.deps;
    const budget = this.runBudget ?? new RunBudget({});
    let outcome: AgentOutcome;
    try {
      outcome = await runAgentLoop(
        {
          id: agent.id,
          parentId: agent.parentId,
          name: agent.definition.name,
          model: agent.model,
          history: agent.history,
          toolSpecs: () => this.toolsFor(agent).map((t) => this.registry.spec(t)),
          allows: (name) => this.allows(agent, name),
          executor: this.executor,
          emit: this.bus.emit,
          maxSteps: agent.definition.maxSteps ?? config.agent.max_steps,
          loopLimit: config.agent.loop_limit,
          budget,
          temperature: config.model.temperature,
          maxOutputTokens: config.model.max_output_tokens,
          claimCallId: (id) => this.agentRegistry.claimCallId(id),
          estimateTokens: (history: ChatMessage[], tools: ToolSpec[]) => estimateRequestTokens(history, tools, agent.model.name),
          beforeRequest: this.deps.compact ? (history, signal, tools) => this.deps.compact!(agent, history, signal, tools) : undefined,
          inbox: this.delegator.inboxFor(agent),
          workspace: agent.workspace,
        },
        scope.signal,
      );
    } catch (error) {
      // The loop handles model and tool errors itself; this is a bug, but the parent must get an answer.
      const message = `internal error in agent ${agent.id}: ${error instanceof Error ? error.message : String(error)}`;
      this.bus.emit({ type: "error", agentId: agent.id, parentId: agent.parentId, where: "agent", message });
      outcome = { status: "failed", result: message, answer: "", steps: 0, usage: zeroUsage(), filesChanged: [] };
    } finally {
      // Background sub-agents never outlive the agent that started them (cancel, failure, step limit).
      await this.delegator.settleChildrenOf(agent);
      scope.dispose();
      agent.scope = undefined;
    }
    agent.status = outcome.status;
    agent.steps += outcome.steps;
    addUsage(agent.usage, outcome.usage);
    for (const f of outcome.filesChanged) agent.filesChanged.add(f);
    this.bus.emit({
      type: "agent_finished",
      agentId: agent.id,
      parentId: agent.parentId,
      status: outcome.status,
      result: outcome.result,
      steps: outcome.steps,
      usage: outcome.usage,
      filesChanged: outcome.filesChanged.map((f) => (agent.workspace ?? this.workspace).relative(f)),
    });
    return outcome;
  }
}
