import path from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
  type Tool as McpToolDefinition,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../config/schema.js";
import type { AnyTool, ToolContext, ToolResult } from "../tools/tool.js";
import { fail } from "../tools/tool.js";
import type { Workspace } from "../tools/workspace.js";
import type { JsonObject } from "./json-schema.js";
import { createMcpTool, formatCallResult, mcpToolName } from "./mcp-tool.js";
import { StderrTail } from "./stderr-tail.js";
import { raceAbort } from "../util/race-abort.js";

export type McpTransportKind = "stdio" | "http" | "sse";

export interface McpServerStatus {
  name: string;
  transport: McpTransportKind;
  state: "connecting" | "connected" | "failed" | "disabled";
  /** One line: why the server failed (or that it is restarting). */
  reason?: string;
  /** Exposed tool names (`mcp__<server>__<tool>`). */
  tools: string[];
  stderrTail?: string;
  /** The stdio child's pid while it runs. */
  pid?: number;
}

/** A server's `elicitation/create` request, for a UI (or headless policy) to answer. */
export interface McpElicitation {
  server: string;
  params: ElicitRequest["params"];
  signal: AbortSignal;
}

export interface McpManagerOptions {
  servers: Record<string, McpServerConfig>;
  workspace: Workspace;
  /** Diagnostics (state changes, servers' stderr lines). Never receives env values or headers. */
  log?: (line: string) => void;
  clientName?: string;
  clientVersion?: string;
  /**
   * Answers servers' elicitation requests. Only when set does orca declare the elicitation
   * capability (form mode; schema defaults are filled into accepted content).
   */
  onElicit?: (request: McpElicitation) => Promise<ElicitResult>;
  /** OAuth for remote servers that need it; orca has no login flow of its own yet. */
  auth?: (server: string) => McpAuth | undefined;
}

/**
 * OAuth for one remote server. The SDK drives discovery, registration, PKCE and token refresh
 * through `provider`; when it needs a user login it calls `provider.redirectToAuthorization`, and
 * the manager then waits for `authorizationCode()` (a browser callback, or a headless flow),
 * exchanges it and connects again, once.
 */
export interface McpAuth {
  provider: OAuthClientProvider;
  authorizationCode?(signal: AbortSignal): Promise<string>;
}

interface Session {
  client: Client;
  transport: Transport;
  /** Set at spawn and kept: the SDK forgets the pid as soon as close() starts. */
  pid?: number;
  closing: boolean;
  closed: boolean;
}

interface ServerEntry {
  name: string;
  config: McpServerConfig;
  kind: McpTransportKind;
  state: McpServerStatus["state"];
  reason?: string;
  tools: AnyTool[];
  stderr: StderrTail;
  session?: Session;
  connecting?: Promise<boolean>;
  /** Aborts the connect in flight (close() uses it so a hanging server cannot hold shutdown). */
  connectAbort?: AbortController;
  everConnected: boolean;
  /** Died after connecting and no call has told the model yet. */
  deathUnreported: boolean;
  failures: number;
  nextAttemptAt: number;
}

const MAX_BACKOFF_MS = 60_000;

export function transportKind(config: McpServerConfig): McpTransportKind {
  if ("command" in config) return "stdio";
  return config.type === "sse" ? "sse" : "http";
}

/**
 * Owns every MCP server connection: connects them concurrently, exposes their tools, applies
 * connect and call timeouts, restarts a server that died (on next use, with backoff) and makes sure
 * no child process outlives orca.
 */
export class McpManager {
  private readonly entries: ServerEntry[];
  private readonly listeners = new Set<() => void>();
  private readonly sessions = new Set<Session>();
  private readonly pendingCloses = new Set<Promise<void>>();
  private closed = false;
  private started?: Promise<void>;

  constructor(private readonly opts: McpManagerOptions) {
    this.entries = Object.entries(opts.servers).map(([name, config]) => {
      const entry: ServerEntry = {
        name,
        config,
        kind: transportKind(config),
        state: config.enabled === false ? "disabled" : "connecting",
        tools: [],
        stderr: new StderrTail((line) => this.log(`mcp ${name} stderr: ${line}`)),
        everConnected: false,
        deathUnreported: false,
        failures: 0,
        nextAttemptAt: 0,
      };
      return entry;
    });
  }

  /** Connects every enabled server concurrently. Never rejects. */
  start(): Promise<void> {
    this.started ??= Promise.all(
      this.entries.filter((e) => e.state !== "disabled").map((e) => this.connect(e)),
    ).then(() => undefined);
    return this.started;
  }

  /** Tools of servers that have connected (a server that died keeps them: it restarts on use). */
  tools(): AnyTool[] {
    return this.entries.filter((e) => e.everConnected && e.state !== "disabled").flatMap((e) => e.tools);
  }

