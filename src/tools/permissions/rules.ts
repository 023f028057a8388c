import picomatch from "picomatch";
import { broadMatch, compileCommandPattern, strictMatch, vouchable, type BroadMatch, type CommandPattern } from "../command-match.js";
import { analyseCommand } from "../shell/index.js";
import type { PermissionSubject } from "../tool.js";
import { errorLine } from "../../util/text.js";

/**
 * The rule language of `permissions.allow/ask/deny` and skills' `allowed-tools`: `tool` or
 * `tool(pattern)`, where the tool is a glob over tool names and the pattern a path glob (file
 * tools) or a command pattern (bash; see command-match.ts for how it meets a command).
 */

export interface Rule {
  /** As written, e.g. `bash(npm test*)`. */
  readonly text: string;
  readonly tool: (name: string) => boolean;
  /** Absent for a bare `tool` rule, which matches every call of the tool. */
  readonly pattern?: {
    readonly path: (relative: string) => boolean;
    readonly command: CommandPattern;
    readonly raw: string;
  };
  /** An "always" answer: this exact tool and subject, compared literally. */
  readonly exact?: { readonly tool: string; readonly subject: string | null; readonly unsandboxed?: boolean };
}

const RULE_SYNTAX = /^([^\s()]+)(?:\((.*)\))?$/s;
const TOOL_GLOB = /^[A-Za-z0-9_\-*?[\]{}!,.@+]+$/;

/**
 * Parses `tool` or `tool(pattern)`; a malformed rule throws a one-line Error naming it. `vars`
 * fill `${NAME}` in a command pattern (a skill's `${SKILL_DIR}`).
 */
export function parseRule(text: string, vars: Readonly<Record<string, string>> = {}): Rule {
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
    return { text: trimmed, tool, pattern: { path, command: compileCommandPattern(raw, vars), raw } };
  } catch (error) {
    throw bad(errorLine(error));
  }
}

type Subject = PermissionSubject;

/**
 * Whether a deny or ask rule applies to a call. For a command, "unsure" means it names a command
 * the rule is about with words only known at run time.
 */
export function denyMatch(rule: Rule, toolName: string, subject: Subject): BroadMatch {
  if (rule.exact) return exactMatch(rule, toolName, subject) ? "yes" : "no";
  if (!rule.tool(toolName)) return "no";
  const pattern = rule.pattern;
  if (!pattern) return "yes";
  switch (subject.kind) {
    case "path":
      return pattern.path(subject.value) ? "yes" : "no";
    case "command":
      return broadMatch(pattern.command, subject.value, analyseCommand(subject.value));
    case "none":
      return pattern.path(toolName) ? "yes" : "no";
  }
}

/**
 * The rules that allow a call, or null. A command line is allowed when it is plain (see
 * command-match.ts `vouchable`) and each of its commands is matched strictly by one of `rules`:
 * `npm test && npm run lint` needs both allowed, and no `$( )`, `VAR=` prefix or file redirect
 * rides along.
 */
export function allowedBy(rules: readonly Rule[], toolName: string, subject: Subject): Rule[] | null {
  const exact = rules.find((r) => r.exact && exactMatch(r, toolName, subject));
  if (exact) return [exact];
  const candidates = rules.filter((r) => !r.exact && r.tool(toolName));
  const bare = candidates.find((r) => !r.pattern);
  if (bare) return [bare];
  if (subject.kind === "path") {
    const rule = candidates.find((r) => r.pattern!.path(subject.value));
    return rule ? [rule] : null;
  }
  if (subject.kind === "none") {
    const rule = candidates.find((r) => r.pattern!.path(toolName));
    return rule ? [rule] : null;
  }
  if (subject.unsandboxed || candidates.length === 0) return null;
  const commands = vouchable(analyseCommand(subject.value));
  if (!commands) return null;
  const used: Rule[] = [];
  for (const argv of commands) {
    const rule = candidates.find((r) => strictMatch(r.pattern!.command, argv));
    if (!rule) return null;
    if (!used.includes(rule)) used.push(rule);
  }
  return used;
}

function exactMatch(rule: Rule, toolName: string, subject: Subject): boolean {
  const exact = rule.exact!;
  if (exact.tool !== toolName) return false;
  if (exact.subject === null) return true;
  if (subject.kind === "none" || subject.value !== exact.subject) return false;
  return subject.kind !== "command" || Boolean(subject.unsandboxed) === Boolean(exact.unsandboxed);
}

/** The rule an "always" answer adds: this exact tool and subject, compared literally. */
export function exactRule(toolName: string, subject: Subject): Rule {
  const unsandboxed = subject.kind === "command" && subject.unsandboxed === true;
  return {
    text: subject.kind === "none" ? toolName : `${toolName}(${subject.value})${unsandboxed ? " outside the sandbox" : ""}`,
    tool: (name) => name === toolName,
    exact: { tool: toolName, subject: subject.kind === "none" ? null : subject.value, ...(unsandboxed ? { unsandboxed } : {}) },
  };
}
