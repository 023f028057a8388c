import { accountLimits, allowsTool, type AgentDefinition } from "../agent/definition.js";
import type { AgentInbox, AgentOutcome } from "../agent/loop.js";
import type { EmitFn } from "../events/types.js";
import { zeroUsage } from "../events/usage.js";
import type { Hooks } from "../hooks/index.js";
import type { AgentEvidence } from "../review/agent-evidence.js";
import { evidenceText } from "../review/summary-text.js";
import type { AnyTool, ToolResult } from "../tools/tool.js";
import type { FileVersions } from "../tools/versions.js";
import type { Workspace } from "../tools/workspace.js";
import type { AgentRegistry, AgentState } from "./agents.js";
import { ChildResults, type Child, type ChildOutcome } from "./children.js";
import { CONTROL_TOOLS, createControlTools } from "./control-tools.js";
import { createDelegateTool, type DelegateArgs } from "./delegate.js";
import type { Isolation } from "./isolation.js";
import type { ControlResult } from "./types.js";
import { runSubagent, withHookContext } from "./lifecycle.js";
import { mayMessageAnyone, resolveRecipient } from "./agent-messages.js";
import { claimTask, ownerEnded, type TaskClaim, type TaskDelegationDeps } from "./task-delegation.js";
import { createTaskTools, LEAD_TASK_TOOLS, OWNER_TASK_TOOLS } from "./task-tools.js";
import { AgentSlots } from "./slots.js";
import { LoopTurns } from "../util/loop-turns.js";

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
  /** Its verify commands and change set when a sub-agent ends: the evidence its parent reads. */
  evidence?: Pick<AgentEvidence, "agentEnded">;
  /** `isolation: worktree`; null when worktrees are off (the agent then shares the workspace). */
  isolation: Isolation | null;
  /** The task board and agents.on_overlap (issue #31); absent: no board tools. */
  team?: Omit<TaskDelegationDeps, "agents" | "emit">;
}

/** delegate and the tools that come with it; asked for every tool of every agent on every step. */
const COMPANION_TOOLS: ReadonlySet<string> = new Set(["delegate", ...CONTROL_TOOLS, ...LEAD_TASK_TOOLS, ...OWNER_TASK_TOOLS]);

/**
 * The `delegate` tool's work and everything about a sub-agent while it runs: starting or resuming
 * it (at most `max_parallel` at a time, more wait in a queue), in the foreground (the parent's
 * call waits for its result) or in the background (the call returns at once; the result reaches
 * the parent as a message), moving it to the background, steering it, and joining it.
 *
 * `runChild` is the one place where a sub-agent's run starts and ends (lifecycle hooks belong there).
 * A sub-agent's cancel scope hangs below its parent *agent's* scope, not below the delegate call:
 * a background sub-agent outlives the call, and cancelling the parent must still reach it.
 */
export class Delegator {
  private readonly slots: AgentSlots;
  /** Sub-agents cancelled while they waited for a max_parallel slot. */
  private readonly cancelledWhileQueued = new Set<string>();
  readonly children: ChildResults;
  private claiming: Promise<unknown> = Promise.resolve();
  /** Sub-agents start one a loop turn apart (util/loop-turns.ts says why). */
  private readonly starts = new LoopTurns();

  constructor(private readonly deps: DelegatorDeps) {
    this.slots = new AgentSlots(deps.maxParallel);
    this.children = new ChildResults({
      agents: deps.agents,
      workspace: deps.workspace,
      versions: deps.versions,
      isAncestor: (a, b) => this.isAncestor(a, b),
    });
  }

  tools(): AnyTool[] {
    const delegate = createDelegateTool({
      agentNames: () => [...this.deps.definitions.keys()].filter((name) => name !== this.deps.rootAgentId),
      delegate: (parentId, args, signal, callId) => this.delegate(parentId, args, signal, callId),
    });
    const team = this.deps.team;
    return [
      delegate,
      ...(team ? createTaskTools({ board: team.board, isAgent: (id) => Boolean(this.deps.agents.get(id)) }) : []),
      ...createControlTools({
        message: (callerId, id, text) => this.messageFrom(callerId, id, text),
        status: (callerId, id) => this.children.status(callerId, id),
        wait: (callerId, ids, timeoutMs, signal) => this.slots.whileWaiting(callerId, this.children.wait(callerId, ids, timeoutMs, signal), signal),
      }),
    ];
  }

