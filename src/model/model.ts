import type { ThinkingBlock, ToolCall } from "../events/types.js";
import type { Price } from "./pricing.js";

export type { ThinkingBlock };

/**
 * A message of an agent's history, independent of any provider's wire format. `thinking` is the
 * model's reasoning as its provider needs it back (Anthropic refuses a tool round whose thinking
 * was dropped); providers that have no use for it ignore it.
 */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls: ToolCall[]; thinking?: ThinkingBlock[] }
  | { role: "tool"; toolCallId: string; content: string };

/** A tool as offered to the model. `parameters` is a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  model: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  temperature?: number;
  maxOutputTokens?: number;
}

/** One request's token usage, provider-neutral. */
export interface RequestUsage {
  /** Every prompt token: fresh, read from the cache and written to it. */
  input: number;
  output: number;
  /** Prompt tokens read from the cache. */
  cached: number;
  /** Prompt tokens written to the cache (Anthropic bills them above the input rate). */
  cacheWrite?: number;
  /** USD, when the model's price is known. */
  cost?: number;
}

export type ModelEvent =
  | { type: "text"; text: string }
  /** Reasoning as it streams, for display. */
  | { type: "thinking"; text: string }
  /** A finished reasoning block as the history keeps it (with its signature). */
  | { type: "thinking_block"; block: ThinkingBlock }
  | ({ type: "tool_call" } & ToolCall)
  | ({ type: "usage" } & RequestUsage)
  | { type: "done"; finishReason: string };

export interface Model {
  /** The model name sent to the endpoint. */
  readonly name: string;
  /** USD per million tokens; undefined when orca knows no price for it (its cost is then unknown, never $0). */
  readonly price?: Price;
  /**
   * Streams one completion. Ends with exactly one `done` event, or throws a ModelError.
   * When `signal` aborts, it throws an AbortError-like ModelError with kind "aborted".
   */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
  /**
   * Loads what the first request needs (the SDK client, Node's HTTP stack) without sending
   * anything, so that it can happen while orca waits on something else. Never throws.
   */
  prepare?(): Promise<void>;
  /** Opens the connection to the model's endpoint, so that its first request need not (preconnect.ts). */
  preconnect?(): void;
}
