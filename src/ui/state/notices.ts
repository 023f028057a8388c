import type { EventOf, OrcaEvent } from "../../events/types.js";
import { linkRestoredNotice, nestedRepoNotice } from "../../events/schema-nested-repos.js";
import { Draft, pushEntries, textEntries } from "./draft.js";
import type { DashboardState } from "./types.js";

/** A line of orca's own in the coordinator's transcript. */
export function noticeLine(state: DashboardState, kind: "notice" | "error", text: string, ts: number): DashboardState {
  const draft = new Draft(state);
  const root = draft.agent(state.rootAgentId, ts);
  draft.setAgent(pushEntries(root, textEntries(draft, kind, text), state.maxLines, null));
  return draft.finish();
}

/** An event that only adds a notice line to its agent's pane. */
export function noticeIn(draft: Draft, event: OrcaEvent, max: number, note: string): DashboardState {
  draft.setAgent(pushEntries(draft.agent(event.agentId, event.ts, event.parentId), textEntries(draft, "notice", note), max, null));
  return draft.finish();
}

/** A repository a command made had what would run code taken out: said in the coordinator's transcript, as a warning. */
export function nestedRepoLine(state: DashboardState, event: EventOf<"nested_repo_neutralised">): DashboardState {
  return noticeLine(state, "error", `⚠ ${nestedRepoNotice(event)}`, event.ts);
}

/** A link on the way to orca's code or settings that a command replaced was put back: a warning, as above. */
export function linkRestoredLine(state: DashboardState, event: EventOf<"protected_link_restored">): DashboardState {
  return noticeLine(state, "error", `⚠ ${linkRestoredNotice(event)}`, event.ts);
}
