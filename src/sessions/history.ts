import type { EventOf } from "../events/types.js";
import type { ChatMessage } from "../model/model.js";

/**
 * The shape of a compacted history, shared by the live compactor (agent/compaction.ts) and the
 * replay of a log (rebuild.ts): both must turn a `compacted` event into the same messages.
 */

/** The history always starts with the system prompt and the first task; they are never compacted. */
export const HEAD = 2;
export const SUMMARY_MARK = "[Summary of the earlier conversation";

/** The message that stands for the replaced part of the history. */
function compactionMessage(summary: string, rounds: number): ChatMessage {
  const content = summary
    ? `${SUMMARY_MARK} (${rounds} rounds), written when the context was compacted]\n${summary}`
    : `[Context note: ${rounds} earlier rounds were dropped to fit the context window because summarising them failed. ` +
      "Check the current state of files before relying on what you remember.]";
  return { role: "user", content };
}

/** Applies a compaction to a history in place; used live and when replaying a log. */
export function applyCompaction(history: ChatMessage[], event: Pick<EventOf<"compacted">, "summary" | "roundsSummarised" | "replacedMessages">): void {
  const replaced = Math.max(0, Math.min(event.replacedMessages, history.length - HEAD));
  history.splice(HEAD, replaced, compactionMessage(event.summary, event.roundsSummarised));
}

/**
 * The coordinator's conversation at a turn's checkpoint, before that turn's prompt: what a
 * conversation rewind puts back (live, from the session's own marks; on resume, from the log).
 */
export interface ConversationMark {
  /** The history then (the same message objects, never changed in place). */
  history: readonly ChatMessage[];
  /** The turn's prompt, for the input box after a rewind ("" until it is known). */
  prompt: string;
}
