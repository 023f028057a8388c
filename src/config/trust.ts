import fs from "node:fs";
import path from "node:path";
import { parseDocument } from "yaml";
import { parseSkillFile } from "../skills/frontmatter.js";
import { ConfigError } from "./errors.js";
import { definesHooks, describeHooks } from "./hooks.js";
import { dataDir, loadConfig, type LoadConfigOptions } from "./load.js";

/**
 * Workspace trust. A cloned repository can ship settings that act without asking: a config with
 * `permissions.mode: bypass`, a .mcp.json whose commands start at once, skills whose
 * `allowed-tools` pre-approve bash. Interactive orca loads them only from a folder the user
 * trusted; the folders they trusted are kept in `<data_dir>/trusted-workspaces.json`.
 */

export const TRUST_FILE = "trusted-workspaces.json";

export type ProjectSettingKind = "config" | "agents" | "skills" | "mcp" | "hooks";

/** A project-level source found in a workspace. */
export interface ProjectSetting {
  kind: ProjectSettingKind;
  /** Relative to the workspace, as the user knows it: ".orca/config.yaml". */
  name: string;
  path: string;
}

const SOURCES: readonly { kind: ProjectSettingKind; name: string; folder: boolean }[] = [
  { kind: "config", name: ".orca/config.yaml", folder: false },
  { kind: "agents", name: ".orca/agents", folder: true },
  { kind: "skills", name: ".orca/skills", folder: true },
  { kind: "skills", name: ".agents/skills", folder: true },
  { kind: "mcp", name: ".mcp.json", folder: false },
  // Claude Code's settings count only for their hooks (with hooks.import_claude), and only when they have some.
  { kind: "hooks", name: ".claude/settings.json", folder: false },
  { kind: "hooks", name: ".claude/settings.local.json", folder: false },
];

/**
 * The project-level sources `workspace` holds. An empty folder loads nothing, so it is not
 * listed; nor is .orca/config.yaml when `--config` names another file (it would not be read).
 */
export function projectSettings(workspace: string, opts: { configFile?: string } = {}): ProjectSetting[] {
  const root = path.resolve(workspace);
  return SOURCES.filter((s) => !(s.kind === "config" && opts.configFile))
    .map((s) => ({ kind: s.kind, name: s.name, path: path.join(root, ...s.name.split("/")), folder: s.folder }))
    .filter((s) => (s.folder ? listNames(s.path).length > 0 : isFile(s.path) && (s.kind !== "hooks" || claudeSettingsHaveHooks(s.path))))
    .map(({ kind, name, path: p }) => ({ kind, name, path: p }));
}

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

function claudeSettingsHaveHooks(file: string): boolean {
  try {
    return definesHooks(asRecord(JSON.parse(fs.readFileSync(file, "utf8"))).hooks);
  } catch {
    return false;
  }
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

/** The folders the user trusted; a trusted folder covers everything under it. */
export class TrustStore {
  readonly file: string;

  constructor(dataDirectory: string) {
    this.file = path.join(dataDirectory, TRUST_FILE);
  }

  list(): string[] {
    let text: string;
    try {
      text = fs.readFileSync(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw new ConfigError(`${this.file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new ConfigError(`${this.file}: invalid JSON; fix or delete it`);
    }
    const trusted = asRecord(data).trusted;
    if (!Array.isArray(trusted) || !trusted.every((p): p is string => typeof p === "string")) {
      throw new ConfigError(`${this.file}: expected {"trusted": ["/absolute/path", …]}`);
    }
    return trusted;
  }

  isTrusted(workspace: string): boolean {
    const target = canonical(workspace);
    return this.list().some((folder) => covers(canonical(folder), target));
  }

  /** Remembers `workspace` as trusted; the file and its folder are created here and only here. */
  trust(workspace: string): void {
    const target = canonical(workspace);
    const trusted = this.list();
    if (trusted.some((folder) => covers(canonical(folder), target))) return;
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    // Written whole and renamed into place: a crash never leaves half a file that locks the user out.
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify({ trusted: [...trusted, target] }, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }
}

/**
 * The trust store for a run. Its data_dir is resolved without the workspace's own config: a
 * folder must not be able to point orca at a trust file of its choosing.
 */
export function trustStoreFor(opts: Omit<LoadConfigOptions, "overrides" | "project">): TrustStore {
  const { config } = loadConfig({ ...opts, project: false });
  return new TrustStore(dataDir(config, opts.home));
}

function covers(folder: string, target: string): boolean {
  if (folder === target) return true;
  const prefix = folder.endsWith(path.sep) ? folder : folder + path.sep;
  return target.startsWith(prefix);
}

/** Symlinks resolved, so a folder reached through a link is the folder that was trusted. */
function canonical(p: string): string {
  const resolved = path.resolve(p);
  try {
    return fs.realpathSync(resolved);
  } catch {
    return resolved;
  }
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Entry names, hidden ones left out (the loaders skip them too); none when `dir` is no folder. */
function listNames(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((n) => !n.startsWith("."))
      .sort();
  } catch {
    return [];
  }
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
