import type { HookEventName } from "../config/hooks.js";
import { firstLine, type HookVerdict } from "./output.js";

/**
 * What several hooks of one occurrence decide together, event by event, as Claude Code documents
 * it: on PreToolUse deny beats defer beats ask beats allow; any block blocks; every
 * additionalContext is kept; `continue: false` from any hook stops the agent. Pure.
 */

/** Claude Code's cap on a hook's context strings; beyond it orca cuts and says so. */
export const CONTEXT_LIMIT = 10_000;

export type HookDecision = "allow" | "deny" | "ask" | "block" | "stop" | "none";

/** What one hook decided, for its hook_finished event. */
export function decisionOf(event: HookEventName, verdict: HookVerdict): { decision: HookDecision; message?: string } {
  if (verdict.outcome !== "ok") return { decision: "none", message: verdict.warning };
  const out = verdict.output;
  if (out?.continue === false) return { decision: "stop", message: out.stopReason };
  switch (event) {
    case "PreToolUse": {
      const d = preToolDecision(verdict);
      return d.decision === "none" || d.decision === "defer" ? { decision: "none" } : { decision: d.decision, message: d.reason };
    }
    case "PermissionRequest": {
      const answer = out?.hookSpecificOutput?.decision;
      return answer ? { decision: answer.behavior, message: answer.message } : { decision: "none" };
    }
    case "UserPromptSubmit":
    case "PostToolUse":
    case "PostToolUseFailure":
    case "Stop":
    case "SubagentStop":
    case "PreCompact":
      return blocking(verdict) ? { decision: "block", message: blockReason(verdict) } : { decision: "none" };
    default:
      // Events that cannot block: exit 2's stderr is for the user only.
      return verdict.exit2 ? { decision: "none", message: firstLine(verdict.stderr) || undefined } : { decision: "none" };
  }
}

type PreTool = "allow" | "deny" | "ask" | "defer" | "none";
const PRECEDENCE: readonly PreTool[] = ["deny", "defer", "ask", "allow"];

function preToolDecision(v: HookVerdict): { decision: PreTool; reason?: string } {
  if (v.outcome !== "ok") return { decision: "none" };
  const out = v.output;
  const specific = out?.hookSpecificOutput;
  // Exit 2 blocks whatever the JSON says: even a permissionDecision of allow cannot override it.
  if (v.exit2) {
    const jsonReason = specific?.permissionDecision === "deny" ? specific.permissionDecisionReason : out?.decision === "block" ? out.reason : undefined;
    return { decision: "deny", reason: jsonReason || v.stderr.trim() || "blocked by a PreToolUse hook" };
  }
  if (specific?.permissionDecision) return { decision: specific.permissionDecision, reason: specific.permissionDecisionReason };
  if (out?.decision === "block") return { decision: "deny", reason: out.reason };
  if (out?.decision === "approve") return { decision: "allow", reason: out.reason };
  return { decision: "none" };
}

export interface PreToolUseResult {
  /** Undefined: no hook decided (or one deferred, which orca does not honour): the normal flow. */
  decision?: "allow" | "deny" | "ask";
  /** Deny: for the model. Allow and ask: for the user. */
  reason?: string;
  /** The hook whose answer decided, by index in the verdicts. */
  decidedBy?: number;
  /** Replaces the whole input (in Claude Code's shape; the facade folds it back into orca's). */
  updatedInput?: Record<string, unknown>;
  additionalContext: string[];
  stop?: StopRequest;
}

export interface StopRequest {
  reason: string;
}

export function aggregatePreToolUse(verdicts: readonly HookVerdict[]): PreToolUseResult {
  const decisions = verdicts.map(preToolDecision);
  const winner = PRECEDENCE.find((d) => decisions.some((x) => x.decision === d)) ?? "none";
  const result: PreToolUseResult = { additionalContext: [], stop: stopOf(verdicts) };
  // defer is for `claude -p` run under an SDK that resumes the call later; orca has no such
  // caller, so like Claude Code's interactive mode it ignores the hooks' answer: the normal flow.
  if (winner === "defer") return result;
  result.additionalContext = contexts(verdicts);
  if (winner !== "none") {
    result.decision = winner;
    result.decidedBy = decisions.findIndex((d) => d.decision === winner);
    const reasons = decisions.filter((d) => d.decision === winner && d.reason).map((d) => d.reason!);
    result.reason = winner === "deny" ? reasons.join("\n") || "denied by a PreToolUse hook" : reasons[0];
  }
  if (winner === "deny") return result;
  // The first input rewrite (in configuration order) of a hook the winner did not overrule.
  const updated = verdicts.findIndex((v, i) => v.output?.hookSpecificOutput?.updatedInput && (decisions[i]!.decision === winner || decisions[i]!.decision === "none"));
  if (updated >= 0) result.updatedInput = verdicts[updated]!.output!.hookSpecificOutput!.updatedInput;
  return result;
}

