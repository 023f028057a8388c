import type { PermissionMode } from "../../config/schema.js";
import type { EmitFn } from "../../events/types.js";
import type { Approver, PermissionAnswer } from "../approver.js";
import type { AnyTool, PermissionSubject } from "../tool.js";
import type { Workspace } from "../workspace.js";
import { raceAbort } from "../../util/race-abort.js";
import { CancelScope } from "../../util/cancel-scope.js";
import { Cancelled } from "../../util/errors.js";
import { errorLine } from "../../util/text.js";
import { formatValidationError } from "../registry.js";
import type { HookCaller, StopRun, ToolHooks } from "../tool-hooks.js";
import { exactRule, matches, parseRule, type Rule } from "./rules.js";

/**
 * Whether one tool call may run. Order: deny rules, plan mode, bypass mode, this session's
 * "always" approvals, ask rules, allow rules (config, then a skill's allowed-tools), then the mode.
 * Session approvals come before ask rules because an "always" given in answer to an ask rule must
 * stop that rule from asking again; plan mode comes before them because nothing widens plan mode.
 *
 * Hooks take part as Claude Code's do: a PreToolUse `allow` answers only the mode's question (deny
 * and ask rules still apply), its `ask` brings the question even where nothing would ask; a
 * PermissionRequest hook may answer a question for the user, just before the user is asked.
 */

export type DecidedBy = "rule" | "mode" | "user" | "headless" | "skill" | "hook";

export type PermissionDecision =
  /** `args`: the input to run when a PermissionRequest hook rewrote it (already validated). */
  | { allowed: true; by: DecidedBy; rule: string; args?: unknown }
  | { allowed: false; by: DecidedBy; rule: string; reason: string };

/** A PreToolUse hook's answer, for the check that follows it (its deny never gets here). */
export interface PreToolHookAnswer {
  decision: "allow" | "ask";
  /** `hook PreToolUse: ./check.sh` */
  rule: string;
  reason?: string;
}

export interface PermissionCheck {
  callId: string;
  agentId: string;
  parentId?: string;
  agentName: string;
  tool: AnyTool;
  args: unknown;
  /** The calling agent's own workspace (a git worktree), when it is not the session's. */
  workspace?: Workspace;
}

export interface PermissionsOptions {
  mode: PermissionMode;
  allow: string[];
  ask: string[];
  deny: string[];
  approver: Approver;
  emit: EmitFn;
  workspace: Workspace;
  /** PermissionRequest and Notification hooks. */
  hooks?: ToolHooks;
  /** A PermissionRequest hook's `interrupt`: the run ends. */
  stopRun?: StopRun;
}

type Subject = PermissionSubject;

interface PendingAsk {
  tool: string;
  subject: Subject;
  scope: CancelScope;
  releasedBy?: string;
}

export class Permissions {
  /** Settable: the dashboard switches modes while a session runs. */
  mode: PermissionMode;
  private readonly allow: Rule[];
  private readonly askRules: Rule[];
  private readonly deny: Rule[];
  /** "always" answers and allowAlways(): every agent of the session shares them. */
  private readonly session: Rule[] = [];
  /** Asks waiting for an answer; an "always" for one releases the others it covers. */
  private readonly pending = new Set<PendingAsk>();
  /** A skill's allowed-tools, for the agent that loaded it only. */
  private readonly skills = new Map<string, Rule[]>();
  private readonly approver: Approver;
  private readonly emit: EmitFn;
  private readonly workspace: Workspace;
  private readonly hooks?: ToolHooks;
  private readonly stopRun?: StopRun;

  constructor(opts: PermissionsOptions) {
    this.hooks = opts.hooks;
    this.stopRun = opts.stopRun;
    this.mode = opts.mode;
    this.allow = opts.allow.map(parseRule);
    this.askRules = opts.ask.map(parseRule);
    this.deny = opts.deny.map(parseRule);
    this.approver = opts.approver;
    this.emit = opts.emit;
    this.workspace = opts.workspace;
  }

  allowAlways(rule: string): void {
    this.session.push(parseRule(rule));
    this.releasePending();
  }

  /** Waiting asks that a session rule now covers are withdrawn from the approver and allowed. */
  private releasePending(): void {
    for (const pending of this.pending) {
      const rule = this.session.find((r) => matches(r, pending.tool, pending.subject, false));
      if (!rule || pending.releasedBy) continue;
      pending.releasedBy = rule.text;
      pending.scope.cancel(new Cancelled("allowed by a session rule"));
    }
  }

