import type { AgentOutcome } from "../agent/loop.js";
import { toolFinished } from "../events/constructors.js";
import type { EmitFn } from "../events/types.js";
import type { ContinuedAgent, HeldCall, TeamPlan } from "../sessions/team-plan.js";
import type { StoppedRun } from "../sessions/stopped-run.js";
import type { ToolResult } from "../tools/tool.js";
import { CancelScope } from "../util/cancel-scope.js";
import type { AgentRegistry, AgentState } from "./agents.js";
import { DEFAULT_WAIT_S } from "./control-tools.js";
import type { Delegator } from "./delegation.js";
import { describe } from "./delegation.js";

/** What an agent continued with nothing left to wait for is told: it had ended its turn when the run stopped. */
export const RESUMED_IDLE = "[orca: the session was resumed after it stopped; your sub-agents have ended. Finish your task.]";

export interface TeamResumeDeps {
  plan: TeamPlan;
  agents: AgentRegistry;
  delegator: Delegator;
  emit: EmitFn;
  /** Runs an agent's loop on the history it has (AgentRunner.continue). */
  continueAgent(agent: AgentState, signal: AbortSignal): Promise<AgentOutcome>;
  /** One more user message, then its loop (AgentRunner.continueWith). */
  continueWith(agent: AgentState, message: string, signal: AbortSignal): Promise<AgentOutcome>;
}

/**
 * Continues the run a resumed session found stopped with sub-agents at work (sessions/team-plan.ts),
 * as a team: every agent cut off goes on from its own history, in its place in the tree (same id,
 * label and parent), so panes, message_agent and waits work as before. A parent's held calls
 * (a foreground delegate, wait_agents) are answered by its continued sub-agents' results, as they
 * would have been; a background one's result reaches its parent as a message. No tool call is
 * re-run: a call in flight at the crash stays "interrupted" in its agent's history.
 */
export class TeamResume {
  private readonly byId: Map<string, ContinuedAgent>;

  constructor(private readonly deps: TeamResumeDeps) {
    this.byId = new Map(deps.plan.agents.map((a) => [a.id, a]));
  }

  /** What the stopped run had spent: the continuing run's budget starts from it (run-budget.ts). */
  get stopped(): StoppedRun {
    return this.deps.plan.stopped;
  }

  /** The agents it continues that the session has (a definition gone leaves one out), coordinator first. */
  team(): string[] {
    return this.deps.plan.agents.filter((a) => this.deps.agents.get(a.id)).map((a) => a.id);
  }

  /**
   * Before `agent` goes on: its continued sub-agents start again (each doing the same below it),
   * and its held calls are answered with their results — in the history, where the interrupted
   * answer stood, and in the log. Resolves when every held call has its answer.
   */
  async prepare(agent: AgentState, signal: AbortSignal): Promise<void> {
    const entry = this.byId.get(agent.id);
    if (!entry) return;
    this.deps.emit({
      type: "agent_continued",
      agentId: agent.id,
      parentId: agent.parentId,
      held: entry.held.map((h) => h.callId),
      ...(entry.background ? { background: true } : {}),
      ...(agent.parentId ? {} : { team: this.team() }),
    });
    const answers = new Map<string, () => Promise<ToolResult>>();
    for (const kid of this.deps.plan.agents.filter((a) => a.parentId === agent.id)) {
      const state = this.deps.agents.get(kid.id);
      if (!state) continue;
      answers.set(kid.id, this.deps.delegator.continueSubagent(state, agent, kid.background, (s) => this.run(state, s), signal));
    }
    const since = Date.now();
    await Promise.all(entry.held.map(async (call) => this.answer(agent, call, await this.result(agent, call, answers, signal), Date.now() - since)));
  }

  /** A continued sub-agent's run: its own sub-agents and held calls first, then its loop. */
  private async run(agent: AgentState, signal: AbortSignal): Promise<AgentOutcome> {
    // Its scope while it waits on its sub-agents (a cancel of it, Esc on its pane, reaches them),
    // and above its loop's: its background ones it continued hang below it until that loop ends.
    const scope = new CancelScope(signal);
    agent.scope = scope;
    try {
      await this.prepare(agent, scope.signal);
      agent.scope = undefined;
      return await this.goOn(agent, scope.signal);
    } finally {
      scope.dispose();
      if (agent.scope === scope) agent.scope = undefined;
    }
  }

  /**
   * The agent's loop from where its history stands. One that had ended its turn (its last message
   * is its answer) and waited for background sub-agents waits for their results first; with
   * nothing left to wait for it is told so, as a request cannot end on its own answer.
   */
  async goOn(agent: AgentState, signal: AbortSignal): Promise<AgentOutcome> {
    const last = agent.history.at(-1);
    if (last?.role !== "assistant" || last.toolCalls.length) return this.deps.continueAgent(agent, signal);
    agent.status = "running";
    const woke = await this.deps.delegator.inboxFor(agent).idle(signal);
    return woke ? this.deps.continueAgent(agent, signal) : this.deps.continueWith(agent, RESUMED_IDLE, signal);
  }

  private async result(agent: AgentState, call: HeldCall, answers: Map<string, () => Promise<ToolResult>>, signal: AbortSignal): Promise<ToolResult> {
    if (call.tool === "wait_agents") {
      const timeoutMs = Math.round((call.timeoutS ?? DEFAULT_WAIT_S) * 1000);
      return this.deps.delegator.waitFor(agent.id, call.ids ?? call.children, timeoutMs, signal);
    }
    const id = call.children[0]!;
    const child = this.deps.agents.get(id);
    const answer = answers.get(id);
    if (!child || !answer) return { ok: false, status: "error", error: `${id} could not be continued`, content: `Error: ${id} could not be continued after the resume` };
    if (!call.background) return answer();
    return {
      ok: true,
      content: `${describe(child)} was continued after the session resumed and runs in the background. Its result reaches you as a message when it ends.`,
    };
  }

  /** The held call's answer replaces the interrupted one in the history, and is logged as the call's result. */
  private answer(agent: AgentState, call: HeldCall, result: ToolResult, durationMs: number): void {
    const message = agent.history.find((m) => m.role === "tool" && m.toolCallId === call.callId);
    if (message?.role === "tool") message.content = result.content;
    const status = result.status ?? (result.ok ? "ok" : "error");
    this.deps.emit(toolFinished({ agentId: agent.id, parentId: agent.parentId }, { callId: call.callId, name: call.tool }, { status, content: result.content, error: result.error, durationMs }));
  }
}
