import type { RuleOrigin } from "../../config/your-rules.js";
import type { Rule } from "./rules.js";

/** What /permissions and `orca permissions` list: every rule in force and where it came from. */

export interface RuleInForce {
  kind: "allow" | "ask" | "deny" | "mode";
  rule: string;
  /** The config file (or "config" when unknown), dialog (agent), session, skill (agent), mode. */
  origin: string;
  /** A session rule: /permissions remove takes it away. */
  removable?: boolean;
  /** An allow rule of the project's or your config file: /permissions remove RULE --project / --user takes it out. */
  scope?: "project" | "user";
}

/** Where a config rule came from: its file, and whether that is the project's or your own rule file. */
export type RuleSource = (kind: "allow" | "ask" | "deny", rule: string) => RuleOrigin | undefined;

/** In the order they are checked: deny, ask, this session's answers, allow, skills, then the mode. */
export function rulesInForce(parts: {
  deny: readonly Rule[];
  ask: readonly Rule[];
  session: readonly Rule[];
  origins: WeakMap<Rule, string>;
  allow: readonly Rule[];
  skills: ReadonlyMap<string, readonly Rule[]>;
  mode: string;
  autoSandboxed: boolean;
}): RuleInForce[] {
  const out: RuleInForce[] = [];
  for (const r of parts.deny) out.push({ kind: "deny", rule: r.text, origin: "config" });
  for (const r of parts.ask) out.push({ kind: "ask", rule: r.text, origin: "config" });
  for (const r of parts.session) out.push({ kind: "allow", rule: r.text, origin: parts.origins.get(r) ?? "session", removable: true });
  for (const r of parts.allow) out.push({ kind: "allow", rule: r.text, origin: "config" });
  for (const [agentId, rules] of parts.skills) for (const r of rules) out.push({ kind: "allow", rule: r.text, origin: `skill (${agentId})` });
  out.push({ kind: "mode", rule: `mode:${parts.mode}`, origin: "mode" });
  if (parts.autoSandboxed) out.push({ kind: "allow", rule: "bash in the sandbox, no network (sandboxed_commands: auto)", origin: "config / mode" });
  return out;
}

/** Names the config file of each rule from config (the loader noted them), and whether it is the project's or yours. */
export function withSources(rules: readonly RuleInForce[], source: RuleSource): RuleInForce[] {
  return rules.map((r) => {
    if (r.origin !== "config" || r.kind === "mode") return r;
    const from = source(r.kind, r.rule);
    return from ? { ...r, origin: from.file, ...(r.kind === "allow" && from.scope ? { scope: from.scope } : {}) } : r;
  });
}