  /** Sub-agents this agent may hand work to, or none when it may not delegate here. */
  delegatesFor(agent: AgentState): AgentDefinition[] {
    if (!allowsTool(agent.definition, "delegate")) return [];
    if (agent.depth + 1 > this.deps.maxDepth) return [];
    return [...this.deps.definitions.values()].filter((d) => d.name !== this.deps.rootAgentId && d.name !== agent.definition.name);
  }

  /** delegate and the tools that come with it: on the whitelist (the others come with delegate) and able to delegate. */
  allowsControlTool(agent: AgentState, toolName: string): boolean {
    if ((OWNER_TASK_TOOLS as readonly string[]).includes(toolName)) {
      return allowsTool(agent.definition, toolName) || Boolean(this.deps.team?.board.ownedBy(agent.id).length);
    }
    const listed = allowsTool(agent.definition, toolName) || allowsTool(agent.definition, "delegate");
    const leads = listed && this.delegatesFor(agent).length > 0;
    // Any agent may message the agents its can_message names (by default its parent and siblings).
    if (toolName === "message_agent") return leads || mayMessageAnyone(agent);
    if ((LEAD_TASK_TOOLS as readonly string[]).includes(toolName)) return leads || allowsTool(agent.definition, toolName);
    return leads;
  }

  static isControlTool(name: string): boolean {
    return COMPANION_TOOLS.has(name);
  }

  /** Cancels a sub-agent that runs, or one still waiting for a slot (it will then never start). */
  cancel(agent: AgentState): void {
    if (agent.scope) agent.scope.cancel();
    else if (agent.status === "running") this.cancelledWhileQueued.add(agent.id);
  }

  /** A user's message for a running agent (the dashboard's input box, addressed to it). */
  message(agentId: string, text: string): ControlResult {
    const agent = this.deps.agents.get(agentId);
    if (!agent) return { ok: false, error: `no agent ${agentId}` };
    if (agent.status !== "running") {
      const hint = agentId === this.deps.rootAgentId ? "" : ` (continue it with delegate {"resume": "${agentId}"})`;
      return { ok: false, error: `${agentId} is not running${hint}` };
    }
    agent.mailbox.post({ text });
    return { ok: true };
  }

  /** Ctrl+B: the sub-agent keeps running; its parent's delegate call returns now. */
  background(agentId: string): ControlResult {
    const child = this.children.running(agentId);
    if (!child) return { ok: false, error: `${agentId} is not a running sub-agent` };
    if (child.background) return { ok: false, error: `${agentId} already runs in the background` };
    child.background = true;
    child.agent.background = true;
    this.deps.emit({ type: "agent_backgrounded", agentId, parentId: child.parent.id, by: "user" });
    child.release?.();
    return { ok: true };
  }

  /** What the loop reads between requests, and where it sleeps while background work is pending. */
  inboxFor(agent: AgentState): AgentInbox {
    return {
      take: () => agent.mailbox.drain().map((letter) => ({ text: letter.text, ...(letter.from ? { from: letter.from } : {}) })),
      idle: async (signal) => {
        for (;;) {
          if (agent.mailbox.size) return true;
          const pending = this.children.pendingOf(agent);
          if (!pending.length || signal.aborted) return false;
          agent.waiting = true;
          this.deps.emit({ type: "agent_waiting", agentId: agent.id, parentId: agent.parentId, waitingFor: pending.map((c) => c.agent.id) });
          try {
            await this.slots.whileWaiting(agent.id, agent.mailbox.next(signal), signal);
          } finally {
            agent.waiting = false;
          }
        }
      },
    };
  }

  /**
   * When an agent's loop has ended: any sub-agent of it still running (it was cancelled, failed or
   * ran out of steps while background work went on) is cancelled and awaited, so no run leaves
   * one behind. Their results wait in its mailbox for when it runs again.
   */
  async settleChildrenOf(agent: AgentState): Promise<void> {
    const mine = this.children.runningOf(agent);
    for (const child of mine) this.cancel(child.agent);
    await Promise.all(mine.map((child) => child.done));
  }

