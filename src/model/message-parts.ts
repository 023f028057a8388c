import type { ChatMessage } from "./model.js";

/**
 * What a history message's wire form and token count are made from: its role, its strings, and
 * an assistant message's tool-call list with each call's id, name and arguments. Whatever is kept
 * per message across steps (its JSON, its count) is reused only while these are still the very
 * same values (strings and arrays compared by identity): a message changed in place (a resume
 * filling in a result, compaction rewriting it) is made again.
 */
export function messageParts(message: ChatMessage): unknown[] {
  switch (message.role) {
    case "system":
    case "user":
      return [message.role, message.content];
    case "tool":
      return [message.role, message.toolCallId, message.content];
    case "assistant": {
      const parts: unknown[] = [message.role, message.content, message.toolCalls, message.toolCalls.length];
      for (const c of message.toolCalls) parts.push(c.id, c.name, c.raw);
      return parts;
    }
  }
}

/** Whether `parts` (from messageParts) are still the message's, checked without building them again: every step checks every message. */
export function partsStillOf(parts: readonly unknown[], message: ChatMessage): boolean {
  if (parts[0] !== message.role) return false;
  switch (message.role) {
    case "system":
    case "user":
      return parts.length === 2 && parts[1] === message.content;
    case "tool":
      return parts.length === 3 && parts[1] === message.toolCallId && parts[2] === message.content;
    case "assistant": {
      const calls = message.toolCalls;
      if (parts.length !== 4 + calls.length * 3 || parts[1] !== message.content || parts[2] !== calls || parts[3] !== calls.length) return false;
      for (let i = 0; i < calls.length; i++) {
        const c = calls[i]!;
        if (parts[4 + i * 3] !== c.id || parts[5 + i * 3] !== c.name || parts[6 + i * 3] !== c.raw) return false;
      }
      return true;
    }
  }
}
