import { lastMessage, type RecordedRequest, type ScriptedReply } from "./scripted.js";

/**
 * The demo after its scenario, when the person reviews it (/review, R): the coordinator passes a
 * review of a sub-agent that has ended back to it (delegate resume, as a real model is asked to),
 * and the sub-agent says it read it. Without this the demo's coordinator could only answer that it
 * replays its scenario, and the review view's "send" would end nowhere. Undefined: not a review turn.
 */

/** The line review-commands.ts adds when it asks the coordinator to resume an agent. */
const FOR_COORDINATOR = /\n\n\(For the coordinator: this is for (\S+)\. Resume it with delegate/;
const REVIEW = /^Review: the person (?:rejected|commented)/;

export function reviewReply(agent: string, request: RecordedRequest): ScriptedReply | undefined {
  const last = lastMessage(request);
  const text = String(last?.content ?? "");
  if (agent !== "coordinator") {
    return last?.role === "user" && REVIEW.test(text)
      ? { text: "I read your review: the rejected change is back as it was before, and I leave it so (this scripted demo cannot write a new version)." }
      : undefined;
  }
  const ask = last?.role === "user" ? FOR_COORDINATOR.exec(text) : null;
  if (ask) {
    const task = text.slice(0, ask.index);
    return { text: `Passing your review to ${ask[1]}.`, toolCalls: [{ name: "delegate", args: { resume: ask[1], task } }] };
  }
  if (last?.role !== "tool") return undefined;
  const asked = request.body.messages.findLast((m) => m.role === "assistant")?.tool_calls?.find((c) => c.function.name === "delegate");
  const resumed = asked ? resumeOf(asked.function.arguments) : undefined;
  return resumed ? { text: `${resumed} has your review and answered. Nothing else changed.` } : undefined;
}

function resumeOf(args: string): string | undefined {
  try {
    const resume = (JSON.parse(args) as { resume?: unknown }).resume;
    return typeof resume === "string" ? resume : undefined;
  } catch {
    return undefined;
  }
}
