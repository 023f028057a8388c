import type { AgentView, DashboardState } from "./types.js";

/** What streamed text changes in an agent: its transcript and how far it is scanned. */
const TEXT_FIELDS: ReadonlySet<string> = new Set(["entries", "dropped", "open", "md", "streamed"]);

function sameButText(a: AgentView, b: AgentView): boolean {
  if (a === b) return true;
  // Walked with for-in, not Object.keys: the App's view of the store asks this for every agent at
  // every flush, and the arrays of keys were its cost. A key only one of them holds reads as
  // undefined in the other: equal only where it is undefined in both, which draws the same.
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  for (const k in y) if (!TEXT_FIELDS.has(k) && x[k] !== y[k]) return false;
  for (const k in x) if (!TEXT_FIELDS.has(k) && !(k in y) && x[k] !== undefined) return false;
  return true;
}

/**
 * Whether `next` differs from `prev` only in agents' transcripts (and the entry counter): what a
 * streamed delta changes. The reducer keeps every part it did not touch as the same object, so
 * this is a walk of identities, never of the text. Everything outside the panes' text (layout,
 * keys, header, queue line) can then skip the frame.
 */
export function onlyTextChanged(prev: DashboardState, next: DashboardState): boolean {
  if (prev === next) return true;
  const before = prev as unknown as Record<string, unknown>;
  const after = next as unknown as Record<string, unknown>;
  let keys = 0;
  for (const k in after) {
    keys++;
    if (k !== "agents" && k !== "seq" && before[k] !== after[k]) return false;
  }
  for (const _k in before) keys--;
  if (keys !== 0) return false;
  let ids = 0;
  for (const id in next.agents) {
    ids++;
    const a = prev.agents[id];
    if (a === undefined || !sameButText(a, next.agents[id]!)) return false;
  }
  for (const _id in prev.agents) ids--;
  return ids === 0;
}
