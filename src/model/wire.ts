import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import type { ChatMessage, ToolSpec } from "./model.js";

/** orca's history → OpenAI chat-completions messages. */
export function toWireMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map(toWireMessage);
}

export function toWireMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return { role: "user", content: message.content };
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
    case "assistant": {
      if (message.toolCalls.length === 0) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        // Several endpoints reject an empty string next to tool calls; null is what OpenAI itself sends.
        content: message.content === "" ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: "function" as const,
          // Exactly what the model sent, even when it was not valid JSON: the model sees its own
          // mistake next to the error result that quotes it.
          function: { name: call.name, arguments: call.raw },
        })),
      };
    }
  }
}

/** Tool specs → OpenAI function tools; undefined when there are none, so `tools` is omitted. */
export function toWireTools(tools: ToolSpec[]): ChatCompletionFunctionTool[] | undefined {
  if (tools.length === 0) return undefined;
  return tools.map(toWireTool);
}

export function toWireTool(tool: ToolSpec): ChatCompletionFunctionTool {
  return { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}
