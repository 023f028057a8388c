import { loadEnvironment } from "../orchestrator/create.js";
import type { Config, McpServerConfig } from "../config/schema.js";
import { Workspace } from "../tools/workspace.js";
import { builtinTools, ShellManager } from "../tools/builtin/index.js";
import { bpeTokenCounter } from "../model/token-counter.js";
import type { CliArgs, MainIo } from "./types.js";
import { dataDir } from "../config/load.js";
import { trustStoreFor, type ProjectSettingKind } from "../config/trust.js";
import { formatSessions, reapCommand } from "./sessions-command.js";
import { formatHooks } from "./hooks-command.js";
import { worktreesCommand } from "./worktrees-command.js";
import { CONTROL_TOOLS } from "../orchestrator/control-tools.js";

/** The project settings each command would show; the config shapes every one of them. */
const SHOWN: Record<string, readonly ProjectSettingKind[]> = {
  agents: ["config", "agents"],
  skills: ["config", "skills"],
  tools: ["config", "mcp"],
  mcp: ["config", "mcp"],
  sessions: ["config"],
  hooks: ["config", "hooks"],
  worktrees: [],
};

/**
 * `orca agents | tools | mcp | skills | sessions`: what is loaded, where from, and what failed and
 * why. Run in a terminal, they load exactly what the dashboard would: a folder the user has not
 * trusted keeps its own settings unloaded (and .mcp.json's commands unstarted), and they say so.
 * Without a terminal (scripts, CI) they trust the folder, as `orca -p` does.
 */
export async function runListCommand(args: CliArgs & { builtinOnly?: boolean }, io: MainIo, packageDir: string): Promise<number> {
  const interactive = Boolean(io.stdin.isTTY && io.stdout.isTTY);
  const trustProject =
    !interactive || trustStoreFor({ workspace: args.workspace, configFile: args.configFile, env: io.env, packageDir }).isTrusted(args.workspace);
  const env = loadEnvironment({
    workspace: args.workspace,
    configFile: args.configFile,
    overrides: { model: args.model, baseUrl: args.baseUrl },
    env: io.env,
    packageDir,
    trustProject,
  });
  const out = (line = "") => io.stdout.write(`${line}\n`);
  out(`config: ${env.path ?? "(none found; built-in defaults)"}`);
  for (const s of env.ignored) {
    if (SHOWN[args.subcommand ?? ""]?.includes(s.kind)) out(`not loaded: ${s.name}: folder not trusted (run orca here and answer the prompt)`);
  }

  switch (args.subcommand) {
    case "agents": {
      out("agents:");
      for (const d of env.agents.definitions.values()) {
        // Definitions whose model names no provider were moved to `failed` at load.
        const { provider, name } = env.providers.resolve(d.model);
        const model = `provider: ${provider.name} (${provider.type}) · model: ${name}${d.model === "inherit" ? " (inherit)" : ""}`;
        out(`  ${d.name.padEnd(14)} ${d.description}`);
        out(`  ${"".padEnd(14)} tools: ${d.tools.join(", ")}${d.maxSteps ? ` · max_steps: ${d.maxSteps}` : ""}`);
        out(`  ${"".padEnd(14)} ${model}`);
        out(`  ${"".padEnd(14)} from ${d.file}`);
      }
      for (const s of env.agents.shadowed) out(`shadowed: ${s.name} in ${s.file} (using ${s.keptFile})`);
      for (const f of env.agents.failed) out(`failed: ${f.file}: ${f.reason}`);
      return 0;
    }
    case "skills": {
      out(env.skills.skills.length ? "skills:" : "skills: none found");
      for (const s of env.skills.skills) {
        out(`  ${s.name.padEnd(18)} ${s.description.split("\n")[0]}`);
        out(`  ${"".padEnd(18)} from ${s.file}${s.allowedTools.length ? ` · allowed-tools: ${s.allowedTools.join(" ")}` : ""}`);
      }
      for (const d of env.skills.duplicates) out(`duplicate: ${d.name} in ${d.path} (using ${d.keptPath})`);
      for (const s of env.skills.skipped) out(`skipped: ${s.path}: ${s.reason}`);
      return 0;
    }
    case "tools": {
      const workspace = new Workspace(env.workspaceRoot);
      for (const line of builtinToolLines(env.config)) out(line);
      if (args.builtinOnly) return 0;
      const mcp = await listMcp(env.servers, workspace, out, false);
      return mcp;
    }
    case "mcp": {
      const workspace = new Workspace(env.workspaceRoot);
      for (const e of env.mcpJson.errors) out(`error: ${e}`);
      return listMcp(env.servers, workspace, out, true);
    }
    case "sessions":
      if (args.reap) {
        for (const line of await reapCommand(dataDir(env.config, env.home))) out(line);
        return 0;
      }
      for (const line of formatSessions(dataDir(env.config, env.home), { all: args.all })) out(line);
      return 0;
    case "hooks": {
      const tools = builtinTools({ shells: new ShellManager(), bashTimeoutMs: 1, maxOutputTokens: 1, readOnlyCommands: [], tokens: bpeTokenCounter() }).map((t) => t.name);
      const universe = { tools: [...tools, "get_skill", "delegate", ...CONTROL_TOOLS], agents: [...env.agents.definitions.keys()] };
      for (const line of formatHooks(env.hooks, universe, env.home)) out(line);
      return 0;
    }
    case "worktrees":
      for (const line of await worktreesCommand(env.workspaceRoot, args.subcommandArgs?.[0])) out(line);
      return 0;
    default:
      io.stderr.write(`orca: unknown command ${String(args.subcommand)}\n`);
      return 2;
  }
}

