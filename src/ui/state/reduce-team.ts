import type { EventOf, OrcaEvent } from "../../events/types.js";
import { EMPTY_BOARD, reduceBoard } from "../../orchestrator/task-board.js";
import { type Draft, pushEntries, textEntries } from "./draft.js";
import type { DashboardState } from "./types.js";

/**
 * The team's events on the dashboard: the board (the same reducer the session keeps it with), the
 * task a pane's title names, overlap notices, and a message between agents in both panes.
 */
type TeamEvent = EventOf<"task_created"> | EventOf<"task_updated"> | EventOf<"task_overlap"> | EventOf<"agent_message">;

export function isTeamEvent(e: OrcaEvent): e is TeamEvent {
  return e.type === "task_created" || e.type === "task_updated" || e.type === "task_overlap" || e.type === "agent_message";
}

export function reduceTeam(draft: Draft, state: DashboardState, e: TeamEvent, max: number): DashboardState {
  if (e.type === "task_overlap") reduceOverlap(draft, e, max);
  else if (e.type === "agent_message") reduceAgentMessage(draft, e, max);
  else return reduceTask(draft, state, e);
  return draft.finish();
}

function reduceTask(draft: Draft, state: DashboardState, e: EventOf<"task_created"> | EventOf<"task_updated">): DashboardState {
  const tasks = reduceBoard(state.tasks ?? EMPTY_BOARD, e);
  const task = tasks.tasks.find((t) => t.id === e.taskId);
  if (task?.owner) {
    // Its owner's pane may not exist yet: a delegation names the owner before the agent starts.
    const owner = draft.agent(task.owner, e.ts);
    if ((owner.boardTask?.id !== task.id || owner.boardTask.title !== task.title)) draft.setAgent({ ...owner, boardTask: { id: task.id, title: task.title } });
  }
  return draft.finish({ tasks });
}

/** "⚠ t3 overlaps t2 (editor-1): src/math.js — warned". */
function reduceOverlap(draft: Draft, e: EventOf<"task_overlap">, max: number): void {
  const agent = draft.agent(e.agentId, e.ts, e.parentId);
  const decision = { warned: "warned", approved: "approved by the person", denied: "not delegated: declined", refused: "not delegated (agents.on_overlap: refuse)" }[e.decision];
  const line = `⚠ scope overlap: ${e.taskId} and ${e.otherTaskId} (${e.otherAgentId}) both match ${e.files.join(", ")} — ${decision}`;
  draft.setAgent(pushEntries(agent, textEntries(draft, e.decision === "warned" || e.decision === "approved" ? "notice" : "error", line), max, null));
}

/** The sender's pane says whom it wrote to; the recipient's pane says who wrote (never the person). */
function reduceAgentMessage(draft: Draft, e: EventOf<"agent_message">, max: number): void {
  const from = draft.agent(e.agentId, e.ts, e.parentId);
  draft.setAgent(pushEntries(from, textEntries(draft, "notice", `✉ to ${e.to}: ${e.text}`), max, null));
  const to = draft.agent(e.to, e.ts);
  draft.setAgent(pushEntries(to, textEntries(draft, "notice", `✉ from ${e.agentId}: ${e.text}`), max, null));
}
