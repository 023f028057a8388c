import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ElicitResult, Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../config/schema.js";
import type { ProcessRecorder } from "../events/processes.js";
import type { AnyTool, ToolContext, ToolResult } from "../tools/tool.js";
import { cancelledResult, fail } from "../tools/tool.js";
import type { Workspace } from "../tools/workspace.js";
import type { JsonObject } from "./json-schema.js";
import { formatCallResult, serverTools } from "./mcp-tool.js";
import { StderrTail } from "./stderr-tail.js";
import { raceAbort } from "../util/race-abort.js";
import { withLogin, type McpAuth } from "./auth.js";
import { createClient, listAllTools, type McpElicitation } from "./client.js";
import { callFailure, ConnectTimeout, describeError, lastLineSuffix } from "./errors.js";
import { createTransport, finishAuth, livePid, transportKind, type McpTransportKind } from "./transports.js";
import { killQuietly, pidExists } from "../util/proc.js";
import type { EarlyStdioServers } from "./stdio-child.js";

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
  /** Told of each stdio server process started and of its end (the session log records them). */
  processes?: ProcessRecorder;
  /** Stdio servers spawned before the SDK loaded, owned by the manager from its construction. */
  early?: EarlyStdioServers;
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
const CANCELLED = "cancelled by user";

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
      const pid = e.session && !e.session.closing ? livePid(e.session.transport) : undefined;
      if (pid !== undefined) s.pid = pid;
      return s;
    });
  }

  /** Called on every state change of any server (connecting, connected, failed, tools changed). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Closes every client and waits until each stdio child has exited (SIGKILL as a last resort). */
  async close(): Promise<void> {
    this.closed = true;
    this.opts.early?.killAll();
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
    this.opts.early?.killAll();
    for (const session of this.sessions) {
      const pid = livePid(session.transport) ?? session.pid;
      if (pid !== undefined) killQuietly(pid);
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
    const options = { signal: abort.signal, timeout: timeoutMs + 1000 };
    try {
      const definitions = await Promise.race([
        withLogin(
          auth,
          abort.signal,
          async () => {
            await session.client.connect(session.transport, options);
            return await listAllTools(session.client, abort.signal, options.timeout);
          },
          async (code) => {
            await finishAuth(session.transport, code);
            this.discard(entry, session);
            session = this.createSession(entry, auth);
          },
        ),
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
    const client = createClient({
      server: entry.name,
      clientName: this.opts.clientName ?? "orca",
      clientVersion: this.opts.clientVersion ?? "0.0.0",
      workspace: this.opts.workspace,
      onElicit: this.opts.onElicit,
      onToolsChanged: (tools) => {
        if (entry.session !== session) return;
        entry.tools = this.buildTools(entry, tools);
        this.log(`mcp ${entry.name}: tool list changed (${entry.tools.length} tools)`);
        this.changed();
      },
    });
    const transport = createTransport(entry.config, {
      workspaceRoot: this.opts.workspace.root,
      onStderr: (chunk) => entry.stderr.push(chunk),
      early: this.opts.early?.take(entry.name),
      onSpawn: (pid) => {
        session.pid = pid;
        if ("command" in entry.config) this.opts.processes?.started({ pgid: pid, kind: "mcp", command: [entry.config.command, ...entry.config.args].join(" "), group: false });
      },
      authProvider: auth?.provider,
    });
    const session: Session = { client, transport, closing: false, closed: false };
    this.sessions.add(session);
    client.onclose = () => {
      session.closed = true;
      this.sessions.delete(session);
      if (session.closing || entry.session !== session) return;
      if (session.pid !== undefined) this.opts.processes?.ended(session.pid);
      // The server went away on its own: its tools stay listed and it restarts on next use.
      entry.session = undefined;
      entry.state = "failed";
      entry.reason = `stopped${entry.kind === "stdio" ? " (process exited)" : " (connection closed)"}${lastLineSuffix(entry.stderr)}; restarts on next use`;
      entry.deathUnreported = true;
      entry.nextAttemptAt = 0;
      this.log(`mcp ${entry.name}: ${entry.reason}`);
      this.changed();
    };
    return session;
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
      if (session.pid !== undefined && pidExists(session.pid)) killQuietly(session.pid);
      if (session.pid !== undefined) this.opts.processes?.ended(session.pid);
      this.sessions.delete(session);
    })();
    this.pendingCloses.add(done);
    void done.finally(() => this.pendingCloses.delete(done));
  }

  // ---- tools ----

  private buildTools(entry: ServerEntry, definitions: McpToolDefinition[]): AnyTool[] {
    return serverTools(entry.name, definitions, (tool, args, ctx) => this.call(entry, tool, args, ctx), (line) => this.log(line));
  }

  private async call(entry: ServerEntry, tool: string, args: JsonObject, ctx: ToolContext): Promise<ToolResult> {
    const label = `MCP server "${entry.name}"`;
    if (ctx.signal.aborted) return cancelledResult();
    if (this.closed) return fail(`${label} is shut down`);
    if (!entry.session) {
      const ready = await this.ensureSession(entry, ctx.signal);
      if (typeof ready === "string") return ready === CANCELLED ? cancelledResult() : fail(ready);
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
      if (ctx.signal.aborted) return cancelledResult();
      if (this.closed) return fail(`${label} was shut down during the call`);
      const failure = callFailure(e, entry.name, tool, entry.config.call_timeout);
      if (failure !== null) return fail(failure.message, undefined, failure.status);
      // The connection broke under the call: this result is what tells the model.
      if (entry.session === session) this.discard(entry, session);
      entry.deathUnreported = false;
      entry.state = "failed";
      entry.reason = `stopped during a call${lastLineSuffix(entry.stderr)}; restarts on next use`;
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
      if (outcome === "cancelled") return CANCELLED;
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
