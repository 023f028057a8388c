import type { CreateSessionOptions } from "./create.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isDirectory } from "../util/fs.js";
import { agentSearchDirs, loadAgentDefinitions, type AgentReport } from "../agent/definition.js";
import { ConfigError, loadConfig } from "../config/load.js";
import type { McpServerConfig } from "../config/schema.js";
import { projectSettings } from "../config/trust.js";
import { loadMcpJson } from "../mcp/mcp-json.js";
import { Providers } from "../model/providers.js";
import { discoverSkills } from "../skills/index.js";
import { packageAgentsSnapshot } from "../util/package-snapshot.js";
import { removeAbandoned } from "../tools/sandbox/index.js";
import { loadHooks, type LoadedHooks } from "../hooks/index.js";
import { loadSessionInstructions } from "./instructions.js";

/** Everything orca loads at start-up, without side effects beyond the session log. */
export function loadEnvironment(
  opts: Pick<CreateSessionOptions, "workspace" | "configFile" | "overrides" | "env" | "home" | "packageDir" | "trustProject">,
) {
  const workspaceRoot = path.resolve(opts.workspace);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(workspaceRoot);
  } catch {
    throw new ConfigError(`workspace ${opts.workspace} does not exist`);
  }
  if (!stat.isDirectory()) throw new ConfigError(`workspace ${opts.workspace} is not a directory`);
  // Before the folder's settings are read: a killed session's stand-ins (.mcp.json…) are not settings.
  removeAbandoned(os.tmpdir());
  const project = opts.trustProject !== false;
  const loaded = loadConfig({ ...opts, workspace: workspaceRoot, project });
  const home = opts.home ?? os.homedir();
  const projectAgents = path.join(workspaceRoot, ".orca", "agents");
  const agentDirs = agentSearchDirs({ workspace: workspaceRoot, home, packageDir: opts.packageDir }).filter((dir) => project || dir !== projectAgents);
  const agents = loadAgentDefinitions(agentDirs, packageAgentsSnapshot(path.resolve(opts.packageDir)));
  const providers = new Providers(loaded.config, opts.env ?? process.env);
  const modelErrors = checkAgentModels(agents, providers);
  const skills = discoverSkills({ workspace: workspaceRoot, home, packageDir: opts.packageDir, extraPaths: loaded.config.skills.paths, project });
  // A .mcp.json directory is the sandbox's stand-in for a missing file (tools/sandbox/protected.ts), never a server list.
  const mcpJson = project && !isDirectory(path.join(workspaceRoot, ".mcp.json")) ? loadMcpJson(workspaceRoot, opts.env ?? process.env) : { servers: {}, errors: [] };
  const servers: Record<string, McpServerConfig> = { ...mcpJson.servers, ...loaded.config.mcp_servers };
  const ignored = project ? [] : projectSettings(workspaceRoot, { configFile: opts.configFile, home });
  const hooks: LoadedHooks = loadHooks({ config: loaded.config, configPath: loaded.path, workspace: workspaceRoot, home, trustProject: project });
  const instructions = loadSessionInstructions({ config: loaded.config, workspaceRoot, home, project });
  return { workspaceRoot, ...loaded, agents, providers, modelErrors, skills, mcpJson, servers, home, ignored, hooks, instructions };
}

/**
 * An agent whose `model:` names no configured provider is skipped like any bad agent file, with
 * the reason, before it could fail mid-run. Returns the reasons by agent name.
 */
function checkAgentModels(agents: AgentReport, providers: Providers): Map<string, string> {
  const errors = new Map<string, string>();
  for (const definition of [...agents.definitions.values()]) {
    try {
      providers.resolve(definition.model);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      agents.definitions.delete(definition.name);
      agents.failed.push({ file: definition.file, reason: error.message });
      errors.set(definition.name, error.message);
    }
  }
  return errors;
}

