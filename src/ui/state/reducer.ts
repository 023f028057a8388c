import { displayPrompt, userShellLines } from "../prompt-context.js";
import { changeSetLine, verifyLine } from "../../review/summary-text.js";
import { BACKGROUND_RESULT } from "../../orchestrator/children.js";
import type { EventOf, OrcaEvent } from "../../events/types.js";
import { addRequest, fanoutNote, runBudgetFrom, withUsage } from "./reduce-budget.js";
import { onAgentContinued } from "./reduce-continued.js";
import { agentTitle, summarizeArgs } from "../format.js";
import { terminalSafe, terminalSafeDeep } from "../../util/terminal-text.js";
import { activeKey, Draft, findTool, pushEntries, textEntries, updateTool } from "./draft.js";
import type { AgentView, DashboardState, Entry, ToolEntry, ToolState } from "./types.js";
import { zeroUsage } from "../../events/usage.js";
import { settleMarkdown } from "./blocks.js";
import { boundOutputs, keptOutput } from "./outputs.js";
import { toolStatusOf } from "../../util/errors.js";
import { isTeamEvent, reduceTeam } from "./reduce-team.js";
import { linkRestoredLine, nestedRepoLine, noticeIn, noticeLine } from "./notices.js";

/** Lines each pane keeps; older ones fall off so memory stays flat in long sessions. */
export const DEFAULT_MAX_LINES = 2000;
/** A streamed line longer than this is broken, so one wrap never measures megabytes. */
const MAX_LINE_CHARS = 4000;

export { placeholder } from "./draft.js";

export function initialState(rootAgentId: string, maxLines = DEFAULT_MAX_LINES): DashboardState {
  return { rootAgentId, maxLines, session: {}, agents: {}, order: [], active: {}, totals: zeroUsage(), seq: 0, mcp: {}, scheduler: { running: 0, waiting: 0 }, conflicts: 0 };
}

/** Streams a delta into the open line of `kind`, starting new lines at each newline. */
function streamInto(draft: Draft, agent: AgentView, kind: "text" | "thinking", raw: string, max: number): AgentView {
  const text = terminalSafe(raw);
  if (!text) return agent;
  const parts = text.split("\n");
  // How many entries stay: all but the open line when this delta extends it.
  let keep = agent.entries.length;
  const last = agent.entries[keep - 1];
  const add: Entry[] = [];
  let head = parts[0];
  if (agent.open === kind && last && last.kind === kind) {
    const joined = last.text + head;
    if (joined.length <= MAX_LINE_CHARS) {
      keep--;
      head = joined;
      add.push({ seq: last.seq, kind, text: head });
    } else add.push({ seq: ++draft.seq, kind, text: head });
  } else add.push({ seq: ++draft.seq, kind, text: head });
  for (const part of parts.slice(1)) add.push({ seq: ++draft.seq, kind, text: part });
  // A very long unbroken line is cut into chunks so wrapping stays cheap.
  const chunked: Entry[] = [];
  for (const e of add) {
    if (e.kind !== "tool" && e.text.length > MAX_LINE_CHARS) {
      for (let i = 0; i < e.text.length; i += MAX_LINE_CHARS) chunked.push({ seq: i === 0 ? e.seq : ++draft.seq, kind, text: e.text.slice(i, i + MAX_LINE_CHARS) });
    } else chunked.push(e);
  }
  // One copy of the agent and one of its entries a delta, not two of each.
  const next = pushEntries(agent, chunked, max, kind, keep, agent.streamed || kind === "text");
  return kind === "text" ? settleMarkdown(next, false) : next;
}

function setCallState(draft: Draft, agentId: string, callId: string, state: ToolState): void {
  const key = activeKey(agentId, callId);
  const call = draft.active[key];
  if (call) draft.setActive(key, { ...call, state });
}

/**
 * Names what a queued call waits for while the blockers are still known (they are live calls
 * now, gone once they finish): another agent by its name and label, or this agent's own call.
 */
function describeBlockers(draft: Draft, agentId: string, ids: readonly string[]): string[] {
  if (ids.length === 0) return [];
  const calls = Object.values(draft.active);
  const out: string[] = [];
  for (const id of ids) {
    const call = calls.find((c) => c.callId === id && c.agentId !== agentId) ?? calls.find((c) => c.callId === id);
    let text = id;
    if (call && call.agentId !== agentId) {
      const who = draft.agents[call.agentId];
      text = who ? agentTitle(who) : call.agentId;
    } else if (call) text = `${call.name} ${call.summary}`.trim();
    if (!out.includes(text)) out.push(text);
  }
  return out;
}

