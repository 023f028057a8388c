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
  // One copy into the body: every piece is gathered first.
  const pieces: Buffer[] = [Buffer.from(headOf(fields)), OPEN];
  for (let i = 0; i < messages.length; i++) {
    if (i > 0) pieces.push(COMMA);
    pieces.push(bytesOfMessage(messages[i]!));
  }
  pieces.push(...tailOf(fields, tools));
  return Buffer.concat(pieces);
}

/** A body in its history's buffer (lentWireBody): its bytes stay as they are until `release`. */
export interface LentBody {
  bytes: Buffer;
  release(): void;
}

/**
 * Where a history's bodies are laid out, request after request. A history mostly grows between
 * requests, so the messages laid last time that are still the same (their kept bytes, compared
 * by identity) stay where they are, and only what follows the first one that is not is written:
 * a step copies the new messages and the tail instead of the whole history into a new buffer
 * (at ~300 KB of history, ~0.1 ms and 300 KB of garbage a step).
 */
interface Arena {
  buf: Buffer;
  /** The text before the first message the buffer starts with; "" before the first body. */
  head: string;
  /** The bytes of each message laid, in order, and where each ends in `buf` (its comma before it included). */
  laid: Buffer[];
  ends: number[];
  /** A body made from `buf` is still being sent: another body of this history is made apart, not over it. */
  lent: boolean;
}

const arenas = new WeakMap<readonly ChatMessage[], Arena>();
const MIN_ARENA_BYTES = 16 * 1024;
/**
 * The arenas that hold a buffer, least recently used first. A session keeps every agent's history
 * (a finished sub-agent's too), so a buffer per history would grow with the sub-agents a session
 * ever had: past this many, the least recently used arena gives its buffer up (its next body lays
 * it out again), which bounds them at this many times a body and a half.
 */
const holding: Arena[] = [];
const MAX_HOLDING = 64;

/**
 * wireBody's bytes laid in a buffer kept for `messages` (the history array itself, the one each
 * step of an agent sends): the caller releases the body once its request no longer reads it, and
 * the next body of that history is written over it.
 */
export function lentWireBody(fields: BodyFields, messages: readonly ChatMessage[], tools: readonly ToolSpec[]): LentBody {
  let arena = arenas.get(messages);
  if (arena?.lent) return { bytes: wireBody(fields, messages, tools), release: () => {} };
  if (!arena) arenas.set(messages, (arena = { buf: Buffer.alloc(0), head: "", laid: [], ends: [], lent: false }));
  hold(arena);
  const head = `${headOf(fields)}[`;
  const bytes = messages.map(bytesOfMessage);
  let kept = 0;
  if (arena.head === head) while (kept < bytes.length && kept < arena.laid.length && arena.laid[kept] === bytes[kept]) kept++;
  const headBytes = Buffer.byteLength(head);
  let at = kept > 0 ? arena.ends[kept - 1]! : headBytes;
  const tail = tailOf(fields, tools);
  let needed = at;
  for (let i = kept; i < bytes.length; i++) needed += bytes[i]!.length + (i > 0 ? 1 : 0);
  for (const piece of tail) needed += piece.length;
  if (needed > arena.buf.length) {
    const grown = Buffer.allocUnsafe(Math.max(MIN_ARENA_BYTES, needed + (needed >> 1)));
    if (kept > 0) arena.buf.copy(grown, 0, 0, at);
    arena.buf = grown;
  }
  const buf = arena.buf;
  if (kept === 0) {
    buf.write(head, 0, "utf8");
    arena.head = head;
  }
  arena.laid.length = kept;
  arena.ends.length = kept;
  for (let i = kept; i < bytes.length; i++) {
    if (i > 0) buf[at++] = COMMA[0]!;
    at += bytes[i]!.copy(buf, at);
    arena.laid.push(bytes[i]!);
    arena.ends.push(at);
  }
  for (const piece of tail) at += piece.copy(buf, at);
  arena.lent = true;
  const lent = arena;
  return { bytes: buf.subarray(0, at), release: () => (lent.lent = false) };
}

/** Marks `arena` the most recently used; the least recently used one not lent gives its buffer up past MAX_HOLDING. */
function hold(arena: Arena): void {
  const at = holding.indexOf(arena);
  if (at >= 0) holding.splice(at, 1);
  holding.push(arena);
  if (holding.length <= MAX_HOLDING) return;
  const oldest = holding.findIndex((a) => !a.lent);
  if (oldest < 0 || oldest === holding.length - 1) return;
  const [dropped] = holding.splice(oldest, 1);
  Object.assign(dropped!, { buf: Buffer.alloc(0), head: "", laid: [], ends: [] });
}

function headOf(fields: BodyFields): string {
  return `{"model":${JSON.stringify(fields.model)},"messages":`;
}

/** What follows the messages: `]`, the stream fields, the tools, the rest of the fields and `}`. */
function tailOf(fields: BodyFields, tools: readonly ToolSpec[]): Buffer[] {
  const { model: _model, stream, stream_options, ...rest } = fields;
  const after = JSON.stringify(rest);
  const pieces: Buffer[] = [Buffer.from(`],"stream":${JSON.stringify(stream)},"stream_options":${JSON.stringify(stream_options)}${tools.length ? ',"tools":' : ""}`)];
  if (tools.length) {
    pieces.push(OPEN);
    for (let i = 0; i < tools.length; i++) {
      if (i > 0) pieces.push(COMMA);
      pieces.push(bytesOfTool(tools[i]!));
    }
    pieces.push(CLOSE);
  }
  pieces.push(Buffer.from(after === "{}" ? "}" : `,${after.slice(1)}`));
  return pieces;
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
