import type { z } from "zod";
import type { EmitFn } from "../../events/types.js";
import type { Approver, PermissionAnswer, PermissionRequest } from "../approver.js";
import { formatValidationError } from "../registry.js";
import type { SandboxRequest } from "../sandbox/types.js";
import type { PermissionSubject } from "../tool.js";
import type { HookCaller, StopRun, ToolHooks } from "../tool-hooks.js";
import type { Workspace } from "../workspace.js";
import { CancelScope } from "../../util/cancel-scope.js";
import { raceAbort } from "../../util/race-abort.js";
import { Cancelled } from "../../util/errors.js";
import { errorLine } from "../../util/text.js";
import type { DecidedBy, PermissionCheck, PermissionDecision } from "./engine.js";
import { allowedBy, exactRule, parseRule, type Rule } from "./rules.js";
import { saveRules } from "./save-rule.js";
import { parseRuleList, suggestedRule } from "./suggest.js";

/**
 * The asking half of the permission engine: PermissionRequest hooks, the approver (a person or
 * the headless policy), the session's "always" answers and the asks waiting for one, and the
 * permission_decided events, each tied to the exact call it was asked for.
 */

export interface Ask {
  call: PermissionCheck;
  subject: PermissionSubject;
  /** What asks: `ask: bash(npm *)`, `mode:default`, `protected path: …`. */
  rule: string;
  signal: AbortSignal;
  /** For a command: where it runs if allowed. */
  sandbox?: SandboxRequest;
  /** Only a person may answer (leaving the sandbox): no PermissionRequest hook, no --yes. */
  personOnly?: boolean;
  /** "Always" covers this exact call only (a protected path: only an "always" for that very path quiets it). */
  exactOnly?: boolean;
  /**
   * A session rule answers this question (the engine asked after finding none): another call's
   * "always" may release it while it waits. Unset: only the person answers it — leaving the
   * sandbox, a protected path, a hook's ask, a deny rule that may apply.
   */
  releasable?: boolean;
}

interface PendingAsk {
  tool: string;
  subject: PermissionSubject;
  scope: CancelScope;
  releasable: boolean;
  releasedBy?: string;
}

type Recheck = (call: PermissionCheck, input: Record<string, unknown>, hookRule: string, signal: AbortSignal) => Promise<PermissionDecision>;

export class Asker {
  /** "always" answers and allowAlways(): every agent of the session shares them. */
  readonly session: Rule[] = [];
  /** Where each session rule came from, for /permissions. */
  readonly origins = new WeakMap<Rule, string>();
  /** Asks waiting for an answer; an "always" for one releases the others it covers. */
  private readonly pending = new Set<PendingAsk>();

  constructor(
    private readonly deps: {
      approver: Approver;
      emit: EmitFn;
      workspace: Workspace;
      hooks?: ToolHooks;
      stopRun?: StopRun;
      /** A PermissionRequest hook allowed another input: the engine judges that call. */
      recheck: Recheck;
    },
  ) {}

  remember(rule: Rule, origin = "session"): void {
    this.rememberAll([rule], origin);
  }

  /** Session rules added together: the waiting asks they cover, together, are released. */
  rememberAll(rules: readonly Rule[], origin = "session"): void {
    for (const rule of rules) this.origins.set(rule, origin);
    this.session.push(...rules);
    this.releasePending();
  }

  /** Removes every session rule written `text`; how many went. */
  forget(text: string): number {
    let removed = 0;
    for (let i = this.session.length - 1; i >= 0; i--) {
      if (this.session[i]!.text !== text) continue;
      this.session.splice(i, 1);
      removed++;
    }
    return removed;
  }

  /**
   * What an "always" saves: the rule(s) the person edited, else the suggestion. Leaving the sandbox
   * is only ever this exact call, and a rule that does not parse falls back to it (said in the log).
   */
  private alwaysRules(call: PermissionCheck, subject: PermissionSubject, edited: string | undefined, exactOnly?: boolean): Rule[] {
    const exact = exactRule(call.tool.name, subject);
    if (exactOnly) return [exact];
    const text = edited?.trim() || suggestedRule(call.tool.name, subject).text;
    if (text === exact.text) return [exact];
    try {
      return parseRuleList(text).map((t) => parseRule(t));
    } catch (error) {
      this.deps.emit({ type: "error", agentId: call.agentId, where: "permissions", message: `"always" kept only this exact call: ${errorLine(error)}` });
      return [exact];
    }
  }

