import path from "node:path";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "../config/schema.js";

/** How orca reaches one MCP server: a child process over stdio, Streamable HTTP, or legacy SSE. */
export type McpTransportKind = "stdio" | "http" | "sse";

export function transportKind(config: McpServerConfig): McpTransportKind {
  if ("command" in config) return "stdio";
  return config.type === "sse" ? "sse" : "http";
}

export interface TransportOptions {
  /** A stdio server's cwd is resolved from here. */
  workspaceRoot: string;
  /** A stdio child's stderr, from its first byte. */
  onStderr(chunk: Buffer): void;
  /** A stdio child's pid, as soon as it is spawned. */
  onSpawn(pid: number): void;
  authProvider?: OAuthClientProvider;
}

export function createTransport(config: McpServerConfig, opts: TransportOptions): Transport {
  if ("command" in config) {
    const transport = new TrackedStdioTransport(opts.onSpawn, {
      command: config.command,
      args: config.args,
      env: config.env,
      cwd: path.resolve(opts.workspaceRoot, config.cwd ?? "."),
      stderr: "pipe",
    });
    // The SDK returns a PassThrough before start(), so early output is not lost.
    transport.stderr?.on("data", (chunk: Buffer) => opts.onStderr(chunk));
    return transport;
  }
  const url = new URL(config.url);
  const requestInit: RequestInit = { headers: config.headers };
  const authProvider = opts.authProvider;
  if (transportKind(config) === "sse") return new SSEClientTransport(url, { requestInit, authProvider });
  return new StreamableHTTPClientTransport(url, { requestInit, authProvider });
}

/** Hands an OAuth authorization code to a remote transport (a stdio one has no login). */
export async function finishAuth(transport: Transport, code: string): Promise<void> {
  if (transport instanceof StreamableHTTPClientTransport || transport instanceof SSEClientTransport) await transport.finishAuth(code);
}

/** The pid of a stdio child the SDK still tracks. */
export function livePid(transport: Transport): number | undefined {
  return transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
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
