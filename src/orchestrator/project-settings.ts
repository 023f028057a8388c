import fs from "node:fs";
import path from "node:path";
import { describeHooks } from "../config/hooks.js";
import { importsOf } from "../config/instruction-imports.js";
import { agentFileNames } from "../config/setting-files.js";
import { listNames, type ProjectSetting } from "../config/trust.js";
import { parseSkillFile } from "../skills/frontmatter.js";
import { asRecord, describeConfig, describeServer } from "./describe-config.js";

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
      case "commands":
        return describeCommands(setting.path);
      case "instructions":
        return describeInstructions(setting.path);
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

/** Instructions are prose the agents follow: their size, and the files a CLAUDE.md would import (each still confined to the repository). */
function describeInstructions(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const count = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  const lines = [`instructions for every agent: ${count} line${count === 1 ? "" : "s"}, ${text.length} characters`];
  const imports = path.basename(file) === "CLAUDE.md" ? importsOf(text) : [];
  if (imports.length) lines.push(`imports ${imports.join(", ")}`);
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