function onToolQueued(draft: Draft, e: EventOf<"tool_queued">): void {
  let agent = draft.agent(e.agentId, e.ts, e.parentId);
  const summary = summarizeArgs(e.name, e.args);
  const state: ToolState = e.waitsFor.length > 0 ? "waiting" : "queued";
  const blockers = describeBlockers(draft, e.agentId, e.waitsFor);
  const index = findTool(agent, e.callId);
  // The call was shown from the assistant message; the queue time is when the scheduler saw it.
  if (index >= 0) agent = updateTool(agent, index, { state, waitsFor: e.waitsFor, blockers, summary, queuedAt: e.ts });
  else {
    const entry: ToolEntry = { seq: ++draft.seq, kind: "tool", callId: e.callId, name: e.name, summary, state, queuedAt: e.ts, waitsFor: e.waitsFor, blockers };
    agent = pushEntries(agent, [entry], draft.base.maxLines, null);
  }
  draft.setAgent(agent);
  draft.setActive(activeKey(e.agentId, e.callId), { agentId: e.agentId, callId: e.callId, name: e.name, summary, state, waitsFor: e.waitsFor, blockers });
}

function onToolStarted(draft: Draft, e: EventOf<"tool_started">): void {
  let agent = draft.agent(e.agentId, e.ts, e.parentId);
  const index = findTool(agent, e.callId);
  let summary = "";
  if (index >= 0) {
    summary = (agent.entries[index] as ToolEntry).summary;
    agent = updateTool(agent, index, { state: "running", startedAt: e.ts });
  } else {
    const entry: ToolEntry = { seq: ++draft.seq, kind: "tool", callId: e.callId, name: e.name, summary, state: "running", queuedAt: e.ts, startedAt: e.ts, waitsFor: [] };
    agent = pushEntries(agent, [entry], draft.base.maxLines, null);
  }
  draft.setAgent({ ...agent, currentTool: { callId: e.callId, name: e.name, summary } });
  const key = activeKey(e.agentId, e.callId);
  const call = draft.active[key];
  draft.setActive(key, { ...(call ?? { agentId: e.agentId, callId: e.callId, name: e.name, summary, waitsFor: [] }), state: "running" });
}

function onToolFinished(draft: Draft, e: EventOf<"tool_finished">): void {
  let agent = draft.agent(e.agentId, e.ts, e.parentId);
  const index = findTool(agent, e.callId);
  const status = toolStatusOf(e);
  const prior = index >= 0 ? (agent.entries[index] as ToolEntry).state : undefined;
  const state: ToolState = status === "ok" ? "ok" : status === "denied" || prior === "denied" ? "denied" : status === "cancelled" ? "cancelled" : "failed";
  const errorText = e.ok ? undefined : terminalSafe(e.error ?? e.content).trim();
  const error = errorText?.split("\n")[0];
  const { output, diff } = keptOutput(e.content, e.diff);
  const patch = { state, durationMs: e.durationMs, error, errorText, output, diff };
  if (index >= 0) agent = updateTool(agent, index, patch);
  else {
    const entry: ToolEntry = { seq: ++draft.seq, kind: "tool", callId: e.callId, name: e.name, summary: "", queuedAt: e.ts, waitsFor: [], ...patch };
    agent = pushEntries(agent, [entry], draft.base.maxLines, null);
  }
  agent = boundOutputs(agent);
  if (agent.currentTool?.callId === e.callId) agent = { ...agent, currentTool: undefined };
  draft.setAgent(agent);
  draft.setActive(activeKey(e.agentId, e.callId), undefined);
  // The current tool falls back to another call of this agent that is still running.
  if (!agent.currentTool) {
    const other = Object.values(draft.active).find((c) => c.agentId === e.agentId && c.state === "running");
    if (other) draft.setAgent({ ...agent, currentTool: { callId: other.callId, name: other.name, summary: other.summary } });
  }
}

function setToolState(draft: Draft, agentId: string, callId: string, ts: number, state: ToolState): void {
  const agent = draft.agent(agentId, ts);
  const index = findTool(agent, callId);
  if (index >= 0) draft.setAgent(updateTool(agent, index, { state }));
  setCallState(draft, agentId, callId, state);
}

