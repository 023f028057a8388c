import type { ContentBlockParam, MessageParam, TextBlockParam, Tool } from "@anthropic-ai/sdk/resources/messages";

/**
 * Prompt-cache breakpoints for an Anthropic request (at most four are allowed). The cached prefix
 * runs tools → system → messages, so:
 * 1. the last tool: sub-agents of one kind share their tools even though each system prompt names
 *    its own agent id;
 * 2. the last system block: each step of an agent re-reads its tools + system prompt;
 * 3. the last message: this step's whole prompt is written, so the next step (this prompt plus one
 *    assistant turn and its tool results) reads it back;
 * 4. the user turn before the last assistant turn: the point the previous step wrote, read back
 *    even when this step added more blocks than the API looks back over (20) — parallel tool calls.
 * A breakpoint only marks a position; the bytes before it are unchanged, so the prefix stays stable.
 */
export function addCacheBreakpoints(request: { system?: TextBlockParam[]; messages: MessageParam[]; tools?: Tool[] }): void {
  const mark = { type: "ephemeral" } as const;
  const lastTool = request.tools?.at(-1);
  if (lastTool) lastTool.cache_control = mark;
  const lastSystem = request.system?.at(-1);
  if (lastSystem) lastSystem.cache_control = mark;

  const { messages } = request;
  const last = messages.length - 1;
  markLastBlock(messages[last]);
  // The previous step's last message: the user turn before the latest assistant turn.
  for (let i = last - 1; i >= 0; i--) {
    if (messages[i]!.role !== "assistant") continue;
    if (i - 1 >= 0 && messages[i - 1]!.role === "user") markLastBlock(messages[i - 1]);
    break;
  }
}

function markLastBlock(message: MessageParam | undefined): void {
  if (!message || typeof message.content === "string" || message.role === "system") return;
  const blocks = message.content as ContentBlockParam[];
  // Thinking blocks cannot carry cache_control; the block before them can.
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i]!;
    if (block.type === "thinking" || block.type === "redacted_thinking") continue;
    (block as { cache_control?: { type: "ephemeral" } | null }).cache_control = { type: "ephemeral" };
    return;
  }
}
