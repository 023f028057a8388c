import type { EventBus } from "../events/bus.js";
import type { ChatMessage } from "../model/model.js";
import type { ConversationMark } from "../sessions/history.js";

/**
 * The conversation half of /rewind (Claude Code's "conversation" and "both"): the coordinator's
 * history taken back to what it was before a turn's prompt. Each turn is marked as its checkpoint
 * is emitted, before its prompt joins the history; a resumed session starts from the marks its log rebuilt
 * (sessions/rebuild.ts, which replays a `conversation_rewound` the same way). Nothing is deleted:
 * the messages set aside stay in the log, and the rewind is one event there.
 */

export type ConversationRewind = { ok: true; removed: number; prompt: string } | { ok: false; error: string };

export interface ConversationMarksDeps {
  bus: EventBus;
  /** The coordinator now: its history is marked when a turn's checkpoint is emitted. */
  root(): { id: string; history: ChatMessage[] };
  /** The marks of the log a resumed session continues. */
  prior?: ReadonlyMap<string, ConversationMark>;
}

export class ConversationMarks {
  private readonly marks: Map<string, ConversationMark>;

  constructor(private readonly deps: ConversationMarksDeps) {
    this.marks = new Map(deps.prior);
    let last: ConversationMark | undefined;
    // The bus calls listeners as it emits: a turn's checkpoint comes before its prompt joins the history.
    deps.bus.subscribe((e) => {
      if (e.type === "checkpoint" && e.reason === "turn") {
        const root = deps.root();
        if (e.agentId === root.id) this.marks.set(e.id, (last = { history: [...root.history], prompt: "" }));
      } else if (e.type === "user_message" && last && e.agentId === deps.root().id) {
        last.prompt = e.text;
        last = undefined;
      }
    });
  }

  /** Puts the coordinator's history back to the mark; the log says so (`label` names the turn). */
  rewind(checkpointId: string, label: string): ConversationRewind {
    const mark = this.marks.get(checkpointId);
    if (!mark) return { ok: false, error: "that checkpoint has no conversation to go back to (only a turn's checkpoint has)" };
    const root = this.deps.root();
    const kept = new Set(mark.history);
    const removed = root.history.filter((m) => !kept.has(m)).length;
    root.history.splice(0, root.history.length, ...mark.history);
    this.deps.bus.emit({ type: "conversation_rewound", agentId: root.id, checkpoint: checkpointId, label, removed });
    return { ok: true, removed, prompt: mark.prompt };
  }
}
