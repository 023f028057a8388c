import type { Config } from "./schema.js";

/**
 * Permission rules of a trusted project's `.orca/config.yaml` and of your own config both count.
 * The project's file replaces yours for everything else (first file wins), but your rules are
 * yours in every folder: a deny you wrote still refuses (deny is checked first, so it wins over
 * any allow), and an "always" you saved for yourself (the dialog's `u`) applies here too — before,
 * a project with its own file hid both.
 */

export type RuleKind = "allow" | "ask" | "deny";
const KINDS: readonly RuleKind[] = ["allow", "ask", "deny"];

/** Where a rule came from: its config file, and whether that is the project's or your own. */
export interface RuleOrigin {
  file: string;
  scope?: "project" | "user";
}

/** Which config file each permission rule came from, by `kind\0rule`. */
const sources = new WeakMap<Config, Map<string, RuleOrigin>>();

const sourceKey = (kind: RuleKind, rule: string) => `${kind}\0${rule}`;

/** Notes that every rule of `config` came from `origin`. */
export function noteRuleSources(config: Config, origin: RuleOrigin): void {
  const map = new Map<string, RuleOrigin>();
  for (const kind of KINDS) for (const rule of config.permissions[kind]) map.set(sourceKey(kind, rule), origin);
  sources.set(config, map);
}

/** Adds your rules to the project's, in place (the project's first, each rule once). */
export function keepYourRules(project: Config, yours: Config, origin: RuleOrigin): void {
  const map = sources.get(project) ?? new Map<string, RuleOrigin>();
  for (const kind of KINDS) {
    const list = project.permissions[kind];
    for (const rule of yours.permissions[kind]) {
      if (list.includes(rule)) continue;
      list.push(rule);
      map.set(sourceKey(kind, rule), origin);
    }
  }
  sources.set(project, map);
}

/** The config file a permission rule of `config` came from, when known. */
export function ruleSource(config: Config, kind: RuleKind, rule: string): RuleOrigin | undefined {
  return sources.get(config)?.get(sourceKey(kind, rule));
}
