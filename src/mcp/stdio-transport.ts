import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { StdioChild } from "./stdio-child.js";

export interface ChildTransportHooks {
  /** The child's stderr, from its first byte (what it wrote before adoption first). */
  onStderr(chunk: Buffer): void;
  /** The child's pid, once it runs and this transport has it. */
  onSpawn(pid: number): void;
}

/**
 * The SDK's Transport over a stdio server process orca spawned itself (stdio-child.ts): one spawned
 * early, before the SDK loaded, or — for a restart, or `orca mcp list` — one `launch` spawns at
 * start(). Framing and validation are the SDK's own (ReadBuffer, serializeMessage); close() ends
 * the child as the SDK's StdioClientTransport does (stdin closed, then SIGTERM, then SIGKILL).
 */
export class ChildStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child?: StdioChild;
  private started = false;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly launch: () => StdioChild,
    private readonly hooks: ChildTransportHooks,
  ) {}

  /** The child's pid while this transport owns it (gone as soon as close() starts, as in the SDK). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("ChildStdioTransport already started");
    this.started = true;
    const child = this.launch();
    this.child = child;
    child.adopt({
      stderr: (chunk) => this.hooks.onStderr(chunk),
      error: (error) => this.onerror?.(error),
      close: () => {
        this.child = undefined;
        this.onclose?.();
      },
    });
    child.process.stdin.on("error", (error) => this.onerror?.(error));
    child.process.stdout.on("error", (error) => this.onerror?.(error));
    child.process.stdout.on("data", (chunk: Buffer) => {
      try {
        this.buffer.append(chunk);
        this.readMessages();
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        this.close().catch(() => undefined);
      }
    });
    try {
      await child.spawned;
    } catch (error) {
      this.child = undefined;
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
    // Died before it was adopted (while the SDK loaded): as if it had died right after the spawn.
    if (child.closed) {
      this.child = undefined;
      throw new McpError(ErrorCode.ConnectionClosed, "Connection closed");
    }
    if (child.pid !== undefined) this.hooks.onSpawn(child.pid);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.process.stdin;
    if (!stdin) return Promise.reject(new Error("Not connected"));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child && !child.closed) {
      const closed = new Promise<void>((resolve) => child.process.once("close", () => resolve()));
      const within = (ms: number) => Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
      try {
        child.process.stdin.end();
      } catch {
        // a broken pipe: the signals below still end it
      }
      await within(2000);
      if (child.process.exitCode === null && child.process.signalCode === null) {
        child.process.kill("SIGTERM");
        await within(2000);
      }
      if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill("SIGKILL");
    }
    this.buffer.clear();
  }

  private readMessages(): void {
    for (;;) {
      try {
        const message = this.buffer.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
}
