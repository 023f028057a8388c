import type { ContentBlockParam } from "@anthropic-ai/sdk/resources/messages";
import type { ThinkingBlock } from "../events/types.js";
import { jsonDepth, MAX_ARGUMENT_DEPTH, parseArguments } from "./assembler.js";
import { type ModelEvent, type RequestUsage } from "./model.js";
import { ModelError } from "../util/errors.js";

/**
 * What orca reads from one streamed Messages event. Looser than the SDK's RawMessageStreamEvent
 * on purpose: compatible servers (proxies, gateways) send nulls and leave fields out.
 */
export interface AnthropicWireEvent {
  type: string;
  index?: number | null;
  message?: { usage?: AnthropicWireUsage | null } | null;
  content_block?: WireContentBlock | null;
  delta?: {
    type?: string | null;
    text?: string | null;
    thinking?: string | null;
    signature?: string | null;
    partial_json?: string | null;
    stop_reason?: string | null;
  } | null;
  usage?: AnthropicWireUsage | null;
}

export interface WireContentBlock {
  type: string;
  text?: string | null;
  thinking?: string | null;
  signature?: string | null;
  data?: string | null;
  id?: string | null;
  name?: string | null;
  input?: unknown;
  [key: string]: unknown;
}

export interface AnthropicWireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

interface Block {
  /** Which message of a continued turn, and the block's index in it: the order the model wrote them. */
  message: number;
  index: number;
  type: string;
  text: string;
  signature: string;
  json: string;
  start: WireContentBlock;
}

/**
 * Turns the events of one Messages stream — or of several, when a `pause_turn` response is
 * continued — into ModelEvents, with no I/O. `push` returns what shows at once (text, thinking);
 * `finish` the rest: the thinking blocks and tool calls in block order, the usage, and `done`.
 */
export class AnthropicAssembler {
  private readonly blocks: Block[] = [];
  /** Messages started so far: more than one when a paused turn was continued. */
  private messages = 0;
  private readonly byIndex = new Map<number, Block>();
  private usage: Record<keyof AnthropicWireUsage, number> = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  /** Usage of the messages before the current one (a paused turn bills each part). */
  private previous: RequestUsage = { input: 0, output: 0, cached: 0, cacheWrite: 0 };
  private stopped = false;
  stopReason: string | undefined;

  constructor(private readonly model: string) {}

  push(event: AnthropicWireEvent): ModelEvent[] {
    switch (event.type) {
      case "message_start":
        this.startMessage(event.message?.usage);
        return [];
      case "content_block_start":
        return this.startBlock(event.index, event.content_block);
      case "content_block_delta":
        return this.delta(event);
      case "message_delta":
        if (event.delta?.stop_reason) this.stopReason = event.delta.stop_reason;
        this.readUsage(event.usage);
        return [];
      case "message_stop":
        this.stopped = true;
        return [];
      default:
        // content_block_stop, ping and event types newer than orca carry nothing orca needs.
        return [];
    }
  }

  /** True once the current message ended with message_stop. */
  get complete(): boolean {
    return this.stopped;
  }

  /** The assistant content so far, as a continuation request sends it back after `pause_turn`. */
  contentParams(): ContentBlockParam[] {
    return this.ordered().flatMap((block): ContentBlockParam[] => {
      switch (block.type) {
        case "text":
          return block.text ? [{ type: "text", text: block.text }] : [];
        case "thinking":
          return [{ type: "thinking", thinking: block.text, signature: block.signature }];
        case "redacted_thinking":
          return [{ type: "redacted_thinking", data: String(block.start.data ?? "") }];
        case "tool_use":
        case "server_tool_use":
          return [{ ...block.start, input: this.input(block) } as unknown as ContentBlockParam];
        default:
          return [block.start as unknown as ContentBlockParam];
      }
    });
  }

  finish(): ModelEvent[] {
    if (!this.stopped) throw new ModelError("truncated", "the model's response was cut off (no message_stop)");
    const events: ModelEvent[] = [];
    let calls = 0;
    for (const block of this.ordered()) {
      const position = calls ? { afterToolCalls: calls } : {};
      if (block.type === "thinking") {
        const thinking: ThinkingBlock = { text: block.text, signature: block.signature, model: this.model, ...position };
        events.push({ type: "thinking_block", block: thinking });
      } else if (block.type === "redacted_thinking") {
        events.push({ type: "thinking_block", block: { text: "", redacted: String(block.start.data ?? ""), model: this.model, ...position } });
      } else if (block.type === "tool_use") {
        const id = block.start.id || `toolu_orca_${calls}_${Math.random().toString(36).slice(2, 10)}`;
        events.push({ type: "tool_call", ...parseArguments(id, block.start.name ?? "", this.rawInput(block)) });
        calls++;
      }
    }
    events.push({ type: "usage", ...this.totalUsage() });
    return events;
  }

