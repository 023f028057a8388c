import type { OrcaEvent } from "../events/types.js";

/**
 * What the run a resume continues had spent before it stopped, read from its log, so its limits
 * hold across the crash: the resumed run is the same run, not a new one with a fresh allowance.
 * The run began at the coordinator's last turn (its `turn` checkpoint); a resume that continued it
 * again (agent_continued of the coordinator) belongs to it, so a run that crashed twice counts both.
 */

export interface CarriedLimits {
  maxCostUsd?: number;
  maxTokens?: number;
  maxSteps?: number;
}

/** One agent's account in the stopped run: its limits as they applied (its last budget_set), what it spent. */
export interface CarriedAccount {
  id: string;
  parentId?: string;
  limits: CarriedLimits;
  /** Model requests it made (its steps). */
  steps: number;
}

export interface CarriedUsage {
  agentId: string;
  input: number;
  output: number;
  /** Unset: the request had no price (the cost is unknown, never $0). */
  cost?: number;
}

export interface StoppedRun {
  /** Every agent that ran in it, each after its parent. */
  accounts: CarriedAccount[];
  usage: CarriedUsage[];
  /** Tool calls it started. */
  toolCalls: number;
  /** The time it ran, without the time between a crash and its resume. */
  elapsedMs: number;
  /**
   * The delegate calls the fan-out guard counts on (orchestrator/fanout.ts): those since the person
   * last approved a fan-out, less those it refused.
   */
  delegations: CarriedDelegation[];
}

export interface CarriedDelegation {
  callId: string;
  callerId: string;
  args: unknown;
}

/** The stopped run's spend (the last run of `events`). */
export function stoppedRun(events: readonly OrcaEvent[], rootAgentId: string): StoppedRun {
  const from = runStart(events, rootAgentId);
  const accounts = new Map<string, CarriedAccount>();
  const usage: CarriedUsage[] = [];
  const calls = new Set<string>();
  let delegations: CarriedDelegation[] = [];
  const account = (id: string, parentId?: string): CarriedAccount => {
    let found = accounts.get(id);
    if (!found) accounts.set(id, (found = { id, limits: {}, steps: 0 }));
    if (!found.parentId && parentId && id !== rootAgentId) found.parentId = parentId;
    return found;
  };
  let elapsedMs = 0;
  let sessionFrom: number | undefined;
  let lastTs: number | undefined;
  for (const event of events.slice(from)) {
    if (event.type === "session_started") {
      if (sessionFrom !== undefined && lastTs !== undefined) elapsedMs += lastTs - sessionFrom;
      sessionFrom = event.ts;
    }
    sessionFrom ??= event.ts;
    lastTs = event.ts;
    if (event.type === "session_started" || event.type === "session_finished") continue;
    const mine = account(event.agentId, event.parentId);
    if (event.type === "model_request") mine.steps++;
    else if (event.type === "usage") usage.push({ agentId: event.agentId, input: event.input, output: event.output, ...(event.cost === undefined ? {} : { cost: event.cost }) });
    else if (event.type === "tool_started") calls.add(event.callId);
    else if (event.type === "budget_set" && event.scope === "agent") mine.limits = limitsOf(event);
    else if (event.type === "assistant_message") {
      for (const call of event.toolCalls) if (call.name === "delegate") delegations.push({ callId: call.id, callerId: event.agentId, args: call.args });
    } else if (event.type === "fanout_checked") {
      // An approval starts the count again after the calls it approved.
      if (event.decision === "approved") delegations = [];
      else delegations = delegations.filter((d) => !event.refused.includes(d.callId));
    }
  }
  if (sessionFrom !== undefined && lastTs !== undefined) elapsedMs += lastTs - sessionFrom;
  return { accounts: parentsFirst([...accounts.values()]), usage, toolCalls: calls.size, elapsedMs, delegations };
}

/** Index of the stopped run's first event. */
function runStart(events: readonly OrcaEvent[], rootAgentId: string): number {
  let start = 0;
  let before = 0;
  let turnThisSession = false;
  events.forEach((event, at) => {
    if (event.type === "session_started") turnThisSession = false;
    if (event.agentId !== rootAgentId) return;
    if (event.type === "checkpoint" && event.reason === "turn") {
      [before, start, turnThisSession] = [start, at, true];
    } else if (event.type === "agent_continued" && turnThisSession) {
      // `--resume ID -p "…"` took a turn to go on with the stopped run: that run is still the one.
      [start, turnThisSession] = [before, false];
    }
  });
  return start;
}

function limitsOf(event: CarriedLimits): CarriedLimits {
  const out: CarriedLimits = {};
  for (const key of ["maxCostUsd", "maxTokens", "maxSteps"] as const) if (event[key] !== undefined) out[key] = event[key];
  return out;
}

function parentsFirst(accounts: CarriedAccount[]): CarriedAccount[] {
  const byId = new Map(accounts.map((a) => [a.id, a]));
  const out: CarriedAccount[] = [];
  const placed = new Set<string>();
  const place = (a: CarriedAccount): void => {
    if (placed.has(a.id)) return;
    placed.add(a.id);
    const parent = a.parentId ? byId.get(a.parentId) : undefined;
    if (parent) place(parent);
    out.push(a);
  };
  accounts.forEach(place);
  return out;
}