  status(): McpServerStatus[] {
    return this.entries.map((e) => {
      const s: McpServerStatus = { name: e.name, transport: e.kind, state: e.state, tools: e.tools.map((t) => t.name) };
      if (e.reason) s.reason = e.reason;
      const tail = e.stderr.tail();
      if (tail) s.stderrTail = tail;
      const pid = e.session && !e.session.closing ? livePid(e.session) : undefined;
      if (pid !== undefined) s.pid = pid;
      return s;
    });
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Retries a failed server now (for a UI "reconnect" action). */
  async restart(name: string): Promise<void> {
    const entry = this.entries.find((e) => e.name === name);
    if (!entry || entry.state === "disabled" || this.closed) return;
    if (entry.session) this.discard(entry, entry.session);
    await this.connect(entry);
  }

  /** Closes every client and waits until each stdio child has exited (SIGKILL as a last resort). */
  async close(): Promise<void> {
    this.closed = true;
    for (const e of this.entries) {
      e.connectAbort?.abort();
      if (e.session) this.discard(e, e.session);
    }
    // Connects still in flight discard their own session when they see `closed`.
    await Promise.allSettled(this.entries.map((e) => e.connecting));
    while (this.pendingCloses.size > 0) await Promise.allSettled([...this.pendingCloses]);
  }

  /** For process 'exit' handlers, where nothing async runs: SIGKILL every child still alive. */
  killAllSync(): void {
    for (const session of this.sessions) {
      const pid = livePid(session) ?? session.pid;
      if (pid === undefined) continue;
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }

  // ---- connection lifecycle ----

  private connect(entry: ServerEntry): Promise<boolean> {
    if (entry.connecting) return entry.connecting;
    const attempt = this.doConnect(entry).finally(() => {
      entry.connecting = undefined;
    });
    entry.connecting = attempt;
    return attempt;
  }

  private async doConnect(entry: ServerEntry): Promise<boolean> {
    if (this.closed) return false;
    entry.state = "connecting";
    entry.reason = undefined;
    this.changed();
    const timeoutMs = entry.config.connect_timeout;
    const auth = entry.kind === "stdio" ? undefined : this.opts.auth?.(entry.name);
    let session: Session;
    try {
      session = this.createSession(entry, auth);
    } catch (e) {
      return this.failed(entry, describeError(e, entry));
    }
    const abort = new AbortController();
    entry.connectAbort = abort;
    let timer: NodeJS.Timeout | undefined;
    // Covers spawn, transport start, initialize and tools/list as one budget. The SDK's own request
    // timeouts are set a little later so this one, with its clearer message, fires first.
    const stopped = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ConnectTimeout(timeoutMs)), timeoutMs);
      abort.signal.addEventListener("abort", () => reject(new Error("shut down while connecting")), { once: true });
    });
    try {
      const definitions = await Promise.race([
        (async () => {
          const options = { signal: abort.signal, timeout: timeoutMs + 1000 };
          // A login, and possibly one step-up to wider scopes; more would be a loop.
          for (let logins = 0; ; logins++) {
            try {
              await session.client.connect(session.transport, options);
              return await listAllTools(session.client, abort.signal, options.timeout);
            } catch (e) {
              if (!(e instanceof UnauthorizedError) || !auth?.authorizationCode || logins >= 2) throw e;
              const code = await auth.authorizationCode(abort.signal);
              const transport = session.transport;
              if (transport instanceof StreamableHTTPClientTransport || transport instanceof SSEClientTransport) await transport.finishAuth(code);
              this.discard(entry, session);
              session = this.createSession(entry, auth);
            }
          }
        })(),
        stopped,
      ]);
      if (this.closed) {
        this.discard(entry, session);
        return false;
      }
      entry.session = session;
      entry.tools = this.buildTools(entry, definitions);
      entry.state = "connected";
      entry.everConnected = true;
      entry.failures = 0;
      entry.deathUnreported = false;
      this.log(`mcp ${entry.name}: connected (${entry.tools.length} tools)`);
      this.changed();
      return true;
    } catch (e) {
      abort.abort();
      this.discard(entry, session);
      return this.failed(entry, describeError(e, entry));
    } finally {
      clearTimeout(timer);
      if (entry.connectAbort === abort) entry.connectAbort = undefined;
    }
  }

  private failed(entry: ServerEntry, reason: string): false {
    entry.state = "failed";
    entry.reason = reason;
    entry.failures += 1;
    entry.nextAttemptAt = Date.now() + Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (entry.failures - 1));
    this.log(`mcp ${entry.name}: failed: ${reason}`);
    this.changed();
    return false;
  }

  private createSession(entry: ServerEntry, auth?: McpAuth): Session {
    const capabilities: ClientCapabilities = { roots: { listChanged: false } };
    if (this.opts.onElicit) capabilities.elicitation = { form: { applyDefaults: true } };
    const client = new Client(
      { name: this.opts.clientName ?? "orca", version: this.opts.clientVersion ?? "0.0.0" },
      {
        capabilities,
        listChanged: {
          tools: {
            onChanged: (error, tools) => {
              if (error || !tools || entry.session !== session) return;
              entry.tools = this.buildTools(entry, tools);
              this.log(`mcp ${entry.name}: tool list changed (${entry.tools.length} tools)`);
              this.changed();
            },
          },
        },
      },
    );
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: this.roots() }));
    const onElicit = this.opts.onElicit;
    if (onElicit) {
      client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
        onElicit({ server: entry.name, params: request.params, signal: extra.signal }),
      );
    }
    const session: Session = { client, transport: this.createTransport(entry, (pid) => (session.pid = pid), auth?.provider), closing: false, closed: false };
    this.sessions.add(session);
    client.onclose = () => {
      session.closed = true;
      this.sessions.delete(session);
      if (session.closing || entry.session !== session) return;
      // The server went away on its own: its tools stay listed and it restarts on next use.
      entry.session = undefined;
      entry.state = "failed";
      entry.reason = `stopped${entry.kind === "stdio" ? " (process exited)" : " (connection closed)"}${lastLineSuffix(entry)}; restarts on next use`;
      entry.deathUnreported = true;
      entry.nextAttemptAt = 0;
      this.log(`mcp ${entry.name}: ${entry.reason}`);
      this.changed();
    };
    return session;
  }

  private createTransport(entry: ServerEntry, onSpawn: (pid: number) => void, authProvider?: OAuthClientProvider): Transport {
    const config = entry.config;
    if ("command" in config) {
      const transport = new TrackedStdioTransport(onSpawn, {
        command: config.command,
        args: config.args,
        env: config.env,
        cwd: path.resolve(this.opts.workspace.root, config.cwd ?? "."),
        stderr: "pipe",
      });
      // The SDK returns a PassThrough before start(), so early output is not lost.
      transport.stderr?.on("data", (chunk: Buffer) => entry.stderr.push(chunk));
      return transport;
    }
    const url = new URL(config.url);
    const requestInit: RequestInit = { headers: config.headers };
    if (entry.kind === "sse") return new SSEClientTransport(url, { requestInit, authProvider });
    return new StreamableHTTPClientTransport(url, { requestInit, authProvider });
  }

  /** Closes a session in the background; close() waits for all of these. */
  private discard(entry: ServerEntry, session: Session): void {
    if (entry.session === session) entry.session = undefined;
    if (session.closing) return;
    session.closing = true;
    const done = (async () => {
      try {
        await session.client.close();
      } catch {
        // closing a broken transport may throw; the kill below still runs
      }
      if (session.pid !== undefined && isAlive(session.pid)) {
        try {
          process.kill(session.pid, "SIGKILL");
        } catch {
          // gone meanwhile
        }
      }
      this.sessions.delete(session);
    })();
    this.pendingCloses.add(done);
    void done.finally(() => this.pendingCloses.delete(done));
  }

  private roots(): { uri: string; name: string }[] {
    const ws = this.opts.workspace;
    return [ws.root, ...ws.additionalDirs].map((dir) => ({ uri: pathToFileURL(dir).href, name: path.basename(dir) || dir }));
  }

  // ---- tools ----

  private buildTools(entry: ServerEntry, definitions: McpToolDefinition[]): AnyTool[] {
    const seen = new Set<string>();
    const tools: AnyTool[] = [];
    for (const definition of definitions) {
      const name = mcpToolName(entry.name, definition.name);
      if (seen.has(name)) {
        this.log(`mcp ${entry.name}: tool "${definition.name}" skipped: its name clashes with another tool as ${name}`);
        continue;
      }
      seen.add(name);
      tools.push(
        createMcpTool({
          server: entry.name,
          definition,
          name,
          call: (args, ctx) => this.call(entry, definition.name, args, ctx),
        }),
      );
    }
    return tools;
  }

  private async call(entry: ServerEntry, tool: string, args: JsonObject, ctx: ToolContext): Promise<ToolResult> {
    const label = `MCP server "${entry.name}"`;
    if (ctx.signal.aborted) return fail("cancelled by user");
    if (this.closed) return fail(`${label} is shut down`);
    if (!entry.session) {
      const ready = await this.ensureSession(entry, ctx.signal);
      if (typeof ready === "string") return fail(ready);
    }
    const session = entry.session;
    if (!session) return fail(`${label} is not available: ${entry.reason ?? "not connected"}`);
    try {
      const result = await session.client.callTool({ name: tool, arguments: args }, undefined, {
        signal: ctx.signal,
        timeout: entry.config.call_timeout,
      });
      return formatCallResult(result, `${entry.name}/${tool}`);
    } catch (e) {
      if (ctx.signal.aborted) return fail("cancelled by user");
      if (this.closed) return fail(`${label} was shut down during the call`);
      if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
        return fail(`${entry.name}/${tool} timed out after ${formatMs(entry.config.call_timeout)} (call_timeout); the server was asked to cancel it`);
      }
      if (e instanceof McpError && e.code !== ErrorCode.ConnectionClosed) {
        return fail(`${entry.name}/${tool}: ${oneLine(e.message)}`);
      }
      // The connection broke under the call: this result is what tells the model.
      if (entry.session === session) this.discard(entry, session);
      entry.deathUnreported = false;
      entry.state = "failed";
      entry.reason = `stopped during a call${lastLineSuffix(entry)}; restarts on next use`;
      entry.nextAttemptAt = 0;
      this.changed();
      return fail(`${label} stopped during the call to ${tool} (${describeError(e, entry)}); it restarts on the next call, but anything it held in memory is gone`);
    }
  }

  /** Brings a dead server back for a call, or says (as one line) why the call cannot run. */
  private async ensureSession(entry: ServerEntry, signal: AbortSignal): Promise<true | string> {
    const label = `MCP server "${entry.name}"`;
    if (entry.deathUnreported) {
      // The first call after an unnoticed death reports it (the server's state is lost) and
      // starts the restart; the next call uses the restarted server.
      entry.deathUnreported = false;
      void this.connect(entry);
      return `${label} stopped (${entry.reason ?? "exited"}); it is restarting — call the tool again, but anything it held in memory is gone`;
    }
    if (!entry.connecting) {
      if (Date.now() < entry.nextAttemptAt) {
        const wait = Math.ceil((entry.nextAttemptAt - Date.now()) / 1000);
        return `${label} is not available: ${entry.reason ?? "not connected"} (next restart attempt in ${wait}s)`;
      }
      void this.connect(entry);
    }
    const attempt = entry.connecting;
    if (attempt) {
      const outcome = await raceAbort(attempt, signal, () => "cancelled" as const);
      if (outcome === "cancelled") return "cancelled by user";
    }
    return entry.session ? true : `${label} could not be restarted: ${entry.reason ?? "unknown error"}`;
  }

  // ---- plumbing ----

  private changed(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // a listener's bug must not break the manager
      }
    }
  }

  private log(line: string): void {
    this.opts.log?.(line);
  }
}

