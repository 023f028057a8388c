import type { EmitFn } from "../events/types.js";
import type { McpServerState } from "./types.js";

/** What the session needs of the MCP manager: its status list and its change channel. */
export interface McpStatusSource {
  status(): { name: string; state: "connecting" | "connected" | "failed" | "disabled"; reason?: string; tools: string[] }[];
  onChange(listener: () => void): () => void;
}

/**
 * Turns the MCP manager's status changes into `mcp_status` events (one per server that changed)
 * and keeps the last state of each, so a consumer that attaches late starts from the truth. A
 * server that connects again after it failed or stopped is "restarted".
 */
export class McpStatusWatcher {
  private readonly last = new Map<string, McpServerState>();
  private readonly everConnected = new Set<string>();
  private readonly off: () => void;

  constructor(
    private readonly source: McpStatusSource,
    private readonly emit: EmitFn,
    private readonly agentId: string,
  ) {
    this.off = source.onChange(() => this.update(true));
    this.update(false);
  }

  snapshot(): McpServerState[] {
    return [...this.last.values()];
  }

  dispose(): void {
    this.off();
  }

  private update(announce: boolean): void {
    for (const s of this.source.status()) {
      let state: McpServerState["state"] = s.state;
      const before = this.last.get(s.name);
      if (s.state === "connected") {
        if (this.everConnected.has(s.name) && before && before.state !== "connected" && before.state !== "restarted") state = "restarted";
        else if (before?.state === "restarted") state = "restarted";
        this.everConnected.add(s.name);
      }
      const next: McpServerState = { server: s.name, state, ...(s.state === "connected" ? { tools: s.tools.length } : {}), ...(s.reason && s.state === "failed" ? { reason: s.reason } : {}) };
      if (before && before.state === next.state && before.tools === next.tools && before.reason === next.reason) continue;
      this.last.set(s.name, next);
      if (announce) this.emit({ type: "mcp_status", agentId: this.agentId, ...next });
    }
  }
}
