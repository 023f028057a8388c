import { PermissionDenied } from "../../util/errors.js";

/**
 * How one command runs:
 * - `workspace-write`: the file system is read-only except the workspace, the temp dir and the
 *   configured writable dirs; protected paths stay read-only inside them.
 * - `read-only`: nothing on disk can be written (plan mode); the temp dir is a private, empty
 *   scratch space that vanishes with the command.
 */
export type SandboxMode = "read-only" | "workspace-write";

/**
 * What the permission engine asks for one bash call (ToolContext.sandbox). `none` runs the command
 * outside any sandbox: only for a command the user approved to run that way, or where there is no
 * sandbox. Left unset, a command runs in `workspace-write` when a sandbox is available, else outside.
 * Never taken from the model's arguments.
 */
export type SandboxRequest = SandboxMode | "none";

/** How a command's network is set up. */
export type NetworkPolicy =
  /** No network at all, loopback included; no Unix sockets either. */
  | { kind: "off" }
  /** Only the listed hosts, through orca's filtering HTTP proxy. */
  | { kind: "allow-list"; hosts: string[] }
  /** The host's network, unfiltered (`allow: ["*"]`). */
  | { kind: "full" };

export interface SandboxStatus {
  available: boolean;
  /** Why not, when not available: one line for the start-up notice and `orca doctor`. */
  reason?: string;
  /** "bubblewrap 0.8.0" when available. */
  backend?: string;
  network: NetworkPolicy["kind"];
}

/** Raised when a command cannot be run the way it was asked (sandbox missing, cannot protect a path). */
/** The sandbox refuses to run a command (none where one is required, a path it cannot protect): policy, not a broken tool. */
export class SandboxError extends PermissionDenied {
  override readonly name = "SandboxError";
}
