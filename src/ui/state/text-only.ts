import type { AgentView, DashboardState } from "./types.js";

/** What streamed text changes in an agent: its transcript and how far it is scanned. */
const TEXT_FIELDS: ReadonlySet<string> = new Set(["entries", "dropped", "open", "md", "streamed"]);

function sameButText(a: AgentView, b: AgentView): boolean {
  if (a === b) return true;
  const differs = (x: AgentView, y: AgentView): boolean => (Object.keys(x) as (keyof AgentView)[]).some((k) => !TEXT_FIELDS.has(k) && x[k] !== y[k]);
  return !differs(a, b) && !differs(b, a);
}

/**
 * Whether `next` differs from `prev` only in agents' transcripts (and the entry counter): what a
 * streamed delta changes. The reducer keeps every part it did not touch as the same object, so
 * this is a walk of identities, never of the text. Everything outside the panes' text (layout,
 * keys, header, queue line) can then skip the frame.
 */
export function onlyTextChanged(prev: DashboardState, next: DashboardState): boolean {
  if (prev === next) return true;
  const keys = Object.keys(next) as (keyof DashboardState)[];
  if (Object.keys(prev).length !== keys.length) return false;
  for (const k of keys) if (k !== "agents" && k !== "seq" && prev[k] !== next[k]) return false;
  const ids = Object.keys(next.agents);
  if (Object.keys(prev.agents).length !== ids.length) return false;
  return ids.every((id) => {
    const a = prev.agents[id];
    return a !== undefined && sameButText(a, next.agents[id]!);
  });
}
