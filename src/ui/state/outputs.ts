import { terminalSafe } from "../../util/terminal-text.js";
import type { AgentView } from "./types.js";

/** One call's output kept for the viewer; tools cut their output long before this. */
const MAX_OUTPUT_CHARS = 400_000;
/** Outputs one pane keeps in all; the oldest calls lose theirs first (the session log has them). */
const MAX_PANE_OUTPUT_CHARS = 4_000_000;

/** A finished call's output and applied diff as the viewer keeps them: sanitised, bounded. */
export function keptOutput(content: string, diff: string | undefined): { output: string; diff: string | undefined } {
  const cut = content.length > MAX_OUTPUT_CHARS ? `${content.slice(0, MAX_OUTPUT_CHARS)}\n… cut at ${MAX_OUTPUT_CHARS} characters` : content;
  return { output: terminalSafe(cut), diff: diff ? terminalSafe(diff) : undefined };
}

/** Drops the outputs of the oldest calls once a pane holds more than its share. */
export function boundOutputs(agent: AgentView, max = MAX_PANE_OUTPUT_CHARS): AgentView {
  let total = 0;
  for (const e of agent.entries) if (e.kind === "tool" && e.output) total += e.output.length + (e.diff?.length ?? 0);
  if (total <= max) return agent;
  const entries = agent.entries.slice();
  for (let i = 0; i < entries.length && total > max; i++) {
    const e = entries[i]!;
    if (e.kind !== "tool" || !e.output) continue;
    total -= e.output.length + (e.diff?.length ?? 0);
    entries[i] = { ...e, output: undefined, diff: undefined, outputDropped: true };
  }
  return { ...agent, entries };
}