/** The SDK forgets the child's pid as soon as close() starts; orca needs it to make sure it died. */
class TrackedStdioTransport extends StdioClientTransport {
  constructor(
    private readonly onSpawn: (pid: number) => void,
    params: ConstructorParameters<typeof StdioClientTransport>[0],
  ) {
    super(params);
  }

  override async start(): Promise<void> {
    await super.start();
    if (this.pid !== null) this.onSpawn(this.pid);
  }
}

class ConnectTimeout extends Error {
  constructor(readonly ms: number) {
    super(`did not finish start-up within ${formatMs(ms)} (connect_timeout)`);
  }
}

async function listAllTools(client: Client, signal: AbortSignal, timeout: number): Promise<McpToolDefinition[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: McpToolDefinition[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

function livePid(session: Session): number | undefined {
  return session.transport instanceof StdioClientTransport ? (session.transport.pid ?? undefined) : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function lastLineSuffix(entry: ServerEntry): string {
  const line = entry.stderr.lastLine();
  return line ? `: ${oneLine(line, 160)}` : "";
}

/** One line for status and results; never includes headers or env values. */
export function describeError(e: unknown, entry?: Pick<ServerEntry, "config" | "kind" | "stderr">): string {
  if (e instanceof ConnectTimeout) return e.message;
  const err = e instanceof Error ? e : new Error(String(e));
  const code = (err as NodeJS.ErrnoException).code;
  if (entry && "command" in entry.config && code === "ENOENT") {
    const command = entry.config.command;
    // A relative path is looked up from the server's cwd, which surprises people: say which.
    const where = command.includes("/") && !path.isAbsolute(command) ? ` (relative to ${entry.config.cwd ?? "the workspace"})` : "";
    return `command not found: ${command}${where}`;
  }
  if (entry && "command" in entry.config && code === "EACCES") return `command not executable: ${entry.config.command}`;
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
    const line = entry?.stderr.lastLine();
    return entry?.kind === "stdio" ? `process exited${line ? `: ${oneLine(line, 160)}` : ""}` : "connection closed";
  }
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === "ECONNREFUSED") return "connection refused";
  if (cause?.code === "ENOTFOUND") return "host not found";
  if (err.message === "fetch failed" && cause?.message) return oneLine(cause.message);
  return oneLine(err.message || err.name);
}

function oneLine(s: string, max = 300): string {
  const line = s.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}
