import type { OrcaEvent } from "../events/types.js";

/** One agent's spend as headless output reports it: USD, or null when a request of it had no price (unknown, never $0). */
interface Spend {
  cost: number;
  unpriced: boolean;
}

/**
 * What each agent of a headless run has cost, summed from the usage events (each priced by the
 * model that answered it), for the json result and the stream-json usage lines.
 */
export class CostTally {
  private readonly spend = new Map<string, Spend>();
  private readonly total: Spend = { cost: 0, unpriced: false };
  private priced = false;

  /** Counts a usage event; returns the event as stream-json prints it, with the agent's cost so far. */
  add(event: OrcaEvent): OrcaEvent {
    if (event.type !== "usage") return event;
    const mine = this.spend.get(event.agentId) ?? { cost: 0, unpriced: false };
    for (const s of [mine, this.total]) {
      if (event.cost === undefined) s.unpriced = true;
      else s.cost += event.cost;
    }
    if (event.cost !== undefined) this.priced = true;
    this.spend.set(event.agentId, mine);
    return { ...event, agentCostUsd: usd(mine) } as OrcaEvent;
  }

  /** The agent's cost: USD, null when unknown, undefined when it made no request. */
  of(agentId: string): number | null | undefined {
    const s = this.spend.get(agentId);
    return s && usd(s);
  }

  /** The run's cost for the json result: absent when no request was priced, null when some were not. */
  totalField(): { cost_usd?: number | null } {
    if (!this.priced && !this.total.unpriced) return {};
    return { cost_usd: usd(this.total) };
  }
}

function usd(s: Spend): number | null {
  return s.unpriced ? null : s.cost;
}
