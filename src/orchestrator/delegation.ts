import PQueue from "p-queue";
import { allowsTool, type AgentDefinition } from "../agent/definition.js";
import type { AgentOutcome } from "../agent/loop.js";
import type { EmitFn } from "../events/types.js";
import { zeroUsage } from "../events/usage.js";
import type { Hooks } from "../hooks/index.js";
import type { AnyTool, ToolResult } from "../tools/tool.js";
import type { FileVersions } from "../tools/versions.js";
import type { Workspace } from "../tools/workspace.js";
import type { AgentRegistry, AgentState } from "./agents.js";
import { conflictReport } from "./conflict-report.js";
import { createDelegateTool, type DelegateArgs } from "./delegate.js";
import { runSubagent, withHookContext } from "./lifecycle.js";

const RESULT_LIMIT = 20_000;

export interface DelegatorDeps {
  agents: AgentRegistry;
  definitions: ReadonlyMap<string, AgentDefinition>;
  /** The coordinator: never a delegation target. */
  rootAgentId: string;
  maxDepth: number;
  maxParallel: number;
  workspace: Workspace;
  /** For the write conflicts a sub-agent met, listed in its result so the parent can re-plan. */
  versions: FileVersions;
  emit: EmitFn;
  /** Runs a fresh agent on its task (system prompt, agent_started, the loop). */
  startAgent(agent: AgentState, task: string, signal: AbortSignal): Promise<AgentOutcome>;
  /** Runs an agent's loop on the history it has. */
  continueAgent(agent: AgentState, signal: AbortSignal): Promise<AgentOutcome>;
  /** Runs an agent again with one more user message (a SubagentStop hook kept it going). */
  continueWith(agent: AgentState, message: string, signal: AbortSignal): Promise<AgentOutcome>;
  /** SubagentStart / SubagentStop around every sub-agent run. */
  hooks?: Hooks;
}

/**
 * The `delegate` tool's work: starting a sub-agent or resuming one, at most `max_parallel` at a
 * time (more wait in a queue), and the one tool result the parent gets back.
 */
export class Delegator {
  private readonly queue: PQueue;
  /** Sub-agents cancelled while they waited for a max_parallel slot. */
  private readonly cancelledWhileQueued = new Set<string>();

  constructor(private readonly deps: DelegatorDeps) {
    this.queue = new PQueue({ concurrency: deps.maxParallel });
  }

  tool(): AnyTool {
    return createDelegateTool({
      agentNames: () => [...this.deps.definitions.keys()].filter((name) => name !== this.deps.rootAgentId),
      delegate: (parentId, args, signal) => this.delegate(parentId, args, signal),
    });
  }

  /** Sub-agents this agent may hand work to, or none when it may not delegate here. */
  delegatesFor(agent: AgentState): AgentDefinition[] {
    if (!allowsTool(agent.definition, "delegate")) return [];
    if (agent.depth + 1 > this.deps.maxDepth) return [];
    return [...this.deps.definitions.values()].filter((d) => d.name !== this.deps.rootAgentId && d.name !== agent.definition.name);
  }

  /** Cancels a sub-agent that runs, or one still waiting for a slot (it will then never start). */
  cancel(agent: AgentState): void {
    if (agent.scope) agent.scope.cancel();
    else if (agent.status === "running") this.cancelledWhileQueued.add(agent.id);
  }

  private async delegate(parentId: string, args: DelegateArgs, signal: AbortSignal): Promise<ToolResult> {
    const parent = this.deps.agents.get(parentId);
    if (!parent) return refused(`unknown calling agent ${parentId}`);
    const picked = args.resume ? this.pickResumed(parent, args.resume) : this.addFresh(parent, args);
    if ("refused" in picked) return refused(picked.refused);
    const { agent, fresh } = picked;

    const notStarted: AgentOutcome = { status: "cancelled", result: "cancelled before it started", answer: "", steps: 0, usage: zeroUsage(), filesChanged: [] };
    const work = async (): Promise<AgentOutcome> => {
      // Cancelled while it waited for a free slot: it never starts.
      if (signal.aborted || this.cancelledWhileQueued.delete(agent.id)) {
        agent.status = "cancelled";
        return notStarted;
      }
      return runSubagent(this.deps.hooks, agent, signal, {
        run: (context) => {
          const task = withHookContext(args.task, context);
          if (fresh) return this.deps.startAgent(agent, task, signal);
          return this.deps.continueWith(agent, task, signal);
        },
        continueWith: (message) => this.deps.continueWith(agent, message, signal),
      });
    };
    // No abort signal for the queue itself: p-queue would reject at once even for a running task,
    // and the parent would move on while its sub-agent still runs.
    const conflictsFrom = this.deps.versions.conflictCount(agent.id);
    const outcome = (await this.queue.add(work)) ?? notStarted;
    return { ok: outcome.status === "done", content: this.formatResult(agent, outcome, conflictsFrom), error: outcome.status === "done" ? undefined : `${agent.id} ${outcome.status}` };
  }

  private pickResumed(parent: AgentState, id: string): { agent: AgentState; fresh: false } | { refused: string } {
    const found = this.deps.agents.get(id);
    if (!found || found.id === this.deps.rootAgentId) return { refused: `no sub-agent with id "${id}" to resume` };
    if (found.status === "running") return { refused: `sub-agent ${found.id} is still running` };
    if (!this.delegatesFor(parent).some((d) => d.name === found.definition.name)) {
      return { refused: `agent ${parent.id} may not resume ${found.id} (${found.definition.name})` };
    }
    // Reserved now, not when a slot frees: two resumes of one agent must never run together.
    found.status = "running";
    return { agent: found, fresh: false };
  }

  private addFresh(parent: AgentState, args: DelegateArgs): { agent: AgentState; fresh: true } | { refused: string } {
    const definition = this.deps.definitions.get(args.agent ?? "");
    const allowed = this.delegatesFor(parent);
    if (!definition || !allowed.some((d) => d.name === definition.name)) {
      const names = allowed.map((d) => d.name).join(", ") || "none";
      return { refused: `no agent "${args.agent}" to delegate to; available: ${names}` };
    }
    const agent = this.deps.agents.addSubAgent(definition, parent);
    agent.label = args.label;
    agent.status = "running";
    return { agent, fresh: true };
  }

  private formatResult(agent: AgentState, outcome: AgentOutcome, conflictsFrom: number): string {
    const files = [...agent.filesChanged].map((f) => this.deps.workspace.relative(f));
    let result = outcome.result.trim() || "(no answer)";
    if (result.length > RESULT_LIMIT) result = `${result.slice(0, RESULT_LIMIT)}\n… (${result.length - RESULT_LIMIT} more characters cut)`;
    return [
      `agent: ${agent.id} (${agent.definition.name}${agent.label ? `, "${agent.label}"` : ""})`,
      `status: ${outcome.status}`,
      `steps: ${outcome.steps} · tokens: ${outcome.usage.input} in, ${outcome.usage.output} out`,
      `files changed: ${files.length ? files.join(", ") : "none"}`,
      ...conflictReport(this.deps.versions, agent.id, conflictsFrom),
      outcome.status === "done" ? "" : `(resume it with delegate {"resume": "${agent.id}", "task": "…"})`,
      "--- answer ---",
      result,
    ]
      .filter((line) => line !== "")
      .join("\n");
  }
}

function refused(message: string): ToolResult {
  return { ok: false, error: message, content: `Error: ${message}` };
}