  totalUsage(): RequestUsage {
    const u = this.usage;
    const p = this.previous;
    return {
      input: p.input + u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens,
      output: p.output + u.output_tokens,
      cached: p.cached + u.cache_read_input_tokens,
      cacheWrite: (p.cacheWrite ?? 0) + u.cache_creation_input_tokens,
    };
  }

  private startMessage(usage: AnthropicWireUsage | null | undefined): void {
    if (this.blocks.length || this.stopped) {
      this.previous = this.totalUsage();
      this.usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    }
    this.messages++;
    this.byIndex.clear();
    this.stopped = false;
    this.stopReason = undefined;
    this.readUsage(usage);
  }

  /** message_start carries the input side, message_delta the output (and, lately, final input) counts: the latest wins. */
  private readUsage(usage: AnthropicWireUsage | null | undefined): void {
    if (!usage) return;
    for (const key of ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"] as const) {
      const value = usage[key];
      if (typeof value === "number") this.usage[key] = value;
    }
  }

  private startBlock(index: number | null | undefined, start: WireContentBlock | null | undefined): ModelEvent[] {
    const content = start ?? { type: "text" };
    const block: Block = { message: 0, index: 0, type: content.type, text: "", signature: content.signature ?? "", json: "", start: content };
    this.add(index, block);
    const initial = content.type === "text" ? content.text : content.type === "thinking" ? content.thinking : undefined;
    if (!initial) return [];
    block.text = initial;
    return [{ type: content.type === "text" ? "text" : "thinking", text: initial }];
  }

  private delta(event: AnthropicWireEvent): ModelEvent[] {
    const delta = event.delta;
    if (!delta) return [];
    let block = typeof event.index === "number" ? this.byIndex.get(event.index) : this.blocks.at(-1);
    // A delta without its content_block_start: a lenient server; infer the block from the delta.
    if (!block) {
      const type = delta.type === "input_json_delta" ? "tool_use" : delta.type === "text_delta" ? "text" : "thinking";
      block = { message: 0, index: 0, type, text: "", signature: "", json: "", start: { type } };
      this.add(event.index, block);
    }
    switch (delta.type) {
      case "text_delta":
        if (!delta.text) return [];
        block.text += delta.text;
        return [{ type: "text", text: delta.text }];
      case "thinking_delta":
        if (!delta.thinking) return [];
        block.text += delta.thinking;
        return [{ type: "thinking", text: delta.thinking }];
      case "signature_delta":
        block.signature += delta.signature ?? "";
        return [];
      case "input_json_delta":
        block.json += delta.partial_json ?? "";
        return [];
      default:
        return [];
    }
  }

  private add(index: number | null | undefined, block: Block): void {
    block.message = this.messages;
    block.index = typeof index === "number" ? index : this.byIndex.size;
    const existing = this.byIndex.get(block.index);
    if (existing) this.blocks.splice(this.blocks.indexOf(existing), 1);
    this.blocks.push(block);
    this.byIndex.set(block.index, block);
  }

  /** By index, not arrival: a server may interleave the deltas of parallel tool uses. */
  private ordered(): Block[] {
    return [...this.blocks].sort((a, b) => a.message - b.message || a.index - b.index);
  }

  /** The arguments exactly as streamed; a block that came whole (no deltas) carries them in `input`. */
  private rawInput(block: Block): string {
    if (block.json) return block.json;
    const input = block.start.input;
    if (input && typeof input === "object" && Object.keys(input).length > 0) return JSON.stringify(input);
    return "";
  }

  private input(block: Block): unknown {
    const raw = this.rawInput(block);
    // Too deep to send back (see parseArguments): the call was refused, its input is not repeated.
    if (jsonDepth(raw) > MAX_ARGUMENT_DEPTH) return {};
    try {
      return raw ? (JSON.parse(raw) as unknown) : {};
    } catch {
      return {};
    }
  }
}
