import { allowsTool } from "../agent/definition.js";
import { RunBudget } from "../agent/budget.js";
import { runAgentLoop, type AgentOutcome } from "../agent/loop.js";
import type { Config } from "../config/schema.js";
import type { EmitFn } from "../events/types.js";
import { addUsage, zeroUsage } from "../events/usage.js";
import type { ChatMessage, ToolSpec } from "../model/model.js";
import { contextWindowFor, estimateRequestTokens, quickRequestTokens, tokenizerWorthLoading, warmTokenizer } from "../model/tokens.js";
import type { ToolExecutor } from "../tools/executor.js";
import { loadShellParser } from "../tools/shell/index.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { AnyTool } from "../tools/tool.js";
import type { Workspace } from "../tools/workspace.js";
import { agentCheckpoint } from "../review/checkpoints.js";
import { CancelScope } from "../util/cancel-scope.js";
import type { AgentRegistry, AgentState } from "./agents.js";
import { Delegator } from "./delegation.js";
import { agentBudget } from "./budget-accounts.js";
import type { FanoutGuard } from "./fanout.js";
import { buildSystemPrompt } from "./prompts.js";

export interface AgentRunnerDeps {
  config: Config;
  workspace: Workspace;
  registry: ToolRegistry;
  agents: AgentRegistry;
  emit: EmitFn;
  /** Built after the runner (they call back into it), hence getters. */
  executor(): ToolExecutor;
  delegator(): Delegator;
  /** The current run's budget; null between runs. */
  budget(): RunBudget | null;
  /** Asks before a turn starts too many sub-agents at once (or too dear a set). */
  fanout?: FanoutGuard;
  skillsIndex?: string;
  preloadSkills?(names: string[]): string;
  /** The project instructions section; joined for the root agent, and for sub-agents as config and definition say. */
  instructions?: string;
  compact?(agent: AgentState, history: ChatMessage[], signal: AbortSignal, tools: ToolSpec[], force?: boolean): Promise<boolean | void>;
}

/**
 * Runs one agent, coordinator or sub-agent: its system prompt and first task, its tools (the
 * whitelist), and its loop under a cancel scope of its own, with the agent's totals kept after.
 */
export class AgentRunner {
  constructor(private readonly deps: AgentRunnerDeps) {}

  /** One more user message for an agent, then its loop again (a Stop hook's block; a sub-agent resumed). */
  continueWith(agent: AgentState, message: string, signal: AbortSignal): Promise<AgentOutcome> {
    agent.history.push({ role: "user", content: message });
    this.deps.emit({ type: "user_message", agentId: agent.id, parentId: agent.parentId, text: message });
    return this.continue(agent, signal);
  }

  toolsFor(agent: AgentState): AnyTool[] {
    return this.deps.registry.list().filter((tool) => this.allows(agent, tool.name));
  }

  /** The whitelist, with delegate's companions coming with it, and none of them without a sub-agent to hand work to. */
  allows(agent: AgentState, toolName: string): boolean {
    if (Delegator.isControlTool(toolName)) return this.deps.delegator().allowsControlTool(agent, toolName);
    return allowsTool(agent.definition, toolName);
  }

