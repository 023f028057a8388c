import type { InputOf } from "../events/types.js";

/**
 * The `checkpoint` events: a moment files can be rewound to, taken before each user turn and when
 * each sub-agent starts (before its first write). The event is a mark in the log; the files it
 * restores are derived from the changes logged after it (ChangeSetBuilder.since), so taking one
 * costs a line, not a copy of the tree. Ids carry the time so a resumed session's stay unique.
 */

let counter = 0;

function checkpointId(kind: string): string {
  return `${kind}-${Date.now().toString(36)}${(counter++ % 36).toString(36)}`;
}

/** First line of a prompt, cut short: what the person recognises a turn by. */
function firstLine(text: string, max = 60): string {
  const line = text.split("\n").find((l) => l.trim())?.trim() ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function turnCheckpoint(agentId: string, prompt: string): InputOf<"checkpoint"> {
  return { type: "checkpoint", agentId, id: checkpointId("turn"), reason: "turn", label: firstLine(prompt) };
}

export function agentCheckpoint(agent: { id: string; parentId?: string; label?: string }, task: string): InputOf<"checkpoint"> {
  const who = agent.label ? `${agent.id} [${agent.label}]` : agent.id;
  return { type: "checkpoint", agentId: agent.id, parentId: agent.parentId, id: checkpointId(`agent-${agent.id}`), reason: "agent", label: `${who}: ${firstLine(task, 48)}` };
}
