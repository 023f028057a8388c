import type { AgentStatus, OrcaEvent, ToolCall } from "../events/types.js";
import { stoppedRun, type StoppedRun } from "./stopped-run.js";

/**
 * Which agents a resumed session continues, read from its log: the run that stopped (a crash, or
 * a cancel) with sub-agents at work goes on as a team. An agent is continued when it was cut off:
 * the coordinator, when its last run never ended or ended cancelled; a sub-agent, when its parent
 * is continued and it never ended, or ended cancelled without its parent having made a request
 * since (so no model saw how it ended). Each continues from its own history; nothing is re-run.
 *
 * A parent's last round of calls, if no request followed it, may hold calls that wait on those
 * sub-agents (a foreground `delegate`, `wait_agents`): they are *held*. The continued sub-agents'
 * results answer them, as they would have, instead of "interrupted" or "cancelled" — answers no
 * model had read yet, so replacing them changes nothing a model saw.
 */

export interface HeldCall {
  callId: string;
  tool: "delegate" | "wait_agents";
  /** The continued sub-agents it waits on: one for delegate, the ids named (or all background ones) for wait_agents. */
  children: string[];
  /** A `delegate {background: true}`: answered at once, its sub-agent's result comes as a message. */
  background: boolean;
  /** wait_agents' ids as the model gave them (none: every background sub-agent of the caller). */
  ids?: string[];
  timeoutS?: number;
}

export interface ContinuedAgent {
  id: string;
  parentId?: string;
  /** Its result reaches its parent as a message (no held delegate call waits on it). */
  background: boolean;
  held: HeldCall[];
}

export interface TeamPlan {
  /** Tree order: the coordinator first, every agent after its parent. */
  agents: ContinuedAgent[];
  /** What the run spent before it stopped: its budgets go on from there. */
  stopped: StoppedRun;
}

interface Track {
  id: string;
  parentId?: string;
  name: string;
  label?: string;
  task: string;
  /** Index (in the log) of its last agent_started. */
  startedAt: number;
  running: boolean;
  lastStatus?: AgentStatus;
  finishedAt: number;
  lastRequestAt: number;
  lastRound?: { at: number; calls: ToolCall[] };
  backgrounded: boolean;
}

/** The team to continue, or null when no sub-agent was cut off (a resume then only reopens the session). */
export function planTeam(events: readonly OrcaEvent[], rootAgentId: string): TeamPlan | null {
  const tracks = new Map<string, Track>();
  const answered = new Set<string>();
  events.forEach((event, at) => {
    const t = tracks.get(event.agentId);
    switch (event.type) {
      case "agent_started":
        tracks.set(event.agentId, {
          id: event.agentId,
          parentId: event.parentId,
          name: event.name,
          label: event.label,
          task: event.task,
          startedAt: at,
          running: true,
          finishedAt: -1,
          lastRequestAt: t?.lastRequestAt ?? -1,
          backgrounded: false,
        });
        break;
      case "user_message":
        // A sub-agent resumed by delegate {resume} (its new task), or the coordinator's next turn.
        if (t && !t.running) Object.assign(t, { running: true, backgrounded: false });
        break;
      case "agent_backgrounded":
        if (t) t.backgrounded = true;
        break;
      case "model_request":
        if (t) t.lastRequestAt = at;
        break;
      case "assistant_message":
        if (t && event.toolCalls.length) t.lastRound = { at, calls: event.toolCalls };
        break;
      case "tool_finished":
        answered.add(event.callId);
        break;
      case "agent_finished":
        if (t) Object.assign(t, { running: false, lastStatus: event.status, finishedAt: at });
        break;
      default:
        break;
    }
  });

  const root = tracks.get(rootAgentId);
  if (!root || !(root.running || root.lastStatus === "cancelled")) return null;
  const childrenOf = (parent: Track): Track[] => [...tracks.values()].filter((t) => t.parentId === parent.id);
  const cutOff = (child: Track, parent: Track): boolean => child.running || (child.lastStatus === "cancelled" && parent.lastRequestAt < child.finishedAt);

  const agents: ContinuedAgent[] = [];
  const visit = (track: Track, background: boolean): void => {
    const kids = childrenOf(track).filter((kid) => cutOff(kid, track));
    const held = heldCalls(track, kids, answered);
    agents.push({ id: track.id, parentId: track.parentId, background, held });
    const waitedOn = new Set(held.filter((h) => h.tool === "delegate" && !h.background).flatMap((h) => h.children));
    for (const kid of kids) visit(kid, !waitedOn.has(kid.id));
  };
  visit(root, false);
  return agents.length > 1 ? { agents, stopped: stoppedRun(events, rootAgentId) } : null;
}

/** The calls of `parent`'s last round, when no request followed it, that wait on its continued sub-agents. */
function heldCalls(parent: Track, kids: Track[], answered: ReadonlySet<string>): HeldCall[] {
  const round = parent.lastRound;
  if (!round || parent.lastRequestAt > round.at || !kids.length) return [];
  const unmatched = kids.filter((k) => k.startedAt > round.at);
  const held: HeldCall[] = [];
  for (const call of round.calls) {
    const args = (call.args ?? {}) as Record<string, unknown>;
    if (call.name === "delegate") {
      const background = args.background === true;
      // A background call that was answered ("started in the background") has done its part.
      if (background && answered.has(call.id)) continue;
      const child = typeof args.resume === "string" ? kids.find((k) => k.id === args.resume) : takeStarted(unmatched, args);
      if (child) held.push({ callId: call.id, tool: "delegate", children: [child.id], background });
    } else if (call.name === "wait_agents") {
      const ids = Array.isArray(args.ids) ? args.ids.filter((id): id is string => typeof id === "string") : undefined;
      const children = kids.filter((k) => (ids ? ids.includes(k.id) : k.backgrounded)).map((k) => k.id);
      const timeoutS = typeof args.timeout_s === "number" ? args.timeout_s : undefined;
      if (children.length) held.push({ callId: call.id, tool: "wait_agents", children, background: false, ...(ids ? { ids } : {}), ...(timeoutS ? { timeoutS } : {}) });
    }
  }
  return held;
}

/**
 * The sub-agent a fresh delegate call started: the log does not link them, so it is the first
 * one started after the round with the call's definition, label and task (the task may carry a
 * hook's added context after it). Two identical calls get their sub-agents in start order.
 */
function takeStarted(unmatched: Track[], args: Record<string, unknown>): Track | undefined {
  const at = unmatched.findIndex((k) => k.name === args.agent && k.label === args.label && typeof args.task === "string" && k.task.startsWith(args.task));
  return at < 0 ? undefined : unmatched.splice(at, 1)[0];
}
