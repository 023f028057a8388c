import path from "node:path";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../config/schema.js";
import { clip, oneLine } from "../util/text.js";
import type { StderrTail } from "./stderr-tail.js";
import type { McpTransportKind } from "./transports.js";

/** What MCP failures look like to the user and the model: one line, never headers or env values. */

export class ConnectTimeout extends Error {
  constructor(readonly ms: number) {
    super(`did not finish start-up within ${formatMs(ms)} (connect_timeout)`);
  }
}

/** The server a failure came from, for messages that name its command or its last stderr line. */
export interface FailingServer {
  config: McpServerConfig;
  kind: McpTransportKind;
  stderr: StderrTail;
}

/** One line for status and results; never includes headers or env values. */
export function describeError(e: unknown, server?: FailingServer): string {
  if (e instanceof ConnectTimeout) return e.message;
  const err = e instanceof Error ? e : new Error(String(e));
  const code = (err as NodeJS.ErrnoException).code;
  if (server && "command" in server.config && code === "ENOENT") {
    const command = server.config.command;
    // A relative path is looked up from the server's cwd, which surprises people: say which.
    const where = command.includes("/") && !path.isAbsolute(command) ? ` (relative to ${server.config.cwd ?? "the workspace"})` : "";
    return `command not found: ${command}${where}`;
  }
  if (server && "command" in server.config && code === "EACCES") return `command not executable: ${server.config.command}`;
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
    return server?.kind === "stdio" ? `process exited${lastLineSuffix(server.stderr)}` : "connection closed";
  }
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === "ECONNREFUSED") return "connection refused";
  if (cause?.code === "ENOTFOUND") return "host not found";
  if (err.message === "fetch failed" && cause?.message) return short(cause.message);
  return short(err.message || err.name);
}

/**
 * The result text of a tools/call that threw, or null when the connection broke under the call
 * (the manager marks the server stopped and says so itself).
 */
export function callFailure(e: unknown, server: string, tool: string, callTimeoutMs: number): { message: string; status: "error" | "timeout" } | null {
  if (!(e instanceof McpError) || e.code === ErrorCode.ConnectionClosed) return null;
  if (e.code === ErrorCode.RequestTimeout) {
    return { status: "timeout", message: `${server}/${tool} timed out after ${formatMs(callTimeoutMs)} (call_timeout); the server was asked to cancel it` };
  }
  return { status: "error", message: `${server}/${tool}: ${short(e.message)}` };
}

/** `: <the server's last stderr line>`, or nothing when it wrote none. */
export function lastLineSuffix(stderr: StderrTail): string {
  const line = stderr.lastLine();
  return line ? `: ${clip(oneLine(line), 160)}` : "";
}

function short(message: string): string {
  return clip(oneLine(message), 300);
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}