  /** message_agent: to an agent of this session that the sender's can_message permits, said under the sender's id. */
  private messageFrom(callerId: string, target: string, text: string): ToolResult {
    const caller = this.deps.agents.get(callerId);
    if (!caller) return refused(`unknown calling agent ${callerId}`);
    const found = resolveRecipient(caller, target, this.deps.agents);
    if ("error" in found) return refused(found.error);
    const to = found.agent;
    if (to.status !== "running") {
      const hint = this.isAncestor(callerId, to) ? ` (continue it with delegate {"resume": "${to.id}"})` : "";
      return refused(`${to.id} has ended (${to.status}) and reads no more messages; nothing was sent${hint}`);
    }
    this.deps.emit({ type: "agent_message", agentId: callerId, parentId: caller.parentId, to: to.id, text });
    to.mailbox.post({ text: `[message from ${callerId}]\n${text}`, from: callerId });
    return { ok: true, content: `queued for ${to.id}: it reads it before its next model request` };
  }

  private isAncestor(ancestorId: string, agent: AgentState): boolean {
    for (let at = agent.parentId; at; at = this.deps.agents.get(at)?.parentId) if (at === ancestorId) return true;
    return false;
  }

  private async delegate(parentId: string, args: DelegateArgs, signal: AbortSignal, callId: string): Promise<ToolResult> {
    const parent = this.deps.agents.get(parentId);
    if (!parent) return refused(`unknown calling agent ${parentId}`);
    // One delegation at a time picks its agent and claims its task: a second call of the same turn
    // then sees the first's task running (its scope overlap, its owner).
    const claiming = this.claiming.then(async () => {
      const claim = await this.claim(parent, args, callId, signal);
      if (claim && "refused" in claim) return claim;
      const picked = args.resume ? this.pickResumed(parent, args.resume) : this.addFresh(parent, args);
      if (!("refused" in picked)) claim?.bind(picked.agent);
      return { ...picked, claim };
    });
    this.claiming = claiming.catch(() => undefined);
    const started = await claiming;
    if ("refused" in started) return refused(started.refused);
    const { agent, fresh, claim } = started;
    const noted = (result: ToolResult): ToolResult => (claim?.note ? { ...result, content: `${claim.note}\n\n${result.content}` } : result);
    return noted(await this.run(parent, agent, fresh, claim ? { ...args, task: claim.taskText } : args, signal));
  }

  private async claim(parent: AgentState, args: DelegateArgs, callId: string, signal: AbortSignal): Promise<TaskClaim | null> {
    if (args.task_id === undefined) return null;
    if (!this.deps.team) return { refused: "there is no task board in this session" };
    return claimTask({ ...this.deps.team, agents: this.deps.agents, emit: this.deps.emit }, parent, args, callId, signal);
  }

  private async run(parent: AgentState, agent: AgentState, fresh: boolean, args: DelegateArgs, signal: AbortSignal): Promise<ToolResult> {
    const parentId = parent.id;
    agent.budget = args.budget ? accountLimits(args.budget) : undefined;
    const background = Boolean(args.background);
    const parentSignal = parent.scope?.signal ?? signal;
    const child = this.children.launch(agent, parent, background, this.slotted(agent, () => this.runChild(agent, fresh, args.task, parentSignal), parentSignal));
    if (background) agent.background = true;
    if (background) {
      // Its agent_backgrounded event follows its agent_started (see Session.startAgent and runChild).
      return {
        ok: true,
        content:
          `${describe(agent)} started in the background. Its result reaches you as a message when it ends; meanwhile go on. ` +
          `agent_status {"id": "${agent.id}"} shows its progress, wait_agents {"ids": ["${agent.id}"]} waits for it, message_agent steers it.`,
      };
    }
    const moved = new Promise<null>((resolve) => (child.release = () => resolve(null)));
    const outcome = await this.slots.whileWaiting(parentId, Promise.race([child.done, moved]), parentSignal);
    if (outcome === null) {
      return {
        ok: true,
        content: `${describe(agent)} was moved to the background by the user and keeps running. Its result reaches you as a message when it ends (wait_agents {"ids": ["${agent.id}"]} to wait for it now).`,
      };
    }
    return this.resultOf(child, outcome);
  }

  /** What a foreground delegate call returns when its sub-agent has ended. */
  private resultOf(child: Child, outcome: ChildOutcome): ToolResult {
    const ok = outcome.status === "done" && !outcome.conflict;
    // The parent reads how its sub-agent ended from the status, never from the wording of its result.
    const status = ok ? "ok" : outcome.status === "cancelled" && !outcome.conflict ? "cancelled" : "error";
    return { ok, status, content: this.children.format(child, outcome), error: ok ? undefined : `${child.agent.id} ${outcome.conflict ? "merge conflict" : outcome.status}` };
  }

