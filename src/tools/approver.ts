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
  /** What the call would change (Tool.preview: a unified diff for write_file / edit_file). */
  preview?: string;
  /**
   * The session rule an "always" answer adds. `broader`: it allows more than this exact call (a
   * whole tool, whatever its arguments), so the dashboard asks for a second key.
   */
  always?: {
    rule: string;
    broader: boolean;
    /** The exact rule, when `rule` is a wider one the person meant (a prefix or folder rule). */
    exact?: string;
  };
  /**
   * The command asks to run outside the sandbox: only a person can allow that (a headless run
   * refuses it even with --yes).
   */
  outsideSandbox?: true;
  /**
   * Not one call but a turn's fan-out (orchestrator/fanout.ts): the sub-agents it would start.
   * "once" starts them all, "deny" none. Only a person is asked: headless applies the limits.
   */
  fanout?: FanoutQuestion;
}

/** What the fan-out question shows: the agents, their tasks, the estimate and how it was made. */
export interface FanoutQuestion {
  agents: { agent: string; label?: string; task: string; estimateUsd: number | null }[];
  /** USD for them all; null when a model's price is unknown. */
  estimateUsd: number | null;
  /** Which limit it passes: "6 sub-agents at once (agents.confirm_fanout: 4)". */
  reason: string;
  /** How the estimate was made, in one sentence. */
  how: string;
}

export type PermissionAnswer =
  | { decision: "once" }
  /** `rule`: the rule(s) the person saved, edited from the suggestion (", " between rules); absent = as suggested. */
  | { decision: "always"; rule?: string; /** Where the rule is kept: this session (absent), or also the project's or the user's config file. */ scope?: "session" | "project" | "user" }
  | { decision: "deny"; reason?: string };

export interface Approver {
  /**
   * Who answers, recorded in permission_decided: a person ("user", the default) or a fixed policy
   * ("headless": `orca -p`, where a denial names --yes as the way out).
   */
  readonly decidedBy?: "user" | "headless";
  /** Resolves when decided; a call whose signal aborts is treated as denied by the caller. */
  request(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer>;
}
