import picomatch from "picomatch";
import { matchesCommand, wildcardToRegExp } from "../command-pattern.js";
import type { PermissionSubject } from "../tool.js";
import { errorLine } from "../../util/text.js";

/**
 * The rule language of `permissions.allow/ask/deny`: `tool` or `tool(pattern)`, where the tool is
 * a glob over tool names and the pattern a path glob (file tools) or a command wildcard (bash).
 */

export interface Rule {
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

export function matches(rule: Rule, toolName: string, subject: Subject, splitCompound: boolean): boolean {
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

/** The rule an "always" answer adds: this exact tool and subject, compared literally. */
export function exactRule(toolName: string, subject: Subject): Rule {
  return {
    text: subject.kind === "none" ? toolName : `${toolName}(${subject.value})`,
    tool: (name) => name === toolName,
    exact: { tool: toolName, subject: subject.kind === "none" ? null : subject.value },
  };
}