  /**
   * A sub-agent a resumed session continues (team-resume.ts), launched as delegate launches one but
   * running `run` (its own history, no new task). Returns what its parent's held delegate call
   * answers once it has ended; a background one's result goes to its parent's mailbox instead.
   */
  continueSubagent(agent: AgentState, parent: AgentState, background: boolean, run: (signal: AbortSignal) => Promise<AgentOutcome>, signal: AbortSignal): () => Promise<ToolResult> {
    agent.status = "running";
    agent.background = background;
    const parentSignal = parent.scope?.signal ?? signal;
    const child = this.children.launch(agent, parent, background, this.slotted(agent, () => this.runChild(agent, false, "", parentSignal, run), parentSignal));
    return async () => this.resultOf(child, await this.slots.whileWaiting(parent.id, child.done, parentSignal));
  }

  /** wait_agents' answer, for a held wait_agents call of a resumed session. */
  waitFor(callerId: string, ids: string[], timeoutMs: number, signal: AbortSignal): Promise<ToolResult> {
    return this.slots.whileWaiting(callerId, this.children.wait(callerId, ids, timeoutMs, signal), signal);
  }

  /** Runs `run` in a max_parallel slot of `agent`'s, given back when it ends (see AgentSlots). */
  private async slotted(agent: AgentState, run: () => Promise<ChildOutcome>, signal: AbortSignal): Promise<ChildOutcome> {
    if (!(await this.slots.acquire(agent.id, signal))) {
      this.cancelledWhileQueued.delete(agent.id);
      agent.status = "cancelled";
      return notStarted();
    }
    try {
      return await run();
    } finally {
      this.slots.release(agent.id);
    }
  }

  /** The one place a sub-agent's run starts and ends: its worktree, its hooks, its loop, its merge. */
  private async runChild(agent: AgentState, fresh: boolean, task: string, signal: AbortSignal, continued?: (signal: AbortSignal) => Promise<AgentOutcome>): Promise<ChildOutcome> {
    await this.starts.next();
    // Cancelled while it waited for a free slot or its turn: it never starts.
    if (signal.aborted || this.cancelledWhileQueued.delete(agent.id)) {
      agent.status = "cancelled";
      return notStarted();
    }
    const cannot = await this.deps.isolation?.enter(agent, signal);
    if (cannot) {
      agent.status = signal.aborted ? "cancelled" : "failed";
      return { ...notStarted(), status: agent.status, result: cannot };
    }
    const outcome = await runSubagent(this.deps.hooks, agent, signal, {
      run: (context) => {
        if (continued) return continued(signal);
        const text = withHookContext(task, context);
        if (fresh) return this.deps.startAgent(agent, text, signal);
        if (agent.background) this.deps.emit({ type: "agent_backgrounded", agentId: agent.id, parentId: agent.parentId, by: "delegate" });
        return this.deps.continueWith(agent, text, signal);
      },
      continueWith: (message) => this.deps.continueWith(agent, message, signal),
    });
    if (this.deps.team) ownerEnded(this.deps.team.board, agent, outcome.status);
    // Verified in its own workspace, before a worktree's merge-back.
    const report = await this.deps.evidence?.agentEnded(agent, outcome.status, signal);
    const merged = (await this.deps.isolation?.leave(agent, outcome.status, signal)) ?? { note: "", conflict: false };
    return { ...outcome, worktreeNote: merged.note, conflict: merged.conflict, ...(report ? { evidence: evidenceText(report) } : {}) };
  }

  private pickResumed(parent: AgentState, id: string): { agent: AgentState; fresh: false } | { refused: string } {
    const found = this.deps.agents.get(id);
    if (!found || found.id === this.deps.rootAgentId) return { refused: `no sub-agent with id "${id}" to resume` };
    if (found.status === "running") return { refused: `sub-agent ${found.id} is still running (message_agent steers a running one)` };
    if (!this.delegatesFor(parent).some((d) => d.name === found.definition.name)) {
      return { refused: `agent ${parent.id} may not resume ${found.id} (${found.definition.name})` };
    }
    // Reserved now, not when a slot frees: two resumes of one agent must never run together.
    found.status = "running";
    found.background = false;
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
}

function notStarted(): ChildOutcome {
  return { status: "cancelled", result: "cancelled before it started", answer: "", steps: 0, usage: zeroUsage(), filesChanged: [] };
}

export function describe(agent: AgentState): string {
  return `${agent.id} (${agent.definition.name}${agent.label ? `, "${agent.label}"` : ""})`;
}

export function refused(message: string): ToolResult {
  return { ok: false, error: message, content: `Error: ${message}` };
}

export type { Child };