  /**
   * A skill's allowed-tools (already mapped to orca rules by the skills loader), for `agentId`
   * only. A malformed entry pre-approves nothing; its one-line error is returned, not thrown, so a
   * sloppy SKILL.md cannot break the call that loaded it.
   */
  preApprove(agentId: string, patterns: string[]): string[] {
    const errors: string[] = [];
    const rules: Rule[] = [];
    for (const pattern of patterns) {
      try {
        rules.push(parseRule(pattern));
      } catch (error) {
        errors.push(errorLine(error));
      }
    }
    const list = this.skills.get(agentId);
    if (list) list.push(...rules);
    else this.skills.set(agentId, rules);
    return errors;
  }

  /**
   * Whether a permission rule (orca's spelling) matches this call the way a deny or ask rule would:
   * a hook handler's `if`. A rule that cannot be read or a call that has no subject matches, so
   * the hook runs (Claude Code's rule when it cannot evaluate one).
   */
  ruleMatches(tool: AnyTool, args: unknown, rule: string): boolean {
    try {
      return matches(parseRule(rule), tool.name, tool.permissionSubject(args, this.workspace), true);
    } catch {
      return true;
    }
  }

  async check(call: PermissionCheck, signal: AbortSignal, hook?: PreToolHookAnswer): Promise<PermissionDecision> {
    const name = call.tool.name;
    let subject: Subject;
    let readOnly: boolean;
    try {
      subject = call.tool.permissionSubject(call.args, call.workspace ?? this.workspace);
      readOnly = call.tool.readOnly(call.args);
    } catch (error) {
      return this.denied(call, "rule", "workspace", errorLine(error));
    }

    const deny = this.deny.find((r) => matches(r, name, subject, true));
    if (deny) return this.denied(call, "rule", `deny: ${deny.text}`, `denied by rule deny: ${deny.text}`);

    if (this.mode === "plan" && !readOnly) {
      return this.denied(call, "mode", "mode:plan", "plan mode: read-only tools only");
    }
    // The hook wants a person to look at this very call, whatever approvals and modes say.
    if (hook?.decision === "ask") return this.ask(call, subject, hook.rule, signal);
    if (this.mode === "bypass") return { allowed: true, by: "mode", rule: "mode:bypass" };

    const approved = this.session.find((r) => matches(r, name, subject, false));
    if (approved) return this.allowed(call, "rule", `allow: ${approved.text}`);

    const ask = this.askRules.find((r) => matches(r, name, subject, true));
    if (ask) return this.ask(call, subject, `ask: ${ask.text}`, signal);

    const allow = this.allow.find((r) => matches(r, name, subject, false));
    if (allow) return this.allowed(call, "rule", `allow: ${allow.text}`);
    const skill = this.skills.get(call.agentId)?.find((r) => matches(r, name, subject, false));
    if (skill) return this.allowed(call, "skill", `skill: ${skill.text}`);
    if (hook?.decision === "allow") return this.allowed(call, "hook", hook.rule);

    const modeRule = `mode:${this.mode}`;
    if (readOnly) return { allowed: true, by: "mode", rule: modeRule };
    if (this.mode === "accept-edits" && subject.kind === "path") return { allowed: true, by: "mode", rule: modeRule };
    return this.ask(call, subject, modeRule, signal);
  }

  /** A question is due: a PermissionRequest hook may answer it, else the approver is asked. */
  private async ask(call: PermissionCheck, subject: Subject, rule: string, signal: AbortSignal): Promise<PermissionDecision> {
    if (!this.hooks?.has("PermissionRequest")) return this.askApprover(call, subject, rule, signal);
    const answer = await this.hooks.permissionRequest(callerOf(call), { id: call.callId, name: call.tool.name, args: call.args }, { signal });
    if (signal.aborted) return this.denied(call, "user", rule, "cancelled");
    if (answer.interrupt) this.stopRun?.(call.agentId, `a PermissionRequest hook denied ${call.tool.name} and stopped the run${answer.message ? `: ${answer.message}` : ""}`);
    const hookRule = answer.rule ?? "hook PermissionRequest";
    // The facade has recorded a deny, and an allow that keeps the input, as permission_decided.
    if (answer.behavior === "deny") return { allowed: false, by: "hook", rule: hookRule, reason: `denied by a PermissionRequest hook${answer.message ? `: ${answer.message}` : ""}` };
    if (answer.behavior !== "allow") return this.askApprover(call, subject, rule, signal);
    if (!answer.updatedInput) return { allowed: true, by: "hook", rule: hookRule };
    return this.checkRewritten(call, answer.updatedInput, hookRule, signal);
  }