/**
 * A tool event's hook is marked under the call's row; another event's hook is a line in the pane
 * only when it did something (blocked, stopped, failed, was killed) or has a message for the user.
 */
function onHookFinished(draft: Draft, e: EventOf<"hook_finished">, max: number): void {
  const agent = draft.agent(e.agentId, e.ts, e.parentId);
  const what = [e.hookEvent, e.decision !== "none" ? e.decision : "", e.outcome !== "ok" ? e.outcome : "", `${e.durationMs}ms`].filter(Boolean).join(" ");
  const index = e.callId === undefined ? -1 : findTool(agent, e.callId);
  if (index >= 0) {
    draft.setAgent(updateTool(agent, index, { hooks: [...((agent.entries[index] as ToolEntry).hooks ?? []), what].slice(-4) }));
    return;
  }
  const said = e.systemMessage ?? (e.decision !== "none" || e.outcome !== "ok" ? e.message : undefined);
  if (e.decision === "none" && e.outcome === "ok" && !said) return;
  const line = `⚙ hook ${what}${said ? ` — ${terminalSafe(said)}` : ""}`;
  draft.setAgent(pushEntries(agent, textEntries(draft, e.outcome === "ok" ? "notice" : "error", line), max, null));
}

/** The dashboard's state after one event. Pure: the input state is never modified. */
export function reduce(state: DashboardState, raw: OrcaEvent): DashboardState {
  // Every string of an event (a label, a tool or agent name, an error) may come from a model or
  // a server: each is made terminal-safe once, here, whatever part of the screen shows it.
  const event = terminalSafeDeep(raw);
  const draft = new Draft(state);
  const max = state.maxLines;
  if (isTeamEvent(event)) return reduceTeam(draft, state, event, max);
  switch (event.type) {
    case "session_started":
      return draft.finish({ session: { ...state.session, id: event.sessionId, model: event.model, workspace: event.workspace, startedAt: state.session.startedAt ?? event.ts } });
    case "session_finished":
      return draft.finish({ session: { ...state.session, status: event.status } });
    case "user_message": {
      // Another agent's message was shown in both panes when it was sent (agent_message).
      if (event.from !== undefined) return state;
      const agent = draft.agent(event.agentId, event.ts, event.parentId);
      // A background sub-agent's result reaches its parent as a message; the person did not type it.
      const background = BACKGROUND_RESULT.exec(event.text);
      const entries = background ? textEntries(draft, "notice", backgroundNotice(background[1]!, event.text, state)) : textEntries(draft, "user", displayPrompt(event.text));
      draft.setAgent(pushEntries(agent, entries, max, null));
      return draft.finish();
    }
    case "agent_started": {
      const known = state.agents[event.agentId];
      const base = draft.agent(event.agentId, event.ts, event.parentId);
      let agent: AgentView = {
        ...base,
        name: event.name,
        label: event.label,
        task: event.task,
        parentId: event.parentId,
        depth: event.depth,
        status: "running",
        startedAt: known && known.status === "running" ? known.startedAt : event.ts,
        finishedAt: undefined,
        open: null,
      };
      // A sub-agent's task heads its pane (the coordinator's is the user turn); "resumed" if it ran before.
      if (event.agentId !== state.rootAgentId) {
        const head = known?.task ? `— resumed: ${event.task}` : `task: ${event.task}`;
        agent = pushEntries(agent, textEntries(draft, "notice", head), max, null);
      }
      draft.setAgent(agent);
      return draft.finish();
    }
    case "model_request": {
      const agent = settleMarkdown(draft.agent(event.agentId, event.ts, event.parentId), true);
      draft.setAgent({ ...agent, steps: Math.max(agent.steps, event.step), open: null, streamed: false });
      return draft.finish();
    }
    case "text_delta":
    case "thinking_delta": {
      const agent = draft.agent(event.agentId, event.ts, event.parentId);
      draft.setAgent(streamInto(draft, agent, event.type === "text_delta" ? "text" : "thinking", event.text, max));
      return draft.finish();
    }
    case "assistant_message": {
      let agent = draft.agent(event.agentId, event.ts, event.parentId);
      if (!agent.streamed && event.content.trim()) agent = pushEntries(agent, textEntries(draft, "text", event.content), max, null);
      agent = settleMarkdown(agent, true);
      // Each call gets its line now, with its arguments: later events (permission, queue,
      // start, finish) only carry ids, and unscheduled tools like delegate are never queued.
      const calls: ToolEntry[] = event.toolCalls.map((c) => ({
        seq: ++draft.seq,
        kind: "tool",
        callId: c.id,
        name: c.name,
        summary: c.parseError !== undefined ? `(invalid arguments) ${summarizeArgs(c.name, c.raw)}` : summarizeArgs(c.name, c.args),
        state: "queued",
        queuedAt: event.ts,
        waitsFor: [],
      }));
      if (calls.length) agent = pushEntries(agent, calls, max, null);
      draft.setAgent({ ...agent, open: null, streamed: false });
      return draft.finish();
    }
    case "tool_queued":
      onToolQueued(draft, event);
      return draft.finish();
    case "tool_started":
      onToolStarted(draft, event);
      return draft.finish();
    case "tool_finished":
      onToolFinished(draft, event);
      return draft.finish();
    case "permission_requested": {
      const agent = draft.agent(event.agentId, event.ts, event.parentId);
      if (findTool(agent, event.callId) < 0) {
        const entry: ToolEntry = { seq: ++draft.seq, kind: "tool", callId: event.callId, name: event.tool, summary: summarizeArgs(event.tool, event.args), state: "asking", queuedAt: event.ts, waitsFor: [] };
        draft.setAgent(pushEntries(agent, [entry], max, null));
      } else setToolState(draft, event.agentId, event.callId, event.ts, "asking");
      return draft.finish();
    }
    case "permission_decided": {
      const agent = draft.agent(event.agentId, event.ts);
      const index = findTool(agent, event.callId);
      const prior = index >= 0 ? (agent.entries[index] as ToolEntry) : undefined;
      if (event.decision === "deny") setToolState(draft, event.agentId, event.callId, event.ts, "denied");
      else if (prior?.state === "asking") setToolState(draft, event.agentId, event.callId, event.ts, prior.waitsFor.length ? "waiting" : "queued");
      if (event.sandbox && index >= 0) {
        const now = draft.agent(event.agentId, event.ts);
        draft.setAgent(updateTool(now, findTool(now, event.callId), { sandbox: event.sandbox }));
      }
      return draft.finish();
    }
    case "agent_finished": {
      let agent = settleMarkdown(draft.agent(event.agentId, event.ts, event.parentId), true);
      const tokens = { ...agent.tokens, input: Math.max(agent.tokens.input, event.usage.input), output: Math.max(agent.tokens.output, event.usage.output) };
      if (event.agentId !== state.rootAgentId || event.status !== "done") {
        const note = `${event.status === "done" ? "✓ done" : `■ ${event.status}`} · ${event.steps} step${event.steps === 1 ? "" : "s"}`;
        agent = pushEntries(agent, textEntries(draft, event.status === "done" ? "notice" : "error", note), max, null);
      }
      draft.setAgent({ ...agent, status: event.status, steps: Math.max(agent.steps, event.steps), tokens, finishedAt: event.ts, currentTool: undefined, open: null });
      return draft.finish();
    }
    case "usage": {
      const agent = draft.agent(event.agentId, event.ts, event.parentId);
      draft.setAgent({ ...agent, tokens: addRequest(agent.tokens, event) });
      return draft.finish(withUsage(state, event));
    }
    case "budget_set": {
      if (event.scope === "run") return draft.finish({ runBudget: runBudgetFrom(event) });
      const agent = draft.agent(event.agentId, event.ts, event.parentId);
      if (event.maxCostUsd !== undefined) draft.setAgent({ ...agent, tokens: { ...agent.tokens, limitUsd: event.maxCostUsd } });
      return draft.finish();
    }
    case "fanout_checked": {
      const agent = draft.agent(event.agentId, event.ts, event.parentId);
      draft.setAgent(pushEntries(agent, textEntries(draft, event.decision === "approved" ? "notice" : "error", fanoutNote(event)), max, null));
      return draft.finish();
    }
    case "compacted":
      return noticeIn(draft, event, max, `context compacted: ${event.beforeTokens} → ${event.afterTokens} tokens (${event.roundsSummarised} rounds summarised)`);
    case "conversation_rewound":
      return noticeIn(draft, event, max, `↺ conversation rewound to before "${event.label}": ${event.removed} message${event.removed === 1 ? "" : "s"} set aside (the session log keeps them); the model no longer sees what came after`);
    case "agent_backgrounded": {
      const note = event.by === "user" ? "↧ moved to the background: its parent goes on" : "↧ runs in the background: its parent goes on";
      draft.setAgent({ ...pushEntries(draft.agent(event.agentId, event.ts, event.parentId), textEntries(draft, "notice", note), max, null), background: true });
      return draft.finish();
    }
    case "agent_continued":
      onAgentContinued(draft, event, max);
      return draft.finish();
    case "agent_waiting":
      return noticeIn(draft, event, max, `… waiting for background sub-agents: ${event.waitingFor.join(", ")}`);
    case "worktree": {
      const agent = draft.agent(event.agentId, event.ts, event.parentId);
      const kind = event.action === "conflict" || event.action === "failed" ? "error" : "notice";
      draft.setAgent(pushEntries(agent, textEntries(draft, kind, `worktree: ${event.message}`), max, null));
      return draft.finish();
    }
    case "write_conflict": {
      // Marked on the call's row; its tool_finished (the refusal) follows and keeps the mark.
      const agent = draft.agent(event.agentId, event.ts, event.parentId);
      const index = findTool(agent, event.callId);
      if (index >= 0) draft.setAgent(updateTool(agent, index, { conflict: conflictMark(event) }));
      return draft.finish({ conflicts: state.conflicts + 1 });
    }
    case "hook_started":
    case "file_write":
    case "file_changed":
    case "checkpoint":
    case "review_decision":
    case "process_started":
    case "process_ended":
      return state;
    case "nested_repo_neutralised":
      return nestedRepoLine(state, event);
    case "protected_link_restored":
      return linkRestoredLine(state, event);
    case "mcp_status": {
      const before = state.mcp[event.server];
      const view = { state: event.state, tools: event.tools, reason: event.reason };
      let next = draft.finish({ mcp: { ...state.mcp, [event.server]: view } });
      // A server that fails is said in the transcript, with why; the header only counts.
      if (event.state === "failed" && (before?.state !== "failed" || before.reason !== event.reason)) {
        next = noticeLine(next, "error", `⚠ MCP server ${event.server} failed: ${event.reason ?? "unknown reason"}`, event.ts);
      } else if (event.state === "restarted") {
        next = noticeLine(next, "notice", `MCP server ${event.server} restarted (${event.tools ?? 0} tools)`, event.ts);
      }
      return next;
    }
    case "hook_finished":
      onHookFinished(draft, event, max);
      return draft.finish();
    case "user_shell": {
      const agent = draft.agent(state.rootAgentId, event.ts);
      draft.setAgent(pushEntries(agent, textEntries(draft, "notice", userShellLines(event).join("\n")), max, null));
      return draft.finish();
    }
    case "verify_finished":
    case "change_set": {
      const agent = draft.agent(event.agentId, event.ts, event.parentId);
      const line = event.type === "verify_finished" ? verifyLine(event) : changeSetLine(event);
      draft.setAgent(pushEntries(agent, textEntries(draft, line.ok ? "notice" : "error", line.text), max, null));
      return draft.finish();
    }
    case "error": {
      const id = state.agents[event.agentId] || event.agentId === state.rootAgentId ? event.agentId : state.rootAgentId;
      const agent = draft.agent(id, event.ts);
      draft.setAgent(pushEntries(agent, textEntries(draft, "error", `error (${event.where}): ${event.message}`), max, null));
      return draft.finish();
    }
  }
}

/** "↥ background sub-agent explorer-1 [scan docs] ended: done — its result is handed to this agent". */
function backgroundNotice(id: string, text: string, state: DashboardState): string {
  const status = /^status: (\S+)$/m.exec(text)?.[1] ?? "ended";
  return `↥ background sub-agent ${agentTitle({ id, label: state.agents[id]?.label })} ended: ${status} — its result is handed to this agent`;
}

/** "stale: changed by editor-2", "stale: changed outside orca", "not read first". */
export function conflictMark(e: EventOf<"write_conflict">): string {
  if (e.reason === "unread") return e.changedBy?.kind === "agent" ? `not read first (written by ${e.changedBy.agentId})` : "not read first";
  if (!e.changedBy) return "stale: changed since read";
  return e.changedBy.kind === "agent" ? `stale: changed by ${e.changedBy.agentId}` : "stale: changed outside orca";
}

/** Every sub-agent (not the coordinator), in start order. */
export function subAgents(state: DashboardState): AgentView[] {
  return state.order.map((id) => state.agents[id]).filter((a): a is AgentView => Boolean(a));
}
