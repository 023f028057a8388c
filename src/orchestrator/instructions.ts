import path from "node:path";
import { loadInstructions, type InstructionsReport } from "../config/instructions.js";
import type { Config } from "../config/schema.js";
import { denyMatch, parseRule } from "../tools/permissions/rules.js";

/**
 * The session's project instructions (config/instructions.ts), read under the config's
 * `read_file` deny rules: a file or import such a rule hides never reaches a prompt, as it would
 * reach no tool.
 */
export function loadSessionInstructions(opts: { config: Config; workspaceRoot: string; home: string; project: boolean }): InstructionsReport {
  const rules = opts.config.permissions.deny.flatMap((text) => {
    try {
      const rule = parseRule(text);
      return rule.tool("read_file") ? [rule] : [];
    } catch {
      return []; // the permission engine reports a malformed rule when the session starts
    }
  });
  const readDenied = (absolute: string): string | undefined => {
    const relative = path.relative(opts.workspaceRoot, absolute) || ".";
    return rules.find((rule) => denyMatch(rule, "read_file", { kind: "path", value: relative }) === "yes")?.text;
  };
  return loadInstructions({ workspace: opts.workspaceRoot, home: opts.home, project: opts.project, maxChars: opts.config.instructions.max_chars, readDenied });
}
