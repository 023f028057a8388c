import type { AgentStatus, EventOf, FileTouch, OrcaEvent, ToolCall, Usage } from "../events/types.js";
import { addUsage, zeroUsage } from "../events/usage.js";
import type { ChatMessage } from "../model/model.js";
import { applyCompaction, type ConversationMark } from "./history.js";

/**
 * Rebuilding a session from its log. The log is the source of truth: each agent's history is
 * replayed from agent_started (system + task), user_message, assistant_message, tool_finished and
 * compacted events, so a resumed agent sees exactly what it saw before. Nothing is re-run.
 */

/** What the model is told for a call that started (or was about to) when the process died. */
export const INTERRUPTED_RESULT = "interrupted; result unknown — check the current state before re-running";

/** A call the log shows started (or about to) and never finished: what resume knows of it. */
export interface InterruptedCall {
  call: ToolCall;
  /** The file_write the call logged before replacing its file, if it got that far. */
  write?: EventOf<"file_write">;
  /** The run that made the call logs a file_write before every write: none means nothing was written. */
  writesAnnounced: boolean;
}

export interface RebuildOptions {
  /** The result the model is told for an interrupted call (default INTERRUPTED_RESULT). */
  interruptedResult?: (call: InterruptedCall, workspace: string) => string;
}

export interface RebuiltAgent {
  id: string;
  name: string;
  label?: string;
  parentId?: string;
  depth: number;
  /** The model it last ran with (informational: a resumed agent follows the current config). */
  model: string;
  history: ChatMessage[];
  status: AgentStatus | "running";
  steps: number;
  usage: Usage;
  /** Workspace-relative, as logged. */
  filesChanged: string[];
  /** Calls answered with INTERRUPTED_RESULT. */
  interruptedCalls: string[];
}

export interface RebuiltSession {
  sessionId: string;
  workspace: string;
  /** The coordinator's id, which is also its agent name. */
  rootAgentId: string;
  /** In the order they first started. */
  agents: RebuiltAgent[];
  /** What each logged tool call saw and changed, in log order: replayed into the read versions. */
  fileTouches: { agentId: string; ts: number; touches: FileTouch[] }[];
  /** Interrupted calls this rebuild described for the first time (not "result unknown"): for session_started. */
  described: { callId: string; result: string }[];
  /** The coordinator's conversation at each turn checkpoint, by checkpoint id: what /rewind N conversation puts back. */
  conversationAt: Map<string, ConversationMark>;
}

interface Builder {
  agent: RebuiltAgent;
  /** The last assistant message's calls, waiting for their results, and whether its run announced writes. */
  pending: { calls: ToolCall[]; results: Map<string, string>; writesAnnounced: boolean } | null;
  /** Between agent_started (or a follow-up task) and agent_finished. */
  running: boolean;
}

