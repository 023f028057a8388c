import type { ToolStatus } from "../util/errors.js";
import type { FileTouch, InputOf } from "./types.js";

/**
 * The events several producers emit, each built in one place: the fields derived from others (a
 * tool call's `ok` from its status, its `error` from its content) cannot drift apart between
 * producers, and a field added later is added here, for all of them.
 */

/** Who an event is about: the agent, and its parent for a sub-agent. */
export interface EventOwner {
  agentId: string;
  parentId?: string;
}

const owned = (who: EventOwner): EventOwner => ({ agentId: who.agentId, ...(who.parentId ? { parentId: who.parentId } : {}) });

/** How a tool call ended, as its producer knows it. */
export interface ToolOutcome {
  status: ToolStatus;
  /** Exactly what the model receives as the result. */
  content: string;
  /** The failure in one line; derived from the content (without its `Error: `) when not given. */
  error?: string;
  durationMs: number;
  /** The unified diff a file tool applied; kept only when the call succeeded. */
  diff?: string;
  versions?: readonly FileTouch[];
  /** A command's exit code (bash); null when it was killed. */
  exitCode?: number | null;
}

/**
 * tool_finished, from the executor (every call that ran or was refused), the agent loop (calls
 * answered without running: a cancel, a loop, a budget) and worktree isolation (the merge, shown
 * as a call of its own).
 */
export function toolFinished(who: EventOwner, call: { callId: string; name: string }, outcome: ToolOutcome): InputOf<"tool_finished"> {
  const ok = outcome.status === "ok";
  return {
    type: "tool_finished",
    ...owned(who),
    callId: call.callId,
    name: call.name,
    ok,
    status: outcome.status,
    content: outcome.content,
    ...(ok ? {} : { error: outcome.error ?? outcome.content.replace(/^Error: /, "") }),
    durationMs: outcome.durationMs,
    ...(ok && outcome.diff !== undefined ? { diff: outcome.diff } : {}),
    ...(outcome.versions?.length ? { versions: [...outcome.versions] } : {}),
    ...(outcome.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}),
  };
}

/** A process group orca started, as the log names it. */
export interface EndedProcess extends EventOwner {
  pgid: number;
  kind?: InputOf<"process_ended">["kind"];
  command?: string;
  group?: boolean;
}

/**
 * process_ended, from the recorder (a group ended while orca ran) and from the reaper (a group a
 * crashed run left running, ended by a later orca: `reaped`, with what it was, for whoever reads
 * that event alone).
 */
export function processEnded(p: EndedProcess, reaped = false): InputOf<"process_ended"> {
  return {
    type: "process_ended",
    ...owned(p),
    pgid: p.pgid,
    ...(reaped ? { reaped: true, kind: p.kind, command: p.command, ...(p.group === false ? { group: false } : {}) } : {}),
  };
}