export interface PermissionRequestResult {
  behavior?: "allow" | "deny";
  decidedBy?: number;
  /** allow only. */
  updatedInput?: Record<string, unknown>;
  /** deny only: tells the model why. */
  message?: string;
  /** deny only: stop the agent too. */
  interrupt: boolean;
}

/** Exit 2 is not honoured here (Claude Code's rule): only a `decision` object answers. Deny beats allow. */
export function aggregatePermissionRequest(verdicts: readonly HookVerdict[]): PermissionRequestResult {
  const answers = verdicts.map((v) => (v.outcome === "ok" ? v.output?.hookSpecificOutput?.decision : undefined));
  for (const behavior of ["deny", "allow"] as const) {
    const index = answers.findIndex((a) => a?.behavior === behavior);
    if (index < 0) continue;
    const answer = answers[index]!;
    if (behavior === "deny") {
      const messages = answers.filter((a) => a?.behavior === "deny" && a.message).map((a) => a!.message!);
      return { behavior, decidedBy: index, message: messages.join("\n") || undefined, interrupt: answers.some((a) => a?.behavior === "deny" && a.interrupt === true) };
    }
    return { behavior, decidedBy: index, updatedInput: answer.updatedInput, interrupt: false };
  }
  return { interrupt: false };
}

export interface BlockResult {
  /** A hook blocked: exit 2 or `decision: "block"`. */
  block: boolean;
  /** The reasons of every blocking hook (JSON reason, else stderr), in order. */
  reasons: string[];
  /** additionalContext, and for UserPromptSubmit the plain stdout too. */
  additionalContext: string[];
  stop?: StopRequest;
}

/**
 * UserPromptSubmit, PostToolUse(Failure), Stop, SubagentStop, PreCompact: any block blocks. What
 * the block does is the caller's: erase the prompt, put the reason next to the tool result, keep
 * the agent going with the reason as its next message, skip the compaction.
 */
export function aggregateBlocking(event: HookEventName, verdicts: readonly HookVerdict[]): BlockResult {
  const blockers = verdicts.filter((v) => v.outcome === "ok" && blocking(v));
  return {
    block: blockers.length > 0,
    reasons: blockers.map(blockReason).map(cap),
    additionalContext: contexts(verdicts, event === "UserPromptSubmit"),
    stop: event === "PreCompact" ? undefined : stopOf(verdicts),
  };
}

/** SessionStart and SubagentStart: context only (SessionStart's plain stdout counts as context). */
export function aggregateContext(event: HookEventName, verdicts: readonly HookVerdict[]): { additionalContext: string[] } {
  return { additionalContext: contexts(verdicts, event === "SessionStart") };
}

function blocking(v: HookVerdict): boolean {
  return v.exit2 || v.output?.decision === "block";
}

function blockReason(v: HookVerdict): string {
  if (v.output?.decision === "block" && v.output.reason) return v.output.reason;
  return v.stderr.trim() || v.output?.reason || "blocked by a hook";
}

function contexts(verdicts: readonly HookVerdict[], plainText = false): string[] {
  const found: string[] = [];
  for (const v of verdicts) {
    if (v.outcome !== "ok") continue;
    const context = v.output?.hookSpecificOutput?.additionalContext;
    if (context) found.push(cap(context));
    if (plainText && v.text) found.push(cap(v.text));
  }
  return found;
}

function stopOf(verdicts: readonly HookVerdict[]): StopRequest | undefined {
  const stopping = verdicts.filter((v) => v.outcome === "ok" && v.output?.continue === false);
  if (!stopping.length) return undefined;
  return { reason: stopping.map((v) => v.output?.stopReason).filter(Boolean).join("\n") || "stopped by a hook" };
}

export function cap(text: string): string {
  return text.length <= CONTEXT_LIMIT ? text : `${text.slice(0, CONTEXT_LIMIT)}\n… (${text.length - CONTEXT_LIMIT} more characters cut)`;
}
