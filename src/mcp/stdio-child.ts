import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import type { McpServerConfig, McpStdioServerConfig } from "../config/schema.js";

/**
 * A stdio MCP server's process, started by orca itself and free of the MCP SDK: a run starts its
 * servers as soon as the config is known, and loading the SDK (~190 ms of CPU) overlaps the
 * server's own start instead of preceding it. The SDK's Client talks to it through
 * ChildStdioTransport (stdio-transport.ts), which adopts the process once the SDK has loaded.
 */

/**
 * What a server inherits from orca's environment besides its configured `env`: the MCP SDK's own
 * list (its DEFAULT_INHERITED_ENV_VARS, modelled on sudo's), so a server sees what it saw when the
 * SDK spawned it. tests/unit/mcp-stdio-child.test.ts holds the two equal.
 */
export const INHERITED_ENV_VARS: readonly string[] =
  process.platform === "win32"
    ? ["APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"]
    : ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/** The whitelist from orca's environment (no exported shell functions), then the server's own `env`. */
export function serverEnvironment(configured: Record<string, string>, parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV_VARS) {
    const value = parent[key];
    // A bash exported function ("() { …"): a security risk the SDK skips too.
    if (value === undefined || value.startsWith("()")) continue;
    env[key] = value;
  }
  return { ...env, ...configured };
}

/**
 * One spawned server. Everything the process says before a transport adopts it is kept: stdout
 * stays in the (paused) pipe, stderr lines are held for the adopter, and a failed spawn or an
 * early death is remembered, so adopting late loses nothing and misses no event.
 */
export class StdioChild {
  readonly process: ChildProcessWithoutNullStreams;
  /** Resolves once the process runs; rejects with the spawn error (ENOENT, EACCES …). */
  readonly spawned: Promise<void>;
  /** The process and all its pipes have closed. */
  closed = false;
  private heldStderr: Buffer[] | null = [];
  private stderrSink?: (chunk: Buffer) => void;
  private errorSink?: (error: Error) => void;
  private closeSinks: (() => void)[] = [];

  constructor(config: McpStdioServerConfig, workspaceRoot: string) {
    // The SDK's StdioClientTransport spawned with the same options (cross-spawn, which is plain
    // spawn off Windows): no shell, the env above, stdin/stdout for JSON-RPC, stderr to orca.
    this.process = spawn(config.command, config.args, {
      env: serverEnvironment(config.env),
      stdio: ["pipe", "pipe", "pipe"],
      shell: false,
      windowsHide: process.platform === "win32",
      cwd: path.resolve(workspaceRoot, config.cwd ?? "."),
    });
    let started = false;
    this.spawned = new Promise<void>((resolve, reject) => {
      this.process.once("spawn", () => {
        started = true;
        resolve();
      });
      this.process.on("error", (error) => {
        if (!started) reject(error);
        else this.errorSink?.(error);
      });
    });
    // Read by whoever adopts the process; until then a failed spawn must not be an unhandled rejection.
    this.spawned.catch(() => undefined);
    this.process.stderr.on("data", (chunk: Buffer) => {
      if (this.heldStderr) this.heldStderr.push(chunk);
      else this.stderrSink?.(chunk);
    });
    this.process.once("close", () => {
      this.closed = true;
      for (const sink of this.closeSinks) sink();
    });
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  /** Hands over stderr (what was held first), later errors, and the close. */
  adopt(sinks: { stderr(chunk: Buffer): void; error(error: Error): void; close(): void }): void {
    this.stderrSink = sinks.stderr;
    this.errorSink = sinks.error;
    const held = this.heldStderr ?? [];
    this.heldStderr = null;
    for (const chunk of held) sinks.stderr(chunk);
    this.closeSinks.push(sinks.close);
  }

  /** For process 'exit' handlers and shutdown: the process is gone at once. */
  kill(): void {
    if (this.closed || this.process.exitCode !== null || this.process.signalCode !== null) return;
    this.process.kill("SIGKILL");
  }
}

/**
 * A run's stdio servers, each spawned before the SDK loads (spawnStdioServers) and taken by its
 * server's first connect; a restart spawns anew. Whatever is not taken is killed at shutdown.
 */
export class EarlyStdioServers {
  constructor(private readonly children: Map<string, StdioChild>) {}

  /** The server's process while no connect has taken it. */
  get(name: string): StdioChild | undefined {
    return this.children.get(name);
  }

  take(name: string): StdioChild | undefined {
    const child = this.children.get(name);
    this.children.delete(name);
    return child;
  }

  killAll(): void {
    for (const child of this.children.values()) child.kill();
    this.children.clear();
  }
}

/** Starts every enabled stdio server at once; remote servers are left to the manager. */
export function spawnStdioServers(servers: Record<string, McpServerConfig>, workspaceRoot: string): EarlyStdioServers {
  const children = new Map<string, StdioChild>();
  for (const [name, config] of Object.entries(servers)) {
    if (!("command" in config) || config.enabled === false) continue;
    try {
      children.set(name, new StdioChild(config, workspaceRoot));
    } catch {
      // A spawn that throws at once (a bad argument): the manager's own spawn at connect throws the
      // same, and reports it as the server's one line.
    }
  }
  return new EarlyStdioServers(children);
}