  /**
   * A PermissionRequest hook allowed the call with another input: a call nobody has been asked
   * about. It must be valid for the tool, and the deny and ask rules (and plan mode) judge it.
   */
  private async checkRewritten(call: PermissionCheck, input: Record<string, unknown>, hookRule: string, signal: AbortSignal): Promise<PermissionDecision> {
    const parsed = call.tool.params.safeParse(input);
    if (!parsed.success) return this.denied(call, "hook", hookRule, `a PermissionRequest hook rewrote the input into an invalid one: ${formatValidationError(call.tool.name, parsed.error)}`);
    const rewritten: PermissionCheck = { ...call, args: parsed.data };
    let subject: Subject;
    let readOnly: boolean;
    try {
      subject = call.tool.permissionSubject(rewritten.args, this.workspace);
      readOnly = call.tool.readOnly(rewritten.args);
    } catch (error) {
      return this.denied(call, "rule", "workspace", errorLine(error));
    }
    const name = call.tool.name;
    const deny = this.deny.find((r) => matches(r, name, subject, true));
    if (deny) return this.denied(call, "rule", `deny: ${deny.text}`, `denied by rule deny: ${deny.text}`);
    if (this.mode === "plan" && !readOnly) return this.denied(call, "mode", "mode:plan", "plan mode: read-only tools only");
    const ask = this.askRules.find((r) => matches(r, name, subject, true));
    const decision = ask ? await this.askApprover(rewritten, subject, `ask: ${ask.text}`, signal) : this.allowed(call, "hook", hookRule);
    return decision.allowed ? { ...decision, args: rewritten.args } : decision;
  }

  private async askApprover(call: PermissionCheck, subject: Subject, rule: string, signal: AbortSignal): Promise<PermissionDecision> {
    const preview = await this.preview(call);
    if (signal.aborted) return this.denied(call, "user", rule, "cancelled");
    this.emit({
      type: "permission_requested",
      agentId: call.agentId,
      parentId: call.parentId,
      callId: call.callId,
      tool: call.tool.name,
      args: call.args,
      rule,
    });
    const by: DecidedBy = this.approver.decidedBy ?? "user";
    // A person is about to be asked: Notification hooks (a desktop ping…) run beside the dialog.
    if (by === "user" && this.hooks?.has("Notification")) {
      void this.hooks.notification(callerOf(call), { message: `orca needs your permission to use ${call.tool.name}`, title: "Permission needed", type: "permission_prompt" });
    }
    let answer: PermissionAnswer | "cancelled";
    const pending: PendingAsk = { tool: call.tool.name, subject, scope: new CancelScope(signal) };
    this.pending.add(pending);
    try {
      answer = await untilAborted(
        this.approver.request(
          { callId: call.callId, agentId: call.agentId, agentName: call.agentName, tool: call.tool.name, args: call.args, rule, preview },
          pending.scope.signal,
        ),
        pending.scope.signal,
      );
    } catch (error) {
      if (pending.releasedBy) return this.allowed(call, "rule", pending.releasedBy);
      if (signal.aborted) return this.denied(call, by, rule, "cancelled");
      return this.denied(call, by, rule, `denied: the approver failed: ${errorLine(error)}`);
    } finally {
      this.pending.delete(pending);
      pending.scope.dispose();
    }
    // Another agent's identical call was answered "always" while this one waited in the queue.
    if (pending.releasedBy) return this.allowed(call, "rule", pending.releasedBy);
    if (answer === "cancelled") return this.denied(call, by, rule, "cancelled");
    switch (answer.decision) {
      case "once":
        return this.allowed(call, by, rule);
      case "always": {
        this.session.push(exactRule(call.tool.name, subject));
        this.releasePending();
        return this.allowed(call, by, rule, "always");
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
      return await call.tool.preview?.(call.args, call.workspace ?? this.workspace);
    } catch {
      return undefined;
    }
  }

  private allowed(call: PermissionCheck, by: DecidedBy, rule: string, scope: "once" | "always" = "once"): PermissionDecision {
    this.record(call, { decision: "allow", scope, by, rule });
    return { allowed: true, by, rule };
  }

  private denied(call: PermissionCheck, by: DecidedBy, rule: string, reason: string): PermissionDecision {
    this.record(call, { decision: "deny", scope: "once", by, rule, reason });
    return { allowed: false, by, rule, reason };
  }

  /** Every decision is an event tied to the exact call it was asked for. */
  private record(
    call: PermissionCheck,
    decision: { decision: "allow" | "deny"; scope: "once" | "always"; by: DecidedBy; rule: string; reason?: string },
  ): void {
    this.emit({ type: "permission_decided", agentId: call.agentId, parentId: call.parentId, callId: call.callId, tool: call.tool.name, ...decision });
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | "cancelled"> {
  return raceAbort(promise, signal, () => "cancelled" as const);
}

function callerOf(call: PermissionCheck): HookCaller {
  return { id: call.agentId, type: call.agentName, parentId: call.parentId };
}
