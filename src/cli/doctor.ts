import { execFile } from "node:child_process";
import path from "node:path";
import { ConfigError } from "../util/errors.js";
import { dataDir } from "../config/load.js";
import { trustStoreFor } from "../config/trust.js";
import { loadEnvironment } from "../orchestrator/create.js";
import { Sandbox, sandboxOptions, type SandboxStatus } from "../tools/sandbox/index.js";
import { sandboxedCommandsAuto } from "../tools/permissions/command-policy.js";
import { Workspace } from "../tools/workspace.js";
import type { CliArgs, MainIo } from "./types.js";

/** What each outside program is for, in the order `orca doctor` lists them. */
const PROGRAMS: Array<[name: string, versionArgs: string[], purpose: string]> = [
  ["bwrap", ["--version"], "the command sandbox (Linux)"],
  ["socat", ["-V"], "sandbox.network.allow: the bridge to orca's proxy"],
  ["rg", ["--version"], "faster search for agents' commands"],
  ["git", ["--version"], "agents' version control"],
  ["tmux", ["-V"], "the end-to-end tests"],
];

/**
 * `orca doctor`: whether commands will be sandboxed here and why not, which outside programs are
 * installed, and the Node version. Exit 1 when the sandbox is wanted but cannot run, or a config file
 * is broken (reported first; the other checks then run on the built-in defaults).
 */
export async function runDoctor(args: CliArgs, io: MainIo, packageDir: string, version: string): Promise<number> {
  const out = (line = "") => io.stdout.write(`${line}\n`);
  out(`orca ${version} · node ${process.version} · ${process.platform} ${process.arch}`);
  const loaded = loadForDoctor(args, io, packageDir);
  if (loaded.broken) {
    // The rest of the checks still run, on the built-in defaults: a broken config is when a person needs them most.
    out(`config: broken: ${loaded.broken.split("\n").join("\n  ")}`);
    out("  the checks below use the built-in defaults");
  } else {
    out(`config: ${loaded.env.path ?? "(none found; built-in defaults)"}`);
  }
  const { env } = loaded;

  const workspace = new Workspace(env.workspaceRoot, env.config.permissions.additional_dirs);
  let status: SandboxStatus;
  try {
    const sandbox = await Sandbox.open(sandboxOptions(env.config, workspace, env.home, dataDir(env.config, env.home)));
    status = sandbox.status;
    await sandbox.close();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    status = { available: false, reason: error.message, network: "off" };
  }
  const enabled = env.config.sandbox.enabled;
  if (status.available) {
    const network = { off: env.config.sandbox.network.unix_sockets ? "no network" : "no network, no Unix sockets", "allow-list": `network only to ${env.config.sandbox.network.allow.join(", ")}`, full: "the host's network" }[status.network];
    out(`sandbox: on (${status.backend}) · ${network}`);
    if (status.reason) out(`  note: ${status.reason}`);
    out(`  sandboxed commands: ${sandboxedCommandsLine(env.config.permissions.sandboxed_commands, env.config.permissions.mode, status.network)}`);
  } else if (enabled === false) {
    out("sandbox: off (sandbox.enabled: false): commands run with your full access");
  } else {
    out(`sandbox: unavailable: ${status.reason}`);
    out("  commands run without a sandbox, with your full access");
  }

  out("programs:");
  for (const [name, versionArgs, purpose] of PROGRAMS) {
    const found = await programVersion(name, versionArgs);
    out(`  ${name.padEnd(6)} ${(found ?? "not found").padEnd(28)} ${purpose}`);
  }
  return loaded.broken === undefined && (status.available || enabled === false) ? 0 : 1;
}

/** The environment a run would load, or, when a config file is broken, the package's defaults and why. */
function loadForDoctor(args: CliArgs, io: MainIo, packageDir: string): { env: ReturnType<typeof loadEnvironment>; broken?: string } {
  try {
    const interactive = Boolean(io.stdin.isTTY && io.stdout.isTTY);
    const trustProject =
      !interactive || trustStoreFor({ workspace: args.workspace, configFile: args.configFile, env: io.env, packageDir }).isTrusted(args.workspace);
    return { env: loadEnvironment({ workspace: args.workspace, configFile: args.configFile, env: io.env, packageDir, trustProject }) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const defaults = path.join(packageDir, "config.yaml");
    // Only the package's own config and no project settings: nothing else of the broken setup is trusted to load.
    const env = loadEnvironment({ workspace: args.workspace, configFile: defaults, env: {}, packageDir, trustProject: false });
    return { env, broken: error.message };
  }
}

function programVersion(name: string, versionArgs: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(name, versionArgs, { timeout: 5_000 }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === "ENOENT") return resolve(null);
      const text = `${stdout}\n${stderr}`;
      const v = /\d+\.\d+(?:\.\d+)?[a-z]?/.exec(text)?.[0];
      resolve(v ? `${name} ${v}` : "installed");
    });
  });
}

/** Whether commands that may write run unasked in the sandbox here (permissions.sandboxed_commands). */
function sandboxedCommandsLine(setting: "ask" | "auto" | undefined, mode: string, network: string): string {
  const given = setting ? `sandboxed_commands: ${setting}` : `sandboxed_commands unset, mode ${mode}`;
  if (!sandboxedCommandsAuto(setting, mode)) return `ask (${given})`;
  if (network !== "off") return `ask (${given}, but commands have network)`;
  return `run unasked (${given}); leaving the sandbox, protected paths and deny rules still ask`;
}
