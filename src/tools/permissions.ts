import fs from "node:fs/promises";
import picomatch from "picomatch";
import type { PermissionMode } from "../config/schema.js";
import type { EmitFn } from "../events/types.js";
import type { Approver, PermissionAnswer } from "./approver.js";
import { matchesCommand, wildcardToRegExp } from "./command-pattern.js";
import { HeadlessApprover } from "./headless-approver.js";
import type { AnyTool, PermissionSubject } from "./tool.js";
import type { Workspace } from "./workspace.js";
import { raceAbort } from "../util/race-abort.js";
import { CancelScope } from "../util/cancel-scope.js";
import { errorLine } from "../util/text.js";

/**
 * Whether one tool call may run. Order: deny rules, plan mode, bypass mode, this session's
 * "always" approvals, ask rules, allow rules (config, then a skill's allowed-tools), then the mode.
 * Session approvals come before ask rules because an "always" given in answer to an ask rule must
 * stop that rule from asking again; plan mode comes before them because nothing widens plan mode.
 */

export type DecidedBy = "rule" | "mode" | "user" | "headless" | "skill";

export type PermissionDecision =
  | { allowed: true; by: DecidedBy; rule: string }
  | { allowed: false; by: DecidedBy; rule: string; reason: string };

export interface PermissionCheck {
  callId: string;
  agentId: string;
  parentId?: string;
  agentName: string;
  tool: AnyTool;
  args: unknown;
}

export interface PermissionsOptions {
  mode: PermissionMode;
  allow: string[];
  ask: string[];
  deny: string[];
  approver: Approver;
  emit: EmitFn;
  workspace: Workspace;
}

interface Rule {
  /** As written, e.g. `bash(npm test*)`. */
  readonly text: string;
  readonly tool: (name: string) => boolean;
  /** Absent for a bare `tool` rule, which matches every call of the tool. */
  readonly pattern?: {
    readonly path: (relative: string) => boolean;
    readonly command: RegExp;
    readonly raw: string;
  };
  /** An "always" answer: this exact tool and subject, compared literally. */
  readonly exact?: { readonly tool: string; readonly subject: string | null };
}

const RULE_SYNTAX = /^([^\s()]+)(?:\((.*)\))?$/s;
const TOOL_GLOB = /^[A-Za-z0-9_\-*?[\]{}!,.@+]+$/;

/** Parses `tool` or `tool(pattern)`; a malformed rule throws a one-line Error naming it. */
export function parseRule(text: string): Rule {
  const bad = (why: string): Error => new Error(`invalid permission rule "${text}": ${why}`);
  if (typeof text !== "string") throw bad("not a string");
  const trimmed = text.trim();
  const m = RULE_SYNTAX.exec(trimmed);
  if (!m) throw bad("expected tool or tool(pattern)");
  const [, toolPart, rawPattern] = m;
  if (!TOOL_GLOB.test(toolPart)) throw bad("the tool name may hold letters, digits, _ - and glob characters only");
  let tool: (name: string) => boolean;
  try {
    tool = picomatch(toolPart, { strictBrackets: true });
  } catch (error) {
    throw bad(errorLine(error));
  }
  if (rawPattern === undefined) return { text: trimmed, tool };
  const raw = rawPattern.trim();
  if (raw.length === 0) throw bad("empty pattern in ()");
  try {
    const glob = raw.startsWith("./") ? raw.slice(2) : raw;
    const path = picomatch(glob, { dot: true, strictBrackets: true });
    return { text: trimmed, tool, pattern: { path, command: wildcardToRegExp(raw), raw } };
  } catch (error) {
    throw bad(errorLine(error));
  }
}

