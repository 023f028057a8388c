import type { EmitFn } from "../events/types.js";
import type { McpServerState } from "./types.js";

/** What the session needs of the MCP manager: its status list and its change channel. */
export interface McpStatusSource {
  status(): { name: string; state: "connecting" | "connected" | "failed" | "disabled"; reason?: string; tools: string[] }[];
  onChange(listener: () => void): () => void;
}

/**
 * Turns the MCP manager's status changes into `mcp_status` events (one per server that changed)
 * and keeps the last state of each. A server that connects again after it failed or stopped is
 * "restarted".
 *
 * Nothing is emitted before `announce()`, which the session calls right after session_started:
 * it first says where every server stands then (a server that failed while the session was being
 * built included), so no consumer — the log, stream-json, the headless warning — misses one, and
 * none sees an mcp_status before the session's start.
 */
export class McpStatusWatcher {
  private readonly last = new Map<string, McpServerState>();
  private readonly everConnected = new Set<string>();
  private readonly off: () => void;
  private announcing = false;

  constructor(
    private readonly source: McpStatusSource,
    private readonly emit: EmitFn,
    private readonly agentId: string,
  ) {
    this.off = source.onChange(() => this.update());
    this.update();
  }

  snapshot(): McpServerState[] {
    return [...this.last.values()];
  }

  /** From now on each change is an event; first, one for every server as it stands now. */
  announce(): void {
    if (this.announcing) return;
    this.announcing = true;
    for (const state of this.last.values()) this.emit({ type: "mcp_status", agentId: this.agentId, ...state });
  }

  dispose(): void {
    this.off();
  }

  private update(): void {
    for (const s of this.source.status()) {
      let state: McpServerState["state"] = s.state;
      const before = this.last.get(s.name);
      if (s.state === "connected") {
        if (this.everConnected.has(s.name) && before && before.state !== "connected" && before.state !== "restarted") state = "restarted";
        else if (before?.state === "restarted") state = "restarted";
        this.everConnected.add(s.name);
      }
      const next: McpServerState = {
        server: s.name,
        state,
        ...(s.state === "connected" ? { tools: s.tools.length } : {}),
        ...(s.reason && s.state === "failed" ? { reason: s.reason } : {}),
      };
      if (before && before.state === next.state && before.tools === next.tools && before.reason === next.reason) continue;
      this.last.set(s.name, next);
      if (this.announcing) this.emit({ type: "mcp_status", agentId: this.agentId, ...next });
    }
  }
}
