import path from "node:path";
import type { Config } from "../../config/schema.js";
import type { Workspace } from "../workspace.js";
import { expandHome, readDenyPatterns } from "./deny-read.js";
import type { SandboxOptions } from "./sandbox.js";
import type { SandboxStatus } from "./types.js";

/**
 * The sandbox the config describes for this workspace; orca's session logs (`<dataDir>/sessions`)
 * stay unreadable too. Not the whole data dir: isolated sub-agents work in `<dataDir>/worktrees`.
 */
export function sandboxOptions(config: Config, workspace: Workspace, home: string, dataDir: string, skillDirs: readonly string[] = []): SandboxOptions {
  const expand = (p: string) => expandHome(p, home);
  return {
    enabled: config.sandbox.enabled,
    workspace,
    writable: config.sandbox.writable.map(expand),
    readOnly: config.sandbox.read_only.map((p) => (p.startsWith("~") ? expand(p) : p)),
    denyRead: [...config.sandbox.deny_read.map(expand), path.join(dataDir, "sessions")],
    denyReadPatterns: readDenyPatterns(config.permissions.deny),
    networkAllow: config.sandbox.network.allow,
    unixSockets: config.sandbox.network.unix_sockets,
    visible: skillDirs,
  };
}

/**
 * The start-up notice, or null when there is nothing to say: commands run unsandboxed on a platform
 * that cannot sandbox them, or a setting could not be honoured. Turning it off yourself is not news.
 */
export function sandboxNotice(status: SandboxStatus, enabled: Config["sandbox"]["enabled"]): string | null {
  if (!status.available) return enabled === false ? null : `sandbox unavailable: ${status.reason}; commands run without one (see orca doctor)`;
  return status.reason ? `sandbox: ${status.reason}` : null;
}