async function listMcp(
  servers: Record<string, McpServerConfig>,
  workspace: Workspace,
  out: (line?: string) => void,
  detailed: boolean,
): Promise<number> {
  if (!Object.keys(servers).length) {
    out(detailed ? "mcp servers: none configured (mcp_servers in config.yaml, or .mcp.json)" : "mcp tools: none");
    return 0;
  }
  const { McpManager } = await import("../mcp/manager.js");
  const manager = new McpManager({ servers, workspace, clientName: "orca" });
  try {
    await manager.start();
    out("mcp servers:");
    for (const s of manager.status()) {
      const reason = s.reason ? `: ${s.reason}` : "";
      out(`  ${s.name.padEnd(14)} ${s.transport.padEnd(6)} ${s.state}${reason} · ${s.tools.length} tools`);
      if (s.tools.length) out(`  ${"".padEnd(14)} ${s.tools.join(", ")}`);
      if (detailed && s.state === "failed" && s.stderrTail) out(`  ${"".padEnd(14)} stderr: ${s.stderrTail.trim().split("\n").slice(-3).join(" | ")}`);
    }
  } finally {
    await manager.close();
  }
  return 0;
}

/** `orca tools`' list of the built-in tools (the dashboard's /tools shows it too). */
export function builtinToolLines(config: Config): string[] {
  const tools = builtinTools({
    shells: new ShellManager(),
    bashTimeoutMs: config.tools.bash_timeout,
    maxOutputTokens: config.tools.max_output_tokens,
    tokens: bpeTokenCounter(),
    readOnlyCommands: config.scheduler.read_only_commands,
  });
  return [
    "built-in tools:",
    ...tools.map((t) => `  ${t.name.padEnd(12)} ${t.description.split(". ")[0]}`),
    `  ${"get_skill".padEnd(12)} Load a skill by name`,
    `  ${"delegate".padEnd(13)} Hand a scoped task to a sub-agent (or start it in the background)`,
    `  ${"message_agent".padEnd(13)} Steer a running sub-agent (comes with delegate)`,
    `  ${"agent_status".padEnd(13)} The state of your sub-agents (comes with delegate)`,
    `  ${"wait_agents".padEnd(13)} Wait for background sub-agents (comes with delegate)`,
  ];
}
