import { type ModelEvent } from "./model.js";
import { ModelError } from "../util/errors.js";

/**
 * What orca reads from one streamed chat-completions chunk. Looser than the SDK's
 * ChatCompletionChunk on purpose: OpenAI-compatible servers omit `index`, send `null`s, and add
 * `reasoning_content` (DeepSeek, vLLM) or `reasoning` (OpenRouter, Ollama).
 */
export interface WireChunk {
  choices?: WireChoice[] | null;
  usage?: WireUsage | null;
}

export interface WireChoice {
  index?: number | null;
  delta?: WireDelta | null;
  finish_reason?: string | null;
}

export interface WireDelta {
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: WireToolCallDelta[] | null;
}

export interface WireToolCallDelta {
  index?: number | null;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

export interface WireUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  /** DeepSeek reports cache hits here instead. */
  prompt_cache_hit_tokens?: number | null;
}

interface Slot {
  id: string;
  name: string;
  raw: string;
}

/**
 * Turns a sequence of parsed chunks into ModelEvents, with no I/O: `push` returns the events a
 * chunk produces right away (text, thinking); `finish` returns the rest once the stream ended —
 * the whole tool calls in index order, the usage, and one `done` — or throws when the stream
 * never said why it stopped.
 */
export class StreamAssembler {
  private readonly slots = new Map<number, Slot>();
  private readonly slotById = new Map<string, number>();
  private lastSlot: number | undefined;
  private finishReason: string | undefined;
  private usage: { input: number; output: number; cached: number } | undefined;

  push(chunk: WireChunk): ModelEvent[] {
    const events: ModelEvent[] = [];
    if (chunk.usage) this.usage = readUsage(chunk.usage);
    for (const choice of chunk.choices ?? []) {
      // orca asks for one choice; anything else is not ours to show.
      if (choice.index !== undefined && choice.index !== null && choice.index !== 0) continue;
      const delta = choice.delta;
      if (delta) {
        const thinking = delta.reasoning_content || delta.reasoning;
        if (thinking) events.push({ type: "thinking", text: thinking });
        if (delta.content) events.push({ type: "text", text: delta.content });
        for (const fragment of delta.tool_calls ?? []) this.addFragment(fragment);
      }
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    return events;
  }

  finish(): ModelEvent[] {
    if (this.finishReason === undefined) {
      throw new ModelError("truncated", "the model's response was cut off (no finish_reason)");
    }
    const events: ModelEvent[] = [];
    for (const key of [...this.slots.keys()].sort((a, b) => a - b)) {
      const slot = this.slots.get(key)!;
      const id = slot.id || `call_orca_${key}_${Math.random().toString(36).slice(2, 10)}`;
      events.push({ type: "tool_call", ...parseArguments(id, slot.name, slot.raw) });
    }
    if (this.usage) events.push({ type: "usage", ...this.usage });
    events.push({ type: "done", finishReason: this.finishReason });
    return events;
  }

  private addFragment(fragment: WireToolCallDelta): void {
    const key = this.slotFor(fragment);
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { id: "", name: "", raw: "" };
      this.slots.set(key, slot);
    }
    if (fragment.id && !slot.id) {
      slot.id = fragment.id;
      this.slotById.set(fragment.id, key);
    }
    // Some servers repeat the whole name on every fragment; the first one names the call.
    const name = fragment.function?.name;
    if (name && !slot.name) slot.name = name;
    const args = fragment.function?.arguments;
    if (args) slot.raw += args;
    this.lastSlot = key;
  }

  /** By index; without one, by id; without either, the call the previous fragment belonged to. */
  private slotFor(fragment: WireToolCallDelta): number {
    if (typeof fragment.index === "number") return fragment.index;
    if (fragment.id) {
      const known = this.slotById.get(fragment.id);
      if (known !== undefined) return known;
      return this.nextFreeKey();
    }
    return this.lastSlot ?? this.nextFreeKey();
  }

  private nextFreeKey(): number {
    return this.slots.size === 0 ? 0 : Math.max(...this.slots.keys()) + 1;
  }
}

/**
 * Deeper than any real tool's arguments. An object nested thousands of levels deep would overflow
 * the stack of every JSON.stringify after it (the session log, the history sent back), ending the run.
 */
export const MAX_ARGUMENT_DEPTH = 64;

/** How deep the arrays and objects of a JSON text nest, read without recursion (strings skipped). */
export function jsonDepth(raw: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // a backslash escapes the next character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** Arguments are parsed, or the parse error is reported next to the raw text — never `{}` for bad JSON. */
export function parseArguments(
  id: string,
  name: string,
  raw: string,
): { id: string; name: string; raw: string; args?: unknown; parseError?: string } {
  if (raw === "") return { id, name, raw, args: {} };
  const depth = jsonDepth(raw);
  if (depth > MAX_ARGUMENT_DEPTH) return { id, name, raw, parseError: `nested ${depth} levels deep; at most ${MAX_ARGUMENT_DEPTH} are accepted` };
  try {
    return { id, name, raw, args: JSON.parse(raw) as unknown };
  } catch (error) {
    return { id, name, raw, parseError: error instanceof Error ? error.message : String(error) };
  }
}

function readUsage(usage: WireUsage): { input: number; output: number; cached: number } {
  return {
    input: usage.prompt_tokens ?? 0,
    output: usage.completion_tokens ?? 0,
    cached: usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? 0,
  };
}
