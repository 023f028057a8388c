import type { OrcaEvent } from "../events/types.js";
import type { Session } from "./session.js";

/**
 * What a resumed session rebuilds from its log besides its agents (agents.ts, restoreAgents) —
 * one entry per part of the session's state that lives in the log, e.g. the task board. Each runs
 * after the agents are restored and before anything runs, so the team a resume continues
 * (team-resume.ts) finds it as it stood. Returns one warning line per thing it could not restore.
 */
export type ResumeRestorer = (events: readonly OrcaEvent[], session: Session) => string[];

export const RESUME_RESTORERS: readonly ResumeRestorer[] = [];
