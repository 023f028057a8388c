import fs from "node:fs";
import path from "node:path";
import { describeHooks } from "../config/hooks.js";
import { loadInstructions } from "../config/instructions.js";
import { readSettingFile } from "../config/safe-read.js";
import { DEFAULT_INSTRUCTIONS_MAX_CHARS, DEFAULT_SANDBOX_DENY_READ } from "../config/schema.js";
import { agentFileNames } from "../config/setting-files.js";
import { listNames, type ProjectSetting } from "../config/trust.js";
import { parseSkillFile } from "../skills/frontmatter.js";
import { asRecord, describeConfig, describeServer } from "./describe-config.js";
import { instructionDenial } from "./instructions.js";

/*
 * Shown by the trust prompt. It sits above config/ because describing a folder's settings means
 * reading them as the loaders of skills, agents and MCP servers would.
 */

/**
 * What a project setting would do, one line each — the commands it would start, the permissions
 * it would grant, where it would send requests — so the user can judge before trusting. Values
 * are shown as written (`${VAR}` unexpanded), so no secret from the environment is displayed.
 * Nothing here is trusted yet: every file is read by the one safe reader the loaders use.
 */
export function describeProjectSetting(setting: ProjectSetting, where: { workspace: string; home: string }): string[] {
  const withText = (describe: (text: string) => string[]) => {
    const read = readSettingFile(setting.path);
    return read.ok ? describe(read.text) : [`cannot read: ${read.reason}`];
  };
  try {
    switch (setting.kind) {
      case "config":
        return withText(describeConfig);
      case "mcp":
        return withText(describeMcpJson);
      case "agents":
        return describeAgents(setting.path);
      case "skills":
        return describeSkills(setting.path);
      case "hooks":
        return withText(describeClaudeHooks);
      case "commands":
        return describeCommands(setting.path);
      case "instructions":
        return describeInstructions(setting.path, where);
    }
  } catch (error) {
    return [`cannot read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`];
  }
}

/** Custom slash commands are prompts the person runs; what a model would be told, by name. */
function describeCommands(dir: string): string[] {
  const names = listNames(dir).filter((n) => n.endsWith(".md"));
  return [`custom commands: ${names.map((n) => `/${n.slice(0, -3)}`).join(", ")} (prompts sent when you run them)`];
}

/**
 * Instructions are prose the agents follow: for a file found in a folder, its size and every file
 * its imports would bring in at any depth, or why not, as the loader itself finds them (the same
 * code, under the default deny lists: the user's own config is not read before trust).
 */
function describeInstructions(file: string, where: { workspace: string; home: string }): string[] {
  const workspace = fs.realpathSync(where.workspace);
  const readDenied = instructionDenial({ deny: [], denyRead: DEFAULT_SANDBOX_DENY_READ, workspaceRoot: workspace, home: where.home });
  const report = loadInstructions({ workspace, home: where.home, project: true, readDenied, maxChars: DEFAULT_INSTRUCTIONS_MAX_CHARS });
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    real = file;
  }
  const self = report.files.find((f) => f.path === real && f.source === "project");
  const lines = self ? [`instructions for every agent: ${self.chars} characters`] : report.skipped.filter((s) => !s.origin && path.resolve(workspace, s.name) === file).map((s) => `not read: ${s.reason}`);
  const imported = report.files.filter((f) => f.origin === real && f !== self);
  if (imported.length) lines.push(`imports ${imported.map((f) => `${f.name} (${f.chars} characters)`).join(", ")}`);
  for (const s of report.skipped.filter((s) => s.origin === real)) lines.push(`does not import ${s.name}: ${s.reason}`);
  return lines;
}

function describeClaudeHooks(text: string): string[] {
  return describeJson(text, "invalid JSON", (data) => [...describeHooks(asRecord(data).hooks), "(Claude Code hooks: orca runs them only with hooks.import_claude: true)"]);
}

function describeMcpJson(text: string): string[] {
  return describeJson(text, "invalid JSON (orca would report it on start-up)", (data) => {
    const servers = Object.entries(asRecord(asRecord(data).mcpServers));
    return servers.map(([name, server]) => `${name}: ${describeServer(server)}`);
  });
}

/** What `describe` says of the parsed text, or the one line `invalid` when it is not JSON. */
function describeJson(text: string, invalid: string, describe: (data: unknown) => string[]): string[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return [invalid];
  }
  return describe(data);
}

function describeAgents(dir: string): string[] {
  const names = agentFileNames(dir).map((n) => n.slice(0, -3));
  return names.length ? [`agents: ${names.join(", ")}`] : [];
}

function describeSkills(dir: string): string[] {
  const lines: string[] = [];
  for (const name of listNames(dir)) {
    const read = readSettingFile(path.join(dir, name, "SKILL.md"));
    if (!read.ok) continue;
    const parsed = parseSkillFile(read.text, name);
    if (!parsed.ok) continue;
    const pre = parsed.skill.allowedTools;
    lines.push(`skill ${parsed.skill.name}${pre.length ? ` pre-approves ${pre.join(", ")}` : ""}`);
  }
  return lines;
}