  /**
   * An "always" for this project or the user: saved to that config file too, if the rules are the
   * ones suggested (never a call leaving the sandbox or a protected path's exact rule). Whatever
   * the outcome, the rules already apply to this session; a refusal is one line in the log.
   */
  private persist(call: PermissionCheck, subject: PermissionSubject, scope: "project" | "user", rules: readonly Rule[], exactOnly?: boolean): void {
    try {
      if (exactOnly) throw new Error("a call leaving the sandbox or on a protected path is approved for this session only");
      saveRules(scope, rules.map((r) => r.text), parseRuleList(suggestedRule(call.tool.name, subject).text), this.deps.workspace.root);
    } catch (error) {
      this.deps.emit({ type: "error", agentId: call.agentId, where: "permissions", message: `"always" kept for this session only: ${errorLine(error)}` });
    }
  }

  /** Waiting asks that a session rule now covers are withdrawn from the approver and allowed. */
  private releasePending(): void {
    for (const pending of this.pending) {
      if (pending.releasedBy || !pending.releasable) continue;
      const rules = allowedBy(this.session, pending.tool, pending.subject);
      if (!rules) continue;
      pending.releasedBy = rules.map((r) => r.text).join(" + ");
      pending.scope.cancel(new Cancelled("allowed by a session rule"));
    }
  }

  /** A question is due: a PermissionRequest hook may answer it, else the approver is asked. */
  async ask(a: Ask): Promise<PermissionDecision> {
    const hooks = this.deps.hooks;
    if (a.personOnly || !hooks?.has("PermissionRequest")) return this.askApprover(a);
    const { call, signal } = a;
    const answer = await hooks.permissionRequest(callerOf(call), { id: call.callId, name: call.tool.name, args: call.args }, { signal });
    if (signal.aborted) return this.denied(call, "user", a.rule, "cancelled");
    if (answer.interrupt) this.deps.stopRun?.(call.agentId, `a PermissionRequest hook denied ${call.tool.name} and stopped the run${answer.message ? `: ${answer.message}` : ""}`);
    const hookRule = answer.rule ?? "hook PermissionRequest";
    // The facade has recorded a deny, and an allow that keeps the input, as permission_decided.
    if (answer.behavior === "deny") return { allowed: false, by: "hook", rule: hookRule, reason: `denied by a PermissionRequest hook${answer.message ? `: ${answer.message}` : ""}` };
    if (answer.behavior !== "allow") return this.askApprover(a);
    if (!answer.updatedInput) return { allowed: true, by: "hook", rule: hookRule, ...(a.sandbox ? { sandbox: a.sandbox } : {}) };
    return this.deps.recheck(call, answer.updatedInput, hookRule, signal);
  }

