/** What the permission layer asks a human (or the headless policy) about one exact call. */
export interface PermissionRequest {
  callId: string;
  agentId: string;
  /** The agent definition's name, e.g. "editor". */
  agentName: string;
  tool: string;
  args: unknown;
  /** The rule or mode that asked, e.g. `ask: bash(npm *)` or `mode:default`. */
  rule: string;
  /** A unified diff for write_file / edit_file when it can be computed. */
  preview?: string;
}

export type PermissionAnswer =
  | { decision: "once" }
  | { decision: "always" }
  | { decision: "deny"; reason?: string };

export interface Approver {
  /** Resolves when decided; a call whose signal aborts is treated as denied by the caller. */
  request(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer>;
}
