import type { OrcaEvent } from "../../events/types.js";

type Delta = Extract<OrcaEvent, { type: "text_delta" | "thinking_delta" }>;

/**
 * Folds the deltas of one agent that arrive between two of its other events into one delta, so a
 * flush reduces each streaming agent once instead of once per token. An agent's deltas only touch
 * its own pane, and any other event of that agent (or a delta of the other kind) ends the run, so
 * the order each pane sees is unchanged.
 */
export function coalesce(events: readonly OrcaEvent[]): OrcaEvent[] {
  const out: OrcaEvent[] = [];
  const open = new Map<string, number>();
  for (const event of events) {
    if (event.type === "text_delta" || event.type === "thinking_delta") {
      const at = open.get(event.agentId);
      const prior = at === undefined ? undefined : (out[at] as Delta);
      if (prior && prior.type === event.type) {
        out[at!] = { ...prior, text: prior.text + event.text };
        continue;
      }
      open.set(event.agentId, out.length);
      out.push(event);
      continue;
    }
    // Events that may touch several agents (or the session) end every open run.
    if (event.type === "error" || event.type.startsWith("session_")) open.clear();
    else open.delete(event.agentId);
    out.push(event);
  }
  return out;
}