  async askApprover(a: Ask): Promise<PermissionDecision> {
    const { call, subject, rule, signal } = a;
    const preview = await this.preview(call);
    if (signal.aborted) return this.denied(call, "user", rule, "cancelled");
    this.deps.emit({ type: "permission_requested", agentId: call.agentId, parentId: call.parentId, callId: call.callId, tool: call.tool.name, args: call.args, rule });
    const approver = this.deps.approver;
    const by: DecidedBy = approver.decidedBy ?? "user";
    // A person is about to be asked: Notification hooks (a desktop ping…) run beside the dialog.
    const hooks = this.deps.hooks;
    if (by === "user" && hooks?.has("Notification")) {
      void hooks.notification(callerOf(call), { message: `orca needs your permission to use ${call.tool.name}`, title: "Permission needed", type: "permission_prompt" });
    }
    let answer: PermissionAnswer | "cancelled";
    const pending: PendingAsk = { tool: call.tool.name, subject, scope: new CancelScope(signal), releasable: a.releasable === true && !a.personOnly && !a.exactOnly };
    this.pending.add(pending);
    try {
      const request = { callId: call.callId, agentId: call.agentId, agentName: call.agentName, tool: call.tool.name, args: call.args, rule, preview, always: alwaysOffer(call.tool.name, subject, a.personOnly || a.exactOnly), ...(a.personOnly ? { outsideSandbox: true as const } : {}) };
      answer = await raceAbort(approver.request(request, pending.scope.signal), pending.scope.signal, () => "cancelled" as const);
    } catch (error) {
      if (pending.releasedBy) return this.allowed(call, "rule", pending.releasedBy, a.sandbox);
      if (signal.aborted) return this.denied(call, by, rule, "cancelled");
      return this.denied(call, by, rule, `denied: the approver failed: ${errorLine(error)}`);
    } finally {
      this.pending.delete(pending);
      pending.scope.dispose();
    }
    // Another agent's identical call was answered "always" while this one waited in the queue.
    if (pending.releasedBy) return this.allowed(call, "rule", pending.releasedBy, a.sandbox);
    if (answer === "cancelled") return this.denied(call, by, rule, "cancelled");
    switch (answer.decision) {
      case "once":
        return this.allowed(call, by, rule, a.sandbox);
      case "always": {
        const rules = this.alwaysRules(call, subject, answer.rule, a.personOnly || a.exactOnly);
        this.rememberAll(rules, `dialog (${call.agentId})`);
        if (answer.scope === "project" || answer.scope === "user") this.persist(call, subject, answer.scope, rules, a.personOnly || a.exactOnly);
        return this.allowed(call, by, rule, a.sandbox, "always");
      }
      case "deny": {
        const why = answer.reason?.trim();
        const reason = by === "headless" ? `denied: ${why ?? `headless run without --yes (rule ${rule})`}` : `denied by user${why ? `: ${why}` : ""}`;
        return this.denied(call, by, rule, reason);
      }
    }
  }

  /** The tool's own preview of the change; a preview that fails only leaves the dialog without one. */
  private async preview(call: PermissionCheck): Promise<string | undefined> {
    try {
      return await call.tool.preview?.(call.args, call.workspace ?? this.deps.workspace);
    } catch {
      return undefined;
    }
  }

  allowed(call: PermissionCheck, by: DecidedBy, rule: string, sandbox?: SandboxRequest, scope: "once" | "always" = "once"): PermissionDecision {
    this.record(call, { decision: "allow", scope, by, rule, sandboxed: sandbox !== undefined && sandbox !== "none", ...(sandbox ? { sandbox } : {}) });
    return { allowed: true, by, rule, ...(sandbox ? { sandbox } : {}) };
  }

  denied(call: PermissionCheck, by: DecidedBy, rule: string, reason: string): PermissionDecision {
    this.record(call, { decision: "deny", scope: "once", by, rule, reason, sandboxed: false });
    return { allowed: false, by, rule, reason };
  }

  invalidRewrite(call: PermissionCheck, hookRule: string, error: z.ZodError): PermissionDecision {
    return this.denied(call, "hook", hookRule, `a PermissionRequest hook rewrote the input into an invalid one: ${formatValidationError(call.tool.name, error)}`);
  }

  /** Every decision is an event tied to the exact call it was asked for. */
  private record(
    call: PermissionCheck,
    decision: { decision: "allow" | "deny"; scope: "once" | "always"; by: DecidedBy; rule: string; reason?: string; sandboxed: boolean; sandbox?: SandboxRequest },
  ): void {
    this.deps.emit({ type: "permission_decided", agentId: call.agentId, parentId: call.parentId, callId: call.callId, tool: call.tool.name, ...decision });
  }
}

function callerOf(call: PermissionCheck): HookCaller {
  return { id: call.agentId, type: call.agentName, parentId: call.parentId };
}

/** The "always" the dialog offers: the rule a person means, and the exact one beside it. */
function alwaysOffer(toolName: string, subject: PermissionSubject, exactOnly?: boolean): NonNullable<PermissionRequest["always"]> {
  const exact = exactRule(toolName, subject).text;
  if (exactOnly) return { rule: exact, broader: false };
  const suggested = suggestedRule(toolName, subject);
  return { rule: suggested.text, broader: subject.kind === "none", ...(suggested.prefix ? { exact } : {}) };
}
