import path from "node:path";
import { loadConfig } from "../config/load.js";
import { sandboxedCommandsAuto } from "../tools/permissions/command-policy.js";
import { Permissions } from "../tools/permissions/engine.js";
import { withSources } from "../tools/permissions/in-force.js";
import { configRuleSource, removeSavedRule } from "../tools/permissions/save-rule.js";
import { Workspace } from "../tools/workspace.js";
import type { CliArgs, MainIo } from "./types.js";

/**
 * `orca permissions`: every rule in force here, in the order they are checked, with the config
 * file it came from (the same list as /permissions, from in-force.ts). `orca permissions remove
 * RULE [--project | --user]` takes an allow rule out of that config file, comments kept.
 */
export async function permissionsCommand(args: CliArgs, io: MainIo, packageDir: string): Promise<number> {
  const out = (line: string) => io.stdout.write(`${line}\n`);
  const workspace = new Workspace(args.workspace);
  const [verb, rule] = args.subcommandArgs ?? [];
  if (verb === "remove" && rule !== undefined) {
    const { removed, line } = removeSavedRule(args.ruleScope ?? "project", rule, workspace.root);
    if (!removed) {
      io.stderr.write(`orca permissions: ${line}\n`);
      return 1;
    }
    out(line);
    return 0;
  }
  const { config, path: file } = loadConfig({ workspace: args.workspace, configFile: args.configFile, env: io.env, packageDir });
  const source = file && file !== path.join(packageDir, "config.yaml") ? file : "built-in defaults";
  const p = config.permissions;
  const permissions = new Permissions({ mode: p.mode, allow: p.allow, ask: p.ask, deny: p.deny, approver: { request: async () => ({ decision: "deny" }) }, emit: () => undefined, workspace });
  const shown = (origin: string) => (origin === "config" || origin === path.join(packageDir, "config.yaml") ? source : origin);
  for (const r of withSources(permissions.rulesInForce(), configRuleSource(config))) out(`${r.kind.padEnd(5)} ${r.rule}  (${shown(r.origin)})`);
  const auto = sandboxedCommandsAuto(p.sandboxed_commands, p.mode);
  out(`sandboxed commands: ${auto ? "auto (run unasked in the sandbox with no network)" : "ask"}  (${p.sandboxed_commands ? source : `mode ${p.mode}`})`);
  return 0;
}
