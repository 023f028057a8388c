import type { AgentState } from "./agents.js";

/**
 * Who may message whom (message_agent). An agent definition's `can_message:` lists relations —
 * `parent`, `siblings` (the other sub-agents of its parent), `children` (every agent below it,
 * which is how a lead steers its sub-agents) — or agent definition names. Unset: all three
 * relations. Only agents of this session exist to be named; a message is always delivered under
 * its sender's id, never as the person's words.
 */
export const RELATIONS = ["parent", "siblings", "children"] as const;
export const DEFAULT_CAN_MESSAGE: readonly string[] = RELATIONS;

export interface MessageRoster {
  get(id: string): AgentState | undefined;
  all(): AgentState[];
}

function isBelow(agent: AgentState, ancestorId: string, roster: MessageRoster): boolean {
  for (let at = agent.parentId; at; at = roster.get(at)?.parentId) if (at === ancestorId) return true;
  return false;
}

export function canMessageList(from: AgentState): readonly string[] {
  return from.definition.canMessage ?? DEFAULT_CAN_MESSAGE;
}

/** Whether `from` may send `to` a message, by its definition's can_message. */
export function mayMessage(from: AgentState, to: AgentState, roster: MessageRoster): boolean {
  if (from.id === to.id) return false;
  return canMessageList(from).some((entry) => {
    if (entry === "parent") return from.parentId !== undefined && to.id === from.parentId;
    if (entry === "siblings") return from.parentId !== undefined && to.parentId === from.parentId;
    if (entry === "children") return isBelow(to, from.id, roster);
    return to.definition.name === entry;
  });
}

/** Whether `from` has anyone it could ever message (else message_agent is not offered to it). */
export function mayMessageAnyone(from: AgentState): boolean {
  const list = canMessageList(from);
  if (!list.length) return false;
  // The coordinator has no parent or siblings: only its sub-agents (which come with delegate) or named definitions.
  if (from.parentId === undefined) return list.some((e) => e !== "parent" && e !== "siblings");
  return true;
}

/**
 * The agent `target` names, among those `from` may message: an agent id, else a label or an agent
 * definition name that names exactly one. A name is looked up only among permitted agents, so an
 * error never tells of agents the sender may not reach beyond the one it named by id.
 */
export function resolveRecipient(from: AgentState, target: string, roster: MessageRoster): { agent: AgentState } | { error: string } {
  const allowed = roster.all().filter((a) => mayMessage(from, a, roster));
  const byId = roster.get(target);
  if (byId) {
    if (byId.id === from.id) return { error: "that is you" };
    if (!allowed.includes(byId)) return { error: `you may not message ${byId.id} (can_message: ${canMessageList(from).join(", ") || "none"})${reachable(allowed)}` };
    return { agent: byId };
  }
  const named = allowed.filter((a) => a.label === target || a.definition.name === target);
  const live = named.filter((a) => a.status === "running");
  const pick = live.length ? live : named;
  if (pick.length === 1) return { agent: pick[0]! };
  if (pick.length > 1) return { error: `"${target}" names several agents (${pick.map((a) => a.id).join(", ")}): give an id` };
  return { error: `no agent "${target}" you may message${reachable(allowed)}` };
}

function reachable(allowed: readonly AgentState[]): string {
  const live = allowed.filter((a) => a.status === "running").map((a) => a.id);
  return live.length ? `; running agents you may message: ${live.join(", ")}` : "";
}
