import type { EventOf } from "../../events/types.js";
import { pushEntries, textEntries, type Draft } from "./draft.js";

/** The line a continued agent's pane gets when a resumed session takes up the run that stopped. */
export const CONTINUED_NOTE = "↻ continued after the resume, from its own history";

/**
 * `agent_continued`: the pane of an agent the resume continues runs again and says so (the replay
 * had closed it as interrupted), marked `continued` in its title; the coordinator's pane names the
 * team. Its held calls' answers arrive as their tool_finished.
 */
export function onAgentContinued(draft: Draft, e: EventOf<"agent_continued">, max: number): void {
  const agent = draft.agent(e.agentId, e.ts, e.parentId);
  const others = (e.team ?? []).filter((id) => id !== e.agentId);
  const note = others.length ? `↻ the stopped run goes on: ${others.join(", ")} continue from their own histories` : CONTINUED_NOTE;
  draft.setAgent({
    ...pushEntries(agent, textEntries(draft, "notice", note), max, null),
    status: "running",
    finishedAt: undefined,
    continued: true,
    ...(e.background ? { background: true } : {}),
  });
}
