import fs from "node:fs";
import path from "node:path";
import { parseDocument } from "yaml";
import { describeHooks } from "../config/hooks.js";
import { listNames, type ProjectSetting } from "../config/trust.js";
import { parseSkillFile } from "../skills/frontmatter.js";

/*
 * Shown by the trust prompt. It sits above config/ because describing a folder's settings means
 * reading them as the loaders of skills, agents and MCP servers would.
 */

/**
 * What a project setting would do, one line each — the commands it would start, the permissions
 * it would grant, where it would send requests — so the user can judge before trusting. Values
 * are shown as written (`${VAR}` unexpanded), so no secret from the environment is displayed.
 */
export function describeProjectSetting(setting: ProjectSetting): string[] {
  try {
    switch (setting.kind) {
      case "config":
        return describeConfig(fs.readFileSync(setting.path, "utf8"));
      case "mcp":
        return describeMcpJson(fs.readFileSync(setting.path, "utf8"));
      case "agents":
        return describeAgents(setting.path);
      case "skills":
        return describeSkills(setting.path);
      case "hooks":
        return describeClaudeHooks(fs.readFileSync(setting.path, "utf8"));
    }
  } catch (error) {
    return [`cannot read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`];
  }
}

function describeConfig(text: string): string[] {
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length) return ["invalid YAML (orca would report it on start-up)"];
  const data = asRecord(doc.toJS());
  const lines: string[] = [];
  const permissions = asRecord(data.permissions);
  if (typeof permissions.mode === "string") lines.push(`permissions.mode: ${permissions.mode}`);
  for (const key of ["allow", "additional_dirs"] as const) {
    const list = strings(permissions[key]);
    if (list.length) lines.push(`permissions.${key}: ${list.join(", ")}`);
  }
  const model = asRecord(data.model);
  if (typeof model.base_url === "string") lines.push(`model.base_url: ${model.base_url} (your prompts and API key go there)`);
  for (const [name, server] of Object.entries(asRecord(data.mcp_servers))) lines.push(`mcp_servers.${name}: ${describeServer(server)}`);
  const skillPaths = strings(asRecord(data.skills).paths);
  if (skillPaths.length) lines.push(`skills.paths: ${skillPaths.join(", ")}`);
  lines.push(...describeHooks(asRecord(data.hooks)));
  if (asRecord(data.hooks).import_claude === true) lines.push("hooks.import_claude: true (runs the hooks of .claude/settings*.json)");
  return lines;
}

function describeClaudeHooks(text: string): string[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return ["invalid JSON"];
  }
  return [...describeHooks(asRecord(data).hooks), "(Claude Code hooks: orca runs them only with hooks.import_claude: true)"];
}

function describeMcpJson(text: string): string[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return ["invalid JSON (orca would report it on start-up)"];
  }
  const servers = Object.entries(asRecord(asRecord(data).mcpServers));
  return servers.map(([name, server]) => `${name}: ${describeServer(server)}`);
}

/** A server as the user would see it run: `runs npx -y some-server --flag`, or `connects to URL`. */
function describeServer(server: unknown): string {
  const s = asRecord(server);
  if (typeof s.command === "string") return `runs ${[s.command, ...strings(s.args)].join(" ")}`;
  if (typeof s.url === "string") return `connects to ${s.url}`;
  return "(not a valid server entry)";
}

function describeAgents(dir: string): string[] {
  const names = listNames(dir)
    .filter((n) => n.endsWith(".md"))
    .map((n) => n.slice(0, -3));
  return names.length ? [`agents: ${names.join(", ")}`] : [];
}

function describeSkills(dir: string): string[] {
  const lines: string[] = [];
  for (const name of listNames(dir)) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(dir, name, "SKILL.md"), "utf8");
    } catch {
      continue;
    }
    const parsed = parseSkillFile(text, name);
    if (!parsed.ok) continue;
    const pre = parsed.skill.allowedTools;
    lines.push(`skill ${parsed.skill.name}${pre.length ? ` pre-approves ${pre.join(", ")}` : ""}`);
  }
  return lines;
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
