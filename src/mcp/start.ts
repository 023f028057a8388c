import type { McpManager, McpManagerOptions } from "./manager.js";
import { spawnStdioServers } from "./stdio-child.js";

/**
 * A run's MCP servers, or null when none is configured (most runs never load the SDK). The stdio
 * ones are spawned at once, before the SDK and the manager load: a server's own start (often `npx`
 * or node) overlaps that loading and the session's set-up instead of following them.
 */
export async function startMcp(opts: Omit<McpManagerOptions, "early">): Promise<McpManager | null> {
  if (Object.keys(opts.servers).length === 0) return null;
  const early = spawnStdioServers(opts.servers, opts.workspace.root);
  try {
    const { McpManager } = await import("./manager.js");
    return new McpManager({ ...opts, early });
  } catch (error) {
    early.killAll();
    throw error;
  }
}
