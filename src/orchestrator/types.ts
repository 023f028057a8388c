import type { RuleInForce } from "../tools/permissions/engine.js";
import type { PermissionMode } from "../config/schema.js";
import type { EventBus } from "../events/bus.js";
import type { EventOf, SessionStatus, Usage } from "../events/types.js";
import type { UserInputApi } from "./user-input.js";
import type { ReviewApi } from "./review-desk.js";

export interface RunResult {
  status: SessionStatus;
  /** The coordinator's final answer, or what it had when it stopped followed by why. */
  result: string;
  /** Only the coordinator's own words ("" when it stopped before saying anything). */
  answer: string;
  usage: Usage;
  durationMs: number;
}

export interface AgentSummary {
  id: string;
  name: string;
  label?: string;
  parentId?: string;
  status: "running" | "done" | "failed" | "cancelled" | "max_steps" | "budget" | "loop";
  steps: number;
  usage: Usage;
  /** Its delegate call returned at once; its result reaches its parent as a message. */
  background?: boolean;
  /** It ended its turn and waits for background sub-agents (the run goes on). */
  waiting?: boolean;
  /** Its git worktree, when it works in one. */
  worktree?: string;
}

/** An MCP server as the last mcp_status said (the dashboard starts from this, then follows events). */
export type McpServerState = Pick<EventOf<"mcp_status">, "server" | "state" | "tools" | "reason">;

export type ControlResult = { ok: true } | { ok: false; error: string };

export interface SchedulerCounts {
  running: number;
  waiting: number;
}

/** What the dashboard and the headless printer may use of a session. Everything else is events. */
export interface SessionApi {
  readonly id: string;
  readonly bus: EventBus;
  readonly workspaceRoot: string;
  readonly modelName: string;
  /** The coordinator's agent id (constant for the session). */
  readonly rootAgentId: string;
  /** True while a run (one user turn) is in progress. */
  readonly busy: boolean;
  /**
   * Runs one user turn on the coordinator. Only one run at a time. Null: no new prompt — a resumed
   * session continues the run that stopped (`continuing` names who goes on).
   */
  run(text: string | null): Promise<RunResult>;
  /** A resumed session whose run stopped with sub-agents at work: the agents run(null) continues (none after it). */
  readonly continuing?: readonly string[];
  /**
   * Cancels a scope: no argument or the coordinator's id cancels the whole run (every sub-agent
   * included); a sub-agent's id cancels only that sub-agent and whatever it started.
   */
  cancel(scopeId?: string): void;
  /**
   * Queues a user message for a running agent (a sub-agent, or the coordinator during a run): it
   * joins that agent's history before its next model request and shows in its pane then.
   */
  message(agentId: string, text: string): ControlResult;
  /** Sends a running foreground sub-agent to the background: its delegate call returns at once. */
  background(agentId: string): ControlResult;
  agents(): AgentSummary[];
  schedulerCounts(): SchedulerCounts;
  onSchedulerChange(listener: (counts: SchedulerCounts) => void): () => void;
  /** The permission mode in force; the dashboard switches it (/mode, Shift+Tab). */
  readonly permissionMode: PermissionMode;
  /** permissions.sandboxed_commands: auto is in force now (the header says so). */
  sandboxedCommandsAuto?(): boolean;
  /** Every permission rule in force and its origin (/permissions). */
  permissionRules?(): RuleInForce[];
  /** Removes a session rule ("always" answer); false when there is none so written. */
  removeSessionRule?(text: string): boolean;
  /** Takes an allow rule out of the project's or your config file (and out of force); `line` says what happened. */
  removeSavedRule?(text: string, scope: "project" | "user"): { removed: boolean; line: string };
  setPermissionMode(mode: PermissionMode): void;
  /** Switches the coordinator (and sub-agents that inherit) to another model; throws a one-line error for one that cannot be used. */
  setModel(name: string): void;
  /** Summarises the coordinator's older history now. False: nothing old enough to summarise. */
  compact(): Promise<boolean>;
  /** `@path` mentions and `!command` (absent in stand-ins: the input box then says so). */
  readonly input?: UserInputApi;
  /** Every configured MCP server's last known state. */
  mcpServers(): McpServerState[];
  /** Change sets, diffs, review decisions and rewinds. */
  readonly review?: ReviewApi;
  close(): Promise<void>;
}
