import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "../config/schema.js";
import { StdioChild } from "./stdio-child.js";
import { ChildStdioTransport } from "./stdio-transport.js";

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
  /** A stdio server's process spawned before the SDK loaded, to adopt instead of spawning one. */
  early?: StdioChild;
  authProvider?: OAuthClientProvider;
}

export function createTransport(config: McpServerConfig, opts: TransportOptions): Transport {
  if ("command" in config) {
    const early = opts.early;
    return new ChildStdioTransport(() => early ?? new StdioChild(config, opts.workspaceRoot), { onStderr: opts.onStderr, onSpawn: opts.onSpawn });
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

/** The pid of a stdio child its transport still owns. */
export function livePid(transport: Transport): number | undefined {
  return transport instanceof ChildStdioTransport ? transport.pid : undefined;
}