export function rebuildSession(events: OrcaEvent[], opts: RebuildOptions = {}): RebuiltSession {
  const first = events.find((e) => e.type === "session_started");
  if (!first || first.type !== "session_started") throw new Error("the log has no session_started event");
  const builders = new Map<string, Builder>();
  const fileTouches: RebuiltSession["fileTouches"] = [];
  const writes = new Map<string, EventOf<"file_write">>();
  // What an earlier resume told for an interrupted call: told again, whatever the file says now.
  const told = new Map<string, string>();
  const described: RebuiltSession["described"] = [];
  const describe = (call: ToolCall, writesAnnounced: boolean): string => {
    const said = told.get(call.id);
    if (said !== undefined) return said;
    const result = opts.interruptedResult?.({ call, write: writes.get(call.id), writesAnnounced }, first.workspace) ?? INTERRUPTED_RESULT;
    if (result !== INTERRUPTED_RESULT) described.push({ callId: call.id, result });
    return result;
  };
  // Each call's result in the history, so a held call's later answer (team-plan.ts) replaces it.
  const results = new Map<string, ChatMessage>();
  const flush = (b: Builder): void => flushRound(b, describe, results);
  let writesAnnounced = false;
  const conversationAt = new Map<string, ConversationMark>();
  let lastMark: ConversationMark | undefined;

  for (const event of events) {
    const b = builders.get(event.agentId);
    switch (event.type) {
      case "session_started":
        writesAnnounced = event.writesAnnounced === true;
        for (const { callId, result } of event.interrupted ?? []) told.set(callId, result);
        break;
      case "file_write":
        if (event.callId !== undefined) writes.set(event.callId, event);
        break;
      case "agent_started": {
        // A root that never got past agent_started before a crash starts again from scratch.
        const usage = b?.agent.usage ?? zeroUsage();
        builders.set(event.agentId, {
          agent: {
            id: event.agentId,
            name: event.name,
            label: event.label,
            parentId: event.parentId,
            depth: event.depth,
            model: event.model,
            history: [
              { role: "system", content: event.system },
              { role: "user", content: event.task },
            ],
            status: "running",
            steps: b?.agent.steps ?? 0,
            usage,
            filesChanged: [],
            interruptedCalls: [],
          },
          pending: null,
          running: true,
        });
        break;
      }
      case "checkpoint":
        if (event.reason !== "turn" || event.agentId !== first.agentId) break;
        if (b) flush(b);
        conversationAt.set(event.id, (lastMark = { history: b ? [...b.agent.history] : [], prompt: "" }));
        break;
      case "conversation_rewound": {
        const mark = conversationAt.get(event.checkpoint);
        if (!b || !mark) break;
        flush(b);
        b.agent.history = [...mark.history];
        break;
      }
      case "user_message":
        if (lastMark && event.agentId === first.agentId) {
          lastMark.prompt = event.text;
          lastMark = undefined;
        }
        // The coordinator's first prompt precedes its agent_started, which carries it as the task.
        if (!b) break;
        flush(b);
        b.agent.history.push({ role: "user", content: event.text });
        b.running = true;
        break;
      case "assistant_message":
        if (!b) break;
        flush(b);
        b.agent.history.push({ role: "assistant", content: event.content, toolCalls: event.toolCalls, ...(event.thinking ? { thinking: event.thinking } : {}) });
        if (event.toolCalls.length) b.pending = { calls: event.toolCalls, results: new Map(), writesAnnounced };
        break;
      case "tool_finished":
        if (event.versions?.length) fileTouches.push({ agentId: event.agentId, ts: event.ts, touches: event.versions });
        if (b?.pending?.calls.some((c) => c.id === event.callId)) {
          if (!b.pending.results.has(event.callId)) b.pending.results.set(event.callId, event.content);
        } else replaceResult(results.get(event.callId), event.content);
        break;
      case "compacted":
        if (!b) break;
        flush(b);
        applyCompaction(b.agent.history, event);
        break;
      case "model_request":
        if (b) b.agent.steps++;
        break;
      case "usage":
        if (b) addUsage(b.agent.usage, event);
        break;
      case "agent_finished":
        if (!b) break;
        flush(b);
        b.agent.status = event.status;
        b.running = false;
        for (const f of event.filesChanged) if (!b.agent.filesChanged.includes(f)) b.agent.filesChanged.push(f);
        break;
      default:
        break;
    }
  }

  for (const b of builders.values()) {
    flush(b);
    // It was running when the process stopped: resumable like any cancelled agent.
    if (b.running) b.agent.status = "cancelled";
  }
  return {
    sessionId: first.sessionId,
    workspace: first.workspace,
    rootAgentId: first.agentId,
    agents: [...builders.values()].map((b) => b.agent),
    fileTouches,
    described,
    conversationAt,
  };
}

/**
 * A resumed session answers a call its parent was waiting on when the run stopped (a delegate
 * or wait_agents call held for a continued sub-agent, team-plan.ts) after the round was closed
 * as interrupted or cancelled: no model had read that answer, the later one stands.
 */
function replaceResult(message: ChatMessage | undefined, content: string): void {
  if (message?.role === "tool") message.content = content;
}

/** Appends one result per call of the open round, in call order, as the loop does. */
function flushRound(b: Builder, interrupted: (call: ToolCall, writesAnnounced: boolean) => string, results: Map<string, ChatMessage>): void {
  if (!b.pending) return;
  for (const call of b.pending.calls) {
    let content = b.pending.results.get(call.id);
    if (content === undefined) {
      b.agent.interruptedCalls.push(call.id);
      content = interrupted(call, b.pending.writesAnnounced);
    }
    const message: ChatMessage = { role: "tool", toolCallId: call.id, content };
    b.agent.history.push(message);
    results.set(call.id, message);
  }
  b.pending = null;
}
