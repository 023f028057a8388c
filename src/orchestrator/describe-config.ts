import { parseDocument } from "yaml";
import { describeHooks } from "../config/hooks.js";

/**
 * What a folder's `.orca/config.yaml` would change, one line per key that widens what runs
 * without asking or where data goes, or touches what you spend — for the trust prompt. While the folder is trusted this file
 * is *the* config (it replaces your own, but for your permission rules, which count beside its own),
 * so lists are shown as they are, empty ones included. Values as written, `${VAR}` unexpanded.
 */
export function describeConfig(text: string): string[] {
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length) return ["invalid YAML (orca would report it on start-up)"];
  const data = asRecord(doc.toJS());
  const lines: string[] = [];
  const list = (key: string, value: unknown, note = "") => {
    if (value === undefined) return;
    const items = strings(value);
    lines.push(`${key}: ${items.length ? items.join(", ") : "(none)"}${note}`);
  };

  const permissions = asRecord(data.permissions);
  if (typeof permissions.mode === "string") lines.push(`permissions.mode: ${permissions.mode}`);
  list("permissions.allow", permissions.allow);
  list("permissions.ask", permissions.ask);
  list("permissions.deny", permissions.deny);
  list("permissions.additional_dirs", permissions.additional_dirs);
  list("scheduler.read_only_commands", asRecord(data.scheduler).read_only_commands, " (run without asking, in a read-only sandbox)");

  const sandbox = asRecord(data.sandbox);
  if (sandbox.enabled !== undefined) lines.push(`sandbox.enabled: ${String(sandbox.enabled)}${sandbox.enabled === false ? " (commands run with your full access)" : ""}`);
  const network = asRecord(sandbox.network);
  list("sandbox.network.allow", network.allow, strings(network.allow).includes("*") ? " (the host's whole network)" : "");
  if (network.unix_sockets !== undefined) lines.push(`sandbox.network.unix_sockets: ${String(network.unix_sockets)}`);
  list("sandbox.writable", sandbox.writable);
  list("sandbox.read_only", sandbox.read_only);
  if (sandbox.hooks !== undefined) lines.push(`sandbox.hooks: ${String(sandbox.hooks)}${sandbox.hooks === false ? " (hooks run with your full access)" : ""}`);
  list("sandbox.deny_read", sandbox.deny_read, " (replaces the default list)");
  if (asRecord(data.tools).pass_model_key === true) lines.push("tools.pass_model_key: true (commands get your model's API key)");

  const model = asRecord(data.model);
  if (typeof model.base_url === "string") lines.push(`model.base_url: ${model.base_url} (your prompts and API key go there)`);
  const price = asRecord(model.price);
  if (Object.keys(price).length) {
    const rates = Object.entries(price).map(([key, value]) => `${key} ${String(value)}`);
    lines.push(`model.price: ${rates.join(", ")} (USD per million tokens; a known model's price is never lowered)`);
  }
  // Spend limits: the file may tighten yours, never loosen them (config/project-limits.ts).
  const limits: [string, unknown][] = Object.entries(asRecord(data.budget)).map(([key, value]) => [`budget.${key}`, value]);
  const agents = asRecord(data.agents);
  for (const key of ["confirm_fanout", "confirm_cost_usd"]) if (agents[key] !== undefined) limits.push([`agents.${key}`, agents[key]]);
  for (const [key, value] of limits) lines.push(`${key}: ${String(value)} (only a lower limit than yours applies)`);
  for (const [name, provider] of Object.entries(asRecord(data.providers))) {
    const url = asRecord(provider).base_url;
    if (typeof url === "string") lines.push(`providers.${name}.base_url: ${url} (prompts and that provider's key go there)`);
  }
  for (const [name, server] of Object.entries(asRecord(data.mcp_servers))) lines.push(`mcp_servers.${name}: ${describeServer(server)}`);
  const skillPaths = strings(asRecord(data.skills).paths);
  if (skillPaths.length) lines.push(`skills.paths: ${skillPaths.join(", ")}`);
  lines.push(...describeHooks(asRecord(data.hooks)));
  if (asRecord(data.hooks).import_claude === true) lines.push("hooks.import_claude: true (runs the hooks of .claude/settings*.json)");
  if (typeof data.data_dir === "string") lines.push(`data_dir: ${data.data_dir} (where sessions are written)`);
  return lines;
}

/** A server as the user would see it run: `runs npx -y some-server --flag`, or `connects to URL`. */
export function describeServer(server: unknown): string {
  const s = asRecord(server);
  if (typeof s.command === "string") return `runs ${[s.command, ...strings(s.args)].join(" ")}`;
  if (typeof s.url === "string") return `connects to ${s.url}`;
  return "(not a valid server entry)";
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
