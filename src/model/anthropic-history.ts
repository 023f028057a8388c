import type {
  ContentBlockParam,
  MessageParam,
  RedactedThinkingBlockParam,
  TextBlockParam,
  ThinkingBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import type { ToolCall } from "../events/types.js";
import type { ChatMessage, ThinkingBlock, ToolSpec } from "./model.js";

/**
 * orca's provider-neutral history ↔ the Anthropic Messages wire format. The rules the API sets:
 * the system prompt is a top-level `system`, roles alternate, every tool_result of an assistant
 * turn sits in the one user turn right after it (results first), text blocks are never empty,
 * and signed thinking goes back unchanged, in place, to the model that wrote it.
 *
 * Lossless both ways in everything the model reads: wire → orca → wire gives the same request, and
 * orca → wire → orca the same messages (tool-call arguments re-serialised from their parsed value).
 */

export interface AnthropicConversation {
  system?: TextBlockParam[];
  messages: MessageParam[];
}

type AssistantBlock = TextBlockParam | ToolUseBlockParam | ThinkingBlockParam | RedactedThinkingBlockParam;
type UserBlock = TextBlockParam | ToolResultBlockParam;

/** The API refuses an empty text block; a message with nothing in it says so instead. */
const EMPTY_TEXT = "(empty)";

/** orca's history → `system` + `messages` for a request to `model`. */
export function toAnthropicMessages(history: ChatMessage[], model: string): AnthropicConversation {
  const system: TextBlockParam[] = [];
  const messages: MessageParam[] = [];
  const append = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    const last = messages.at(-1);
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };

  for (const message of history) {
    switch (message.role) {
      case "system":
        // Only a leading system prompt is a system prompt; one later in a history is a note to the model.
        if (messages.length === 0) {
          if (message.content) system.push({ type: "text", text: message.content });
        } else {
          append("user", [{ type: "text", text: message.content || EMPTY_TEXT }]);
        }
        break;
      case "user":
        append("user", [{ type: "text", text: message.content || EMPTY_TEXT }]);
        break;
      case "tool": {
        const result: ToolResultBlockParam = { type: "tool_result", tool_use_id: wireId(message.toolCallId), content: message.content };
        const last = messages.at(-1);
        if (last?.role === "user" && Array.isArray(last.content)) {
          // Results lead their user turn: put this one after the results already there.
          const blocks = last.content;
          const firstOther = blocks.findIndex((b) => b.type !== "tool_result");
          blocks.splice(firstOther < 0 ? blocks.length : firstOther, 0, result);
        } else {
          append("user", [result]);
        }
        break;
      }
      case "assistant": {
        const blocks = assistantBlocks(message, model);
        if (blocks.length) append("assistant", blocks);
        break;
      }
    }
  }
  return { ...(system.length ? { system } : {}), messages };
}

function assistantBlocks(message: Extract<ChatMessage, { role: "assistant" }>, model: string): AssistantBlock[] {
  const calls = message.toolCalls;
  const thinking = (message.thinking ?? []).filter((block) => sendable(block, model));
  const thinkingAt = (position: number) =>
    thinking.filter((b) => Math.min(b.afterToolCalls ?? 0, calls.length) === position).map(thinkingParam);
  const blocks: AssistantBlock[] = [...thinkingAt(0)];
  if (message.content) blocks.push({ type: "text", text: message.content });
  calls.forEach((call, i) => {
    if (i > 0) blocks.push(...thinkingAt(i));
    blocks.push(toolUse(call));
  });
  if (calls.length > 0) blocks.push(...thinkingAt(calls.length));
  return blocks;
}

/** Thinking is tied to the model that wrote it, and the API accepts it back only signed. */
function sendable(block: ThinkingBlock, model: string): boolean {
  if (block.model !== undefined && block.model !== model) return false;
  return block.redacted !== undefined ? block.redacted !== "" : Boolean(block.signature);
}

function thinkingParam(block: ThinkingBlock): ThinkingBlockParam | RedactedThinkingBlockParam {
  if (block.redacted !== undefined) return { type: "redacted_thinking", data: block.redacted };
  return { type: "thinking", thinking: block.text, signature: block.signature ?? "" };
}

function toolUse(call: ToolCall): ToolUseBlockParam {
  // `input` must be an object. A call whose arguments did not parse is answered with an error that
  // quotes the raw text, so the model still sees what it sent; the wire can only carry an object.
  const input = isPlainObject(call.args) ? call.args : {};
  return { type: "tool_use", id: wireId(call.id), name: call.name, input };
}

/**
 * Tool-use ids must match ^[a-zA-Z0-9_-]+$. Ids from other providers (a session resumed from an
 * OpenAI-compatible server) may not; the same id always maps to the same wire id, so a call and its
 * result still pair up, and the prefix stays byte-stable for the cache.
 */
export function wireId(id: string): string {
  const safe = id.replace(/[^A-Za-z0-9_-]/g, "_");
  return safe || "toolu_orca";
}

/** Tool specs → Anthropic tools; undefined when there are none, so `tools` is omitted. */
export function toAnthropicTools(tools: ToolSpec[]): Tool[] | undefined {
  if (tools.length === 0) return undefined;
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { type: "object", ...tool.parameters } as Tool.InputSchema,
  }));
}

/** A request's `system` + `messages` → orca's history (the scripted server and tests read requests so). */
export function fromAnthropicMessages(conversation: { system?: string | TextBlockParam[]; messages: MessageParam[] }): ChatMessage[] {
  const history: ChatMessage[] = [];
  const { system } = conversation;
  if (typeof system === "string") history.push({ role: "system", content: system });
  else for (const block of system ?? []) history.push({ role: "system", content: block.text });

  for (const message of conversation.messages) {
    if (message.role === "system") {
      const content = message.content;
      history.push({ role: "system", content: typeof content === "string" ? content : content.map((b) => b.text).join("") });
      continue;
    }
    if (typeof message.content === "string") {
      history.push(message.role === "user" ? { role: "user", content: message.content } : { role: "assistant", content: message.content, toolCalls: [] });
      continue;
    }
    if (message.role === "user") {
      for (const block of message.content as UserBlock[]) {
        if (block.type === "tool_result") history.push({ role: "tool", toolCallId: block.tool_use_id, content: resultText(block.content) });
        else if (block.type === "text") history.push({ role: "user", content: block.text });
      }
      continue;
    }
    let content = "";
    const toolCalls: ToolCall[] = [];
    const thinking: ThinkingBlock[] = [];
    for (const block of message.content as AssistantBlock[]) {
      const position = toolCalls.length ? { afterToolCalls: toolCalls.length } : {};
      if (block.type === "text") content += block.text;
      else if (block.type === "tool_use") {
        const raw = JSON.stringify(block.input ?? {});
        toolCalls.push({ id: block.id, name: block.name, raw, args: JSON.parse(raw) as unknown });
      } else if (block.type === "thinking") thinking.push({ text: block.thinking, signature: block.signature, ...position });
      else if (block.type === "redacted_thinking") thinking.push({ text: "", redacted: block.data, ...position });
    }
    history.push({ role: "assistant", content, toolCalls, ...(thinking.length ? { thinking } : {}) });
  }
  return history;
}

function resultText(content: ToolResultBlockParam["content"]): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
