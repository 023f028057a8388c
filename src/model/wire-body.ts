import type { ChatMessage, ToolSpec } from "./model.js";
import { messageParts, partsStillOf } from "./message-parts.js";
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

function bytesOfMessage(message: ChatMessage): Buffer {
  const was = messageBytes.get(message);
  if (was && partsStillOf(was.parts, message)) return was.bytes;
  return keep(messageBytes, message, messageParts(message), toWireMessage(message));
}

function bytesOfTool(tool: ToolSpec): Buffer {
  const was = toolBytes.get(tool);
  if (was && was.parts[0] === tool.name && was.parts[1] === tool.description && was.parts[2] === tool.parameters) return was.bytes;
  return keep(toolBytes, tool, [tool.name, tool.description, tool.parameters], toWireTool(tool));
}

function keep<K extends object>(cache: WeakMap<K, Kept>, key: K, parts: unknown[], wire: unknown): Buffer {
  const bytes = Buffer.from(JSON.stringify(wire), "utf8");
  cache.set(key, { parts, bytes });
  return bytes;
}
