import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Config } from "../../config/schema.js";
import { ruleSource } from "../../config/your-rules.js";
import { errorLine } from "../../util/text.js";
import type { RuleSource } from "./in-force.js";
import { addAllowRules, removeAllowRule } from "./rule-file.js";

/** Where an "always" answer is kept beyond this session. */
export type RuleScope = "session" | "project" | "user";

/** The config file a scope's rules go to (the files orca's config search reads). */
export function ruleFile(scope: "project" | "user", workspaceRoot: string, home = os.homedir()): string {
  return scope === "project" ? path.join(workspaceRoot, ".orca", "config.yaml") : path.join(home, ".config", "orca", "config.yaml");
}

/**
 * `orca permissions remove RULE [--project|--user]` and `/permissions remove RULE --project|--user`:
 * takes an allow rule out of that scope's config file (then `removed` runs: the session stops applying
 * it). `line` is what the person reads either way.
 */
export function removeSavedRule(scope: "project" | "user", rule: string, workspaceRoot: string, removed?: () => void, home = os.homedir()): { removed: boolean; line: string } {
  const file = ruleFile(scope, workspaceRoot, home);
  const text = rule.trim();
  try {
    if (removeAllowRule(file, text)) {
      removed?.();
      return { removed: true, line: `removed ${text} from ${file}` };
    }
  } catch (error) {
    return { removed: false, line: errorLine(error) };
  }
  return { removed: false, line: `${text} is not an allow rule in ${file}` };
}

/** Where each of `config`'s rules came from, and whether that file is the project's or yours (/permissions). */
export function configRuleSource(config: Config): RuleSource {
  return (kind, rule) => ruleSource(config, kind, rule);
}

/**
 * Writes "always" rules to the project's or the user's config file. Only the rules the suggestion
 * logic offered for this call may be saved there (an edited, wider rule stays a session rule), and
 * never a new project file that would hide the user's: orca reads the first config file it finds.
 * Throws a one-line error; returns the file written.
 */
export function saveRules(scope: "project" | "user", rules: readonly string[], offered: readonly string[], workspaceRoot: string, home = os.homedir()): string {
  const wider = rules.find((r) => !offered.includes(r));
  if (wider !== undefined) throw new Error(`only the suggested rule can be saved beyond this session, not ${wider}`);
  const file = ruleFile(scope, workspaceRoot, home);
  const user = ruleFile("user", workspaceRoot, home);
  if (scope === "project" && !fs.existsSync(file) && fs.existsSync(user)) {
    throw new Error(`no .orca/config.yaml in this project: creating one would hide ${user} (orca reads the first config file found)`);
  }
  addAllowRules(file, rules);
  return file;
}
