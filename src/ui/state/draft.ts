import { terminalSafe } from "../../util/terminal-text.js";
import type { ActiveCall, AgentView, DashboardState, Entry, TextKind, ToolEntry } from "./types.js";

/*
 * The reducer's working parts: a copy-on-write draft of the state for one event, and the small
 * edits it makes to an agent's ring of entries.
 */

export function activeKey(agentId: string, callId: string): string {
  return `${agentId}\u0000${callId}`;
}

/** An agent the dashboard has heard of before its agent_started event (or never will: the root). */
export function placeholder(state: DashboardState, id: string, ts: number, parentId?: string): AgentView {
  return {
    id,
    name: id === state.rootAgentId ? "coordinator" : id,
    task: "",
    parentId,
    depth: id === state.rootAgentId ? 0 : 1,
    status: id === state.rootAgentId ? "idle" : "running",
    entries: [],
    dropped: 0,
    open: null,
    streamed: false,
    steps: 0,
    tokens: { input: 0, output: 0 },
    startedAt: ts,
  };
}

/** Builds new states through a little mutable draft so one event copies each touched object once. */
export class Draft {
  agents: Record<string, AgentView>;
  order: string[];
  active: Record<string, ActiveCall>;
  seq: number;
  private copiedAgents = false;
  private copiedActive = false;
  private copiedOrder = false;

  constructor(readonly base: DashboardState) {
    this.agents = base.agents as Record<string, AgentView>;
    this.order = base.order as string[];
    this.active = base.active as Record<string, ActiveCall>;
    this.seq = base.seq;
  }

  agent(id: string, ts: number, parentId?: string): AgentView {
    return this.agents[id] ?? placeholder(this.base, id, ts, parentId);
  }

  setAgent(agent: AgentView): void {
    if (!this.copiedAgents) {
      this.agents = { ...this.agents };
      this.copiedAgents = true;
    }
    if (!this.agents[agent.id] && agent.id !== this.base.rootAgentId) {
      if (!this.copiedOrder) {
        this.order = [...this.order];
        this.copiedOrder = true;
      }
      this.order.push(agent.id);
    }
    this.agents[agent.id] = agent;
  }

  setActive(key: string, call: ActiveCall | undefined): void {
    if (!this.copiedActive) {
      this.active = { ...this.active };
      this.copiedActive = true;
    }
    if (call) this.active[key] = call;
    else delete this.active[key];
  }

  finish(patch: Partial<DashboardState> = {}): DashboardState {
    return { ...this.base, agents: this.agents, order: this.order, active: this.active, seq: this.seq, ...patch };
  }
}

/**
 * Appends entries to the ring, dropping the oldest beyond `max`. `keep`: how many of the agent's
 * entries stay before them (fewer when the last is replaced, as a streamed line that grows).
 */
export function pushEntries(agent: AgentView, add: Entry[], max: number, open: AgentView["open"], keep = agent.entries.length, streamed = agent.streamed): AgentView {
  const all = agent.entries.slice(0, keep);
  for (const entry of add) all.push(entry);
  const cut = Math.max(0, all.length - max);
  return { ...agent, entries: cut ? all.slice(cut) : all, dropped: agent.dropped + cut, open, streamed };
}

export function textEntries(draft: Draft, kind: TextKind, text: string): Entry[] {
  return terminalSafe(text)
    .split("\n")
    .map((line) => ({ seq: ++draft.seq, kind, text: line }));
}

export function findTool(agent: AgentView, callId: string): number {
  for (let i = agent.entries.length - 1; i >= 0; i--) {
    const e = agent.entries[i];
    if (e.kind === "tool" && e.callId === callId) return i;
  }
  return -1;
}

export function updateTool(agent: AgentView, index: number, patch: Partial<ToolEntry>): AgentView {
  const entries = agent.entries.slice();
  entries[index] = { ...(entries[index] as ToolEntry), ...patch };
  return { ...agent, entries };
}