/** The parts of a compound command, so `ls && rm -rf x` is tested as `rm -rf x` too. */
export function commandParts(command: string): string[] {
  return command
    .split(/&&|\|\||[;|&\n\r`]|\$\(|[()]/)
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

/** Leading `VAR=x`, `sudo`, `env`… run the same command: `sudo rm -rf /` must still hit `bash(rm *)`. */
const COMMAND_WRAPPER = /^(?:[A-Za-z_][A-Za-z0-9_]*=\S*|sudo|env|command|exec|nohup|time|nice)\s+/;

function unwrapped(part: string): string {
  let current = part;
  for (let m = COMMAND_WRAPPER.exec(current); m; m = COMMAND_WRAPPER.exec(current)) current = current.slice(m[0].length);
  return current;
}

type Subject = PermissionSubject;

function matches(rule: Rule, toolName: string, subject: Subject, splitCompound: boolean): boolean {
  if (rule.exact) {
    if (rule.exact.tool !== toolName) return false;
    return rule.exact.subject === null || (subject.kind !== "none" && subject.value === rule.exact.subject);
  }
  if (!rule.tool(toolName)) return false;
  const pattern = rule.pattern;
  if (!pattern) return true;
  switch (subject.kind) {
    case "path":
      return pattern.path(subject.value);
    case "command": {
      // An allow rule must never match a chain: `npm test && rm -rf ~` is not `npm test*`.
      if (!splitCompound) return matchesCommand(subject.value, [pattern.raw]);
      const whole = subject.value.trim();
      return pattern.command.test(whole) || commandParts(whole).some((part) => pattern.command.test(part) || pattern.command.test(unwrapped(part)));
    }
    case "none":
      return pattern.path(toolName);
  }
}

function exactRuleText(toolName: string, subject: Subject): string {
  return subject.kind === "none" ? toolName : `${toolName}(${subject.value})`;
}

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

  constructor(opts: PermissionsOptions) {
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
      pending.scope.cancel("allowed by a session rule");
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

  async check(call: PermissionCheck, signal: AbortSignal): Promise<PermissionDecision> {
    const name = call.tool.name;
    let subject: Subject;
    let readOnly: boolean;
    try {
      subject = call.tool.permissionSubject(call.args, this.workspace);
      readOnly = call.tool.readOnly(call.args);
    } catch (error) {
      return this.denied(call, "rule", "workspace", errorLine(error));
    }

    const deny = this.deny.find((r) => matches(r, name, subject, true));
    if (deny) return this.denied(call, "rule", `deny: ${deny.text}`, `denied by rule deny: ${deny.text}`);

    if (this.mode === "plan" && !readOnly) {
      return this.denied(call, "mode", "mode:plan", "plan mode: read-only tools only");
    }
    if (this.mode === "bypass") return { allowed: true, by: "mode", rule: "mode:bypass" };

    const approved = this.session.find((r) => matches(r, name, subject, false));
    if (approved) return this.allowed(call, "rule", `allow: ${approved.text}`);

    const ask = this.askRules.find((r) => matches(r, name, subject, true));
    if (ask) return this.ask(call, subject, `ask: ${ask.text}`, signal);

    const allow = this.allow.find((r) => matches(r, name, subject, false));
    if (allow) return this.allowed(call, "rule", `allow: ${allow.text}`);
    const skill = this.skills.get(call.agentId)?.find((r) => matches(r, name, subject, false));
    if (skill) return this.allowed(call, "skill", `skill: ${skill.text}`);

    const modeRule = `mode:${this.mode}`;
    if (readOnly) return { allowed: true, by: "mode", rule: modeRule };
    if (this.mode === "accept-edits" && subject.kind === "path") return { allowed: true, by: "mode", rule: modeRule };
    return this.ask(call, subject, modeRule, signal);
  }

  private async ask(call: PermissionCheck, subject: Subject, rule: string, signal: AbortSignal): Promise<PermissionDecision> {
    const preview = await diffPreview(call.tool.name, call.args, this.workspace).catch(() => undefined);
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
    const headless = this.approver instanceof HeadlessApprover;
    const by: DecidedBy = headless ? "headless" : "user";
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
        const text = exactRuleText(call.tool.name, subject);
        const toolName = call.tool.name;
        this.session.push({
          text,
          tool: (name) => name === toolName,
          exact: { tool: toolName, subject: subject.kind === "none" ? null : subject.value },
        });
        this.releasePending();
        return this.allowed(call, by, rule, "always");
      }
      case "deny": {
        const why = answer.reason?.trim();
        const reason = headless ? `denied: ${why ?? `headless run without --yes (rule ${rule})`}` : `denied by user${why ? `: ${why}` : ""}`;
        return this.denied(call, by, rule, reason);
      }
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


// ---- previews -----------------------------------------------------------------------------------

/** Files above this size get no preview: a dialog cannot show them and diffing them is not cheap. */
const PREVIEW_MAX_BYTES = 256 * 1024;
const PREVIEW_MAX_LINES = 400;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** The unified diff a write_file / edit_file call would make, or undefined when it cannot tell. */
export async function diffPreview(tool: string, args: unknown, workspace: Workspace): Promise<string | undefined> {
  if ((tool !== "write_file" && tool !== "edit_file") || !isRecord(args) || typeof args.path !== "string") return undefined;
  const absolute = workspace.resolve(args.path);
  const label = workspace.relative(absolute);
  const before = await readSmall(absolute);
  if (before === "too-big") return undefined;
  if (tool === "write_file") {
    if (typeof args.content !== "string") return undefined;
    return unifiedDiff(before ?? "", args.content, label, before === null);
  }
  const { old_string: oldString, new_string: newString, replace_all: replaceAll } = args;
  if (before === null || typeof oldString !== "string" || typeof newString !== "string" || oldString === "") return undefined;
  const count = before.split(oldString).length - 1;
  if (count === 0 || (count > 1 && replaceAll !== true)) return undefined;
  const after = replaceAll === true ? before.split(oldString).join(newString) : before.replace(oldString, () => newString);
  return unifiedDiff(before, after, label, false);
}

async function readSmall(file: string): Promise<string | null | "too-big"> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile() || stat.size > PREVIEW_MAX_BYTES) return "too-big";
    return await fs.readFile(file, "utf8");
  } catch {
    return null;
  }
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * One-hunk unified diff: the common head and tail are trimmed and the middle shown as removed and
 * added lines with three lines of context. Not minimal inside the hunk, but exact and linear, which
 * is what a confirmation dialog needs.
 */
export function unifiedDiff(before: string, after: string, label: string, created = false): string {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const header = [created ? "--- /dev/null" : `--- a/${label}`, `+++ b/${label}`];
  if (head === a.length && head === b.length) return header.join("\n") + "\n";
  const context = 3;
  const start = Math.max(0, head - context);
  const aEnd = a.length - tail;
  const bEnd = b.length - tail;
  const trailing = Math.min(tail, context);
  const aCount = aEnd + trailing - start;
  const bCount = bEnd + trailing - start;
  const range = (from: number, count: number): string => `${count === 0 ? from : from + 1},${count}`;
  const body = [
    ...a.slice(start, head).map((l) => ` ${l}`),
    ...a.slice(head, aEnd).map((l) => `-${l}`),
    ...b.slice(head, bEnd).map((l) => `+${l}`),
    ...a.slice(aEnd, aEnd + trailing).map((l) => ` ${l}`),
  ];
  const shown = body.length > PREVIEW_MAX_LINES ? [...body.slice(0, PREVIEW_MAX_LINES), `… ${body.length - PREVIEW_MAX_LINES} more lines`] : body;
  return [...header, `@@ -${range(start, aCount)} +${range(start, bCount)} @@`, ...shown].join("\n") + "\n";
}