  async start(agent: AgentState, task: string, parentSignal: AbortSignal): Promise<AgentOutcome> {
    const parent = agent.parentId ? this.deps.agents.get(agent.parentId) : undefined;
    const system = buildSystemPrompt(agent.definition, {
      workspaceRoot: (agent.workspace ?? this.deps.workspace).root,
      worktree: agent.worktree ? { branch: agent.worktree.branch, mainRoot: this.deps.workspace.root } : undefined,
      agentId: agent.id,
      parentName: parent ? `${parent.definition.name} (${parent.id})` : undefined,
      delegates: this.deps.delegator().delegatesFor(agent),
      // An index of skills the agent cannot load would only mislead it.
      skillsIndex: allowsTool(agent.definition, "get_skill") ? (this.deps.skillsIndex ?? "") : "",
      preloadedSkills: agent.definition.skills.length ? (this.deps.preloadSkills?.(agent.definition.skills) ?? "") : "",
      instructions: (agent.definition.instructions ?? (agent.parentId ? this.deps.config.instructions.subagents : true)) ? this.deps.instructions : "",
    });
    agent.history.push({ role: "system", content: system }, { role: "user", content: task });
    this.deps.emit({
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
    if (agent.parentId) this.deps.emit(agentCheckpoint(agent, task));
    if (agent.background) this.deps.emit({ type: "agent_backgrounded", agentId: agent.id, parentId: agent.parentId, by: "delegate" });
    return this.continue(agent, parentSignal);
  }

  /** Runs the agent's loop on its current history under a fresh scope below `parentSignal`. */
  async continue(agent: AgentState, parentSignal: AbortSignal): Promise<AgentOutcome> {
    const scope = new CancelScope(parentSignal);
    agent.scope = scope;
    agent.status = "running";
    const { config } = this.deps;
    const budget = agentBudget(this.deps.budget() ?? new RunBudget({}), agent, config.model.max_output_tokens, this.deps.emit);
    let outcome: AgentOutcome;
    try {
      outcome = await runAgentLoop(
        {
          id: agent.id,
          parentId: agent.parentId,
          name: agent.definition.name,
          model: agent.model,
          history: agent.history,
          toolSpecs: () => this.toolsFor(agent).map((t) => this.deps.registry.spec(t)),
          allows: (name) => this.allows(agent, name),
          executor: this.deps.executor(),
          emit: this.deps.emit,
          maxSteps: agent.definition.maxSteps ?? config.agent.max_steps,
          loopLimit: config.agent.loop_limit,
          budget,
          temperature: config.model.temperature,
          maxOutputTokens: config.model.max_output_tokens,
          claimCallId: (id) => this.deps.agents.claimCallId(id),
          estimateTokens: (history: ChatMessage[], tools: ToolSpec[]) => quickRequestTokens(history, tools, agent.model.name).tokens,
          exactTokens: (history: ChatMessage[], tools: ToolSpec[]) => estimateRequestTokens(history, tools, agent.model.name),
          contextWindow: contextWindowFor(agent.model.name, config.model.context_window),
          warmUp: (bound) => {
            if (tokenizerWorthLoading(bound, contextWindowFor(agent.model.name, config.model.context_window))) warmTokenizer(agent.model.name);
            loadShellParser().catch(() => undefined); // a failure is reported by the permission check that needs it
            // The tools' zod schemas, and zod itself, are made on first use (tools/tool.ts): made
            // here, the first call's validation does not wait for them.
            for (const tool of this.toolsFor(agent)) tool.params.def;
          },
          beforeRequest: this.deps.compact
            ? async (history, signal, tools) => {
                await this.deps.compact!(agent, history, signal, tools);
              }
            : undefined,
          screenCalls: this.deps.fanout && ((calls, signal) => this.deps.fanout!.screen({ id: agent.id, parentId: agent.parentId, name: agent.definition.name }, calls, signal)),
          inbox: this.deps.delegator().inboxFor(agent),
          workspace: agent.workspace,
        },
        scope.signal,
      );
    } catch (error) {
      // The loop handles model and tool errors itself; this is a bug, but the parent must get an answer.
      const message = `internal error in agent ${agent.id}: ${error instanceof Error ? error.message : String(error)}`;
      this.deps.emit({ type: "error", agentId: agent.id, parentId: agent.parentId, where: "agent", message });
      outcome = { status: "failed", result: message, answer: "", steps: 0, usage: zeroUsage(), filesChanged: [] };
    } finally {
      // Background sub-agents never outlive the agent that started them (cancel, failure, step limit).
      await this.deps.delegator().settleChildrenOf(agent);
      scope.dispose();
      agent.scope = undefined;
    }
    agent.status = outcome.status;
    agent.steps += outcome.steps;
    addUsage(agent.usage, outcome.usage);
    for (const f of outcome.filesChanged) agent.filesChanged.add(f);
    this.deps.emit({
      type: "agent_finished",
      agentId: agent.id,
      parentId: agent.parentId,
      status: outcome.status,
      result: outcome.result,
      steps: outcome.steps,
      usage: outcome.usage,
      filesChanged: outcome.filesChanged.map((f) => (agent.workspace ?? this.deps.workspace).relative(f)),
    });
    return outcome;
  }
}
