import type { OrcaEvent } from "../../events/types.js";
import { initialState, placeholder, reduce } from "./reducer.js";
import { coalesce } from "./coalesce.js";
import { terminalSafe } from "../../util/terminal-text.js";
import type { AgentView, DashboardState, Entry, ToolState } from "./types.js";

/** Said on a tool line whose call never finished before the process stopped. */
export const INTERRUPTED_CALL = "interrupted; result unknown";
/** The line that ends a replayed transcript: what is above came from the log. */
export const RESUMED_NOTE = "— resumed: the conversation above is from the session log —";

const UNFINISHED: ReadonlySet<ToolState> = new Set(["queued", "waiting", "asking", "running"]);

/**
 * Everything still running when the process stopped is over: no process is left to finish it.
 * Such agents show as cancelled with an "interrupted" line, their open calls as cancelled, and
 * nothing stays in the queue line. Pure; returns `state` itself when nothing was running.
 */
export function interruptRunning(state: DashboardState, ts: number): DashboardState {
  let changed = Object.keys(state.active).length > 0;
  let seq = state.seq;
  const agents: Record<string, AgentView> = {};
  for (const [id, agent] of Object.entries(state.agents)) {
    let entries = agent.entries;
    if (entries.some((e) => e.kind === "tool" && UNFINISHED.has(e.state))) {
      entries = entries.map((e): Entry => (e.kind === "tool" && UNFINISHED.has(e.state) ? { ...e, state: "cancelled", error: INTERRUPTED_CALL } : e));
    }
    const wasRunning = agent.status === "running";
    if (wasRunning) entries = [...entries, { seq: ++seq, kind: "error", text: "■ interrupted · the session stopped while it ran" }];
    if (entries === agent.entries && !wasRunning) {
      agents[id] = agent;
      continue;
    }
    changed = true;
    agents[id] = wasRunning ? { ...agent, entries, status: "cancelled", finishedAt: ts, currentTool: undefined, open: null } : { ...agent, entries };
  }
  if (!changed) return state;
  return { ...state, agents, active: {}, seq };
}

/** Adds a line of orca's own (not the model's) to the coordinator's transcript. */
export function notice(state: DashboardState, text: string, ts: number): DashboardState {
  const id = state.rootAgentId;
  const root: AgentView = state.agents[id] ?? placeholder(state, id, ts);
  const seq = state.seq + 1;
  const entries = [...root.entries, { seq, kind: "notice" as const, text: terminalSafe(text) }];
  const cut = Math.max(0, entries.length - state.maxLines);
  return {
    ...state,
    seq,
    agents: { ...state.agents, [id]: { ...root, entries: cut ? entries.slice(cut) : entries, dropped: root.dropped + cut, open: null } },
  };
}

/**
 * The dashboard state of a logged session, as it stood when it stopped: every pane with its
 * transcript and final state, the token totals, and a closing line saying it was resumed. Each
 * earlier resume in the log is a boundary too: what ran before it had been interrupted.
 * The session's model is dropped so the header shows the model the resumed session runs with.
 */
export function replayState(rootAgentId: string, events: readonly OrcaEvent[], maxLines?: number): DashboardState {
  let state = initialState(rootAgentId, maxLines);
  let lastTs = 0;
  for (const event of coalesce(events)) {
    if (event.type === "session_started" && event.resumedFrom !== undefined && state.session.id !== undefined) {
      state = notice(interruptRunning(state, lastTs || event.ts), "— resumed —", event.ts);
    }
    state = reduce(state, event);
    lastTs = event.ts;
  }
  if (events.length === 0) return state;
  state = notice(interruptRunning(state, lastTs), RESUMED_NOTE, lastTs);
  return { ...state, session: { ...state.session, model: undefined, status: undefined, resumed: true } };
}
