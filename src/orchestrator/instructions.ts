import fs from "node:fs";
import path from "node:path";
import { instructionBound, loadInstructions, type InstructionsReport } from "../config/instructions.js";
import type { Config } from "../config/schema.js";
import { protectedReason } from "../tools/permissions/protected-paths.js";
import { denyMatch, parseRule } from "../tools/permissions/rules.js";
import { expandHome } from "../tools/sandbox/deny-read.js";
import { isInside } from "../tools/workspace.js";

/**
 * The session's project instructions (config/instructions.ts), read under the config's
 * deny rules: a file or import such a rule hides never reaches a prompt, as it would reach no
 * tool or command.
 */
export function loadSessionInstructions(opts: { config: Config; workspaceRoot: string; home: string; project: boolean }): InstructionsReport {
  const readDenied = instructionDenial({ deny: opts.config.permissions.deny, denyRead: opts.config.sandbox.deny_read, workspaceRoot: opts.workspaceRoot, home: opts.home });
  return loadInstructions({ workspace: opts.workspaceRoot, home: opts.home, project: opts.project, maxChars: opts.config.instructions.max_chars, readDenied });
}

/**
 * Why an instruction file or import at this absolute path must not be read: a `read_file` deny
 * rule, a `sandbox.deny_read` path (keys, cloud credentials) or a protected path (`.git`, whose
 * config can hold tokens; other agents' settings), judged from the folder instructions are bound to.
 */
export function instructionDenial(opts: { deny: readonly string[]; denyRead: readonly string[]; workspaceRoot: string; home: string }): (absolute: string) => string | undefined {
  const rules = opts.deny.flatMap((text) => {
    try {
      const rule = parseRule(text);
      return rule.tool("read_file") ? [rule] : [];
    } catch {
      return []; // the permission engine reports a malformed rule when the session starts
    }
  });
  // Resolved at the first file asked about: a start with no instruction file resolves none (~20 realpaths).
  let unreadable: Array<{ entry: string; dir: string }> | undefined;
  const unreadableDirs = () =>
    (unreadable ??= opts.denyRead.flatMap((entry) => {
      const absolute = expandHome(entry, opts.home);
      return [...new Set([absolute, realOr(absolute)])].map((dir) => ({ entry, dir }));
    }));
  const bound = instructionBound(opts.workspaceRoot, opts.home);
  return (absolute) => {
    const relative = path.relative(opts.workspaceRoot, absolute) || ".";
    const rule = rules.find((r) => denyMatch(r, "read_file", { kind: "path", value: relative }) === "yes")?.text;
    if (rule) return rule;
    const hidden = unreadableDirs().find(({ dir }) => isInside(dir, absolute));
    if (hidden) return `sandbox.deny_read (${hidden.entry})`;
    const within = path.relative(bound, absolute);
    return isInside(bound, absolute) && protectedReason(within) ? `protected path (${within})` : undefined;
  };
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}
