import type { ToolCall, Usage } from "../events/types.js";

/** A message of an agent's history, independent of any provider's wire format. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls: ToolCall[] }
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

export type ModelEvent =
  | { type: "text"; text: string }
  | { type: "thinking"; text: string }
  | ({ type: "tool_call" } & ToolCall)
  | ({ type: "usage" } & Omit<Usage, "cost">)
  | { type: "done"; finishReason: string };

export interface Model {
  /** The model name sent to the endpoint. */
  readonly name: string;
  /**
   * Streams one completion. Ends with exactly one `done` event, or throws a ModelError.
   * When `signal` aborts, it throws an AbortError-like ModelError with kind "aborted".
   */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}

export type ModelErrorKind =
  | "rate_limit"
  | "server"
  | "auth"
  | "bad_request"
  | "not_found"
  | "connection"
  | "timeout"
  | "truncated"
  | "aborted";

/** Every failure of a model request, classified, with a message fit for one line of UI. */
export class ModelError extends Error {
  override readonly name = "ModelError";
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
