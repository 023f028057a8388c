import type { ChatMessage, ToolSpec } from "./model.js";
import { toWireMessage, toWireTool } from "./wire.js";

/**
 * A chat-completions request's JSON as the UTF-8 bytes sent, the same bytes JSON.stringify of the
 * whole body gives, with each history message and each tool serialised and encoded once. The
 * protocol sends the whole history with every request: stringifying it and encoding it again took
 * a step time that grew with the history, for text that had not changed since the step before.
 * A message's bytes are kept beside the strings they were made from and reused only while the
 * message still holds those very strings (compared by identity): a message changed in place
 * (a resume filling in a result) is serialised again.
 */

/** The body's fields other than its messages and tools, in the order the body has them. */
export interface BodyFields {
  model: string;
  stream: true;
  stream_options: { include_usage: boolean };
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
}

interface Kept {
  parts: readonly unknown[];
  bytes: Buffer;
}

const messageBytes = new WeakMap<ChatMessage, Kept>();
const toolBytes = new WeakMap<ToolSpec, Kept>();

const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");

/** `{model, messages, stream, stream_options, tools (when there are any), ...the rest}` as bytes. */
export function wireBody(fields: BodyFields, messages: readonly ChatMessage[], tools: readonly ToolSpec[]): Buffer {
  const { model, stream, stream_options, ...rest } = fields;
  const after = JSON.stringify(rest);
  // One copy into the body: every piece is gathered first.
  const pieces: Buffer[] = [Buffer.from(`{"model":${JSON.stringify(model)},"messages":`)];
  list(pieces, messages, bytesOfMessage);
  pieces.push(Buffer.from(`,"stream":${JSON.stringify(stream)},"stream_options":${JSON.stringify(stream_options)}${tools.length ? ',"tools":' : ""}`));
  if (tools.length) list(pieces, tools, bytesOfTool);
  pieces.push(Buffer.from(after === "{}" ? "}" : `,${after.slice(1)}`));
  return Buffer.concat(pieces);
}

function list<T>(pieces: Buffer[], items: readonly T[], bytesOf: (item: T) => Buffer): void {
  pieces.push(OPEN);
  for (let i = 0; i < items.length; i++) {
    if (i > 0) pieces.push(COMMA);
    pieces.push(bytesOf(items[i]!));
  }
  pieces.push(CLOSE);
}

/** The strings (and arrays) a message's wire form is made from: while they are the same objects, so is its JSON. */
function partsOf(message: ChatMessage): unknown[] {
  switch (message.role) {
    case "system":
    case "user":
      return [message.role, message.content];
    case "tool":
      return [message.role, message.toolCallId, message.content];
    case "assistant":
      return [message.role, message.content, message.toolCalls, message.toolCalls.length, ...message.toolCalls.flatMap((c) => [c.id, c.name, c.raw])];
  }
}

function bytesOfMessage(message: ChatMessage): Buffer {
  return kept(messageBytes, message, partsOf(message), () => toWireMessage(message));
}

function bytesOfTool(tool: ToolSpec): Buffer {
  return kept(toolBytes, tool, [tool.name, tool.description, tool.parameters], () => toWireTool(tool));
}

function kept<K extends object>(cache: WeakMap<K, Kept>, key: K, parts: unknown[], wire: () => unknown): Buffer {
  const was = cache.get(key);
  if (was && was.parts.length === parts.length && was.parts.every((p, i) => p === parts[i])) return was.bytes;
  const bytes = Buffer.from(JSON.stringify(wire()), "utf8");
  cache.set(key, { parts, bytes });
  return bytes;
}
