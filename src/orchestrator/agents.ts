import path from "node:path";
import type { AgentDefinition } from "../agent/definition.js";
import type { AccountLimits } from "../agent/budget-tree.js";
import type { FileTouch, Usage } from "../events/types.js";
import { addUsage, zeroUsage } from "../events/usage.js";
import type { ChatMessage, Model } from "../model/model.js";
import type { RebuiltSession } from "../sessions/rebuild.js";
import type { Workspace } from "../tools/workspace.js";
import type { CancelScope } from "../util/cancel-scope.js";
import type { Worktree } from "../worktrees/worktree.js";
import { Mailbox } from "./mailbox.js";
import type { AgentSummary } from "./types.js";

/** One agent of the session, coordinator or sub-agent, with its own history. */
export interface AgentState {
  id: string;
  definition: AgentDefinition;
  label?: string;
  parentId?: string;
  depth: number;
  model: Model;
  history: ChatMessage[];
  status: AgentSummary["status"];
  steps: number;
  usage: Usage;
  filesChanged: Set<string>;
  /** Present while the agent runs. */
  scope?: CancelScope;
  /** Messages for it, read before its next model request. */
  mailbox: Mailbox;
  /** Its own workspace (inside its git worktree) when it is isolated; else the session's. */
  workspace?: Workspace;
  /** Its git worktree, while it has one (removed after a clean merge). */
  worktree?: Worktree;
  /** Its delegate call returned at once (background: true, or moved there with Ctrl+B). */
  background?: boolean;
  /** It ended its turn and waits for background sub-agents' results. */
  waiting?: boolean;
  /** The budget its delegate call gave it (delegate {budget}), for its next run. */
  budget?: AccountLimits;
}

/**
 * The agents of one session by id, the counters that name new sub-agents (`explorer-1`,
 * `explorer-2`…), and every tool-call id seen, so a reused id can be renamed before it is recorded.
 */
export class AgentRegistry {
  private readonly states = new Map<string, AgentState>();
  private readonly nameCounters = new Map<string, number>();
  private readonly callIds = new Set<string>();

  /** `modelFor` gets the definition's model name ("inherit" already resolved by the caller's config). */
  constructor(private readonly modelFor: (definition: AgentDefinition) => Model) {}

  get(id: string): AgentState | undefined {
    return this.states.get(id);
  }

  all(): AgentState[] {
    return [...this.states.values()];
  }

  /** Registers a new agent, idle and with an empty history. */
  add(id: string, definition: AgentDefinition, parentId: string | undefined, depth: number): AgentState {
    const state: AgentState = {
      id,
      definition,
      parentId,
      depth,
      model: this.modelFor(definition),
      history: [],
      status: "done",
      steps: 0,
      usage: zeroUsage(),
      filesChanged: new Set(),
      mailbox: new Mailbox(),
    };
    this.states.set(id, state);
    return state;
  }

  /** A new sub-agent of `definition`, named by the next free number of that definition. */
  addSubAgent(definition: AgentDefinition, parent: AgentState): AgentState {
    let n = (this.nameCounters.get(definition.name) ?? 0) + 1;
    // Never an id in use: the coordinator's is its definition's name, which may read `explorer-1`.
    while (this.states.has(`${definition.name}-${n}`)) n++;
    this.nameCounters.set(definition.name, n);
    return this.add(`${definition.name}-${n}`, definition, parent.id, parent.depth + 1);
  }

  /** Registers an agent rebuilt from a log (resume), so new ids and call ids do not collide with it. */
  restore(state: AgentState): void {
    this.states.set(state.id, state);
    for (const message of state.history) if (message.role === "assistant") for (const call of message.toolCalls) this.callIds.add(call.id);
    const match = /^(.*)-(\d+)$/.exec(state.id);
    if (match) this.nameCounters.set(match[1]!, Math.max(this.nameCounters.get(match[1]!) ?? 0, Number(match[2])));
  }

  /** `id`, or `id_2`, `id_3`… when a model reuses an id the session has already seen. */
  claimCallId(id: string): string {
    let unique = id;
    for (let n = 2; this.callIds.has(unique); n++) unique = `${id}_${n}`;
    this.callIds.add(unique);
    return unique;
  }

  summaries(): AgentSummary[] {
    return this.all().map((a) => ({
      id: a.id,
      name: a.definition.name,
      label: a.label,
      parentId: a.parentId,
      status: a.status,
      steps: a.steps,
      usage: { ...a.usage },
      ...(a.background ? { background: true } : {}),
      ...(a.waiting ? { waiting: true } : {}),
      ...(a.worktree ? { worktree: a.worktree.path } : {}),
    }));
  }

  totalUsage(): Usage {
    const total = zeroUsage();
    for (const a of this.states.values()) addUsage(total, a.usage);
    return total;
  }
}

export interface RestoreDeps {
  definitions: Map<string, AgentDefinition>;
  /** The model for an agent definition under the current config ("inherit" resolved). */
  modelFor(definition: AgentDefinition): Model;
  workspaceRoot: string;
  restoreAgent(state: AgentState): void;
  /** Replays one logged call's file versions into the session's (a resumed agent keeps its map). */
  restoreVersions(agentId: string, touches: FileTouch[], ts: number): void;
}

/**
 * Registers rebuilt agents with a session, keeping their ids. Returns one line per agent that
 * could not be restored (its definition is gone).
 */
export function restoreAgents(rebuilt: RebuiltSession, deps: RestoreDeps): string[] {
  const warnings: string[] = [];
  for (const { agentId, touches, ts } of rebuilt.fileTouches) deps.restoreVersions(agentId, touches, ts);
  for (const agent of rebuilt.agents) {
    const definition = deps.definitions.get(agent.name);
    if (!definition) {
      warnings.push(`agent ${agent.id} was not restored: no agent definition named "${agent.name}" is loaded`);
      continue;
    }
    deps.restoreAgent({
      id: agent.id,
      definition,
      label: agent.label,
      parentId: agent.parentId,
      depth: agent.depth,
      model: deps.modelFor(definition),
      history: agent.history,
      status: agent.status,
      steps: agent.steps,
      usage: { ...agent.usage },
      filesChanged: new Set(agent.filesChanged.map((f) => path.resolve(deps.workspaceRoot, f))),
      mailbox: new Mailbox(),
    });
  }
  return warnings;
}
