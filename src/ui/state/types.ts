import type { AgentStatus } from "../../events/types.js";

/** A tool call's life as the dashboard shows it. */
export type ToolState = "queued" | "waiting" | "asking" | "running" | "ok" | "failed" | "denied" | "cancelled";

export type TextKind = "user" | "text" | "thinking" | "notice" | "error";

/** One logical line of a pane's transcript (text entries never contain a newline). */
export type Entry =
  | { readonly seq: number; readonly kind: TextKind; readonly text: string }
  | {
      readonly seq: number;
      readonly kind: "tool";
      readonly callId: string;
      readonly name: string;
      /** A one-line digest of the arguments (path, command, pattern…). */
      readonly summary: string;
      readonly state: ToolState;
      readonly queuedAt: number;
      readonly startedAt?: number;
      readonly durationMs?: number;
      readonly error?: string;
      readonly waitsFor: readonly string[];
      /** Who the scheduler made this call wait for, as the user knows them (agent and label, or a tool). */
      readonly blockers?: readonly string[];
      /** Set when the call was a write refused as stale ("stale: changed by editor-2"). */
      readonly conflict?: string;
      /** Lifecycle hooks that ran for this call: "PreToolUse 12ms", "PreToolUse deny 8ms". */
      readonly hooks?: readonly string[];
      /** For a command allowed to run: the sandbox it runs in, or "none" (outside any). */
      readonly sandbox?: "read-only" | "workspace-write" | "none";
    };

export type ToolEntry = Extract<Entry, { kind: "tool" }>;

/** "idle": the coordinator between runs. */
export type AgentState = "idle" | "running" | AgentStatus;

export interface AgentView {
  readonly id: string;
  readonly name: string;
  readonly label?: string;
  readonly task: string;
  readonly parentId?: string;
  readonly depth: number;
  readonly status: AgentState;
  /** Bounded ring of logical lines, oldest first. */
  readonly entries: readonly Entry[];
  /** How many lines the ring has dropped from its head. */
  readonly dropped: number;
  /** The kind of the last entry while it is still being streamed into. */
  readonly open: "text" | "thinking" | null;
  /** Text deltas seen since the last assistant_message (so its content is not shown twice). */
  readonly streamed: boolean;
  readonly currentTool?: { readonly callId: string; readonly name: string; readonly summary: string };
  readonly steps: number;
  readonly tokens: { readonly input: number; readonly output: number };
  readonly startedAt: number;
  readonly finishedAt?: number;
  /** Its parent's delegate call returned at once (background: true, or Ctrl+B). */
  readonly background?: boolean;
}

/** A call that has not finished yet: what the queue line shows. */
export interface ActiveCall {
  readonly agentId: string;
  readonly callId: string;
  readonly name: string;
  readonly summary: string;
  readonly state: ToolState;
  readonly waitsFor: readonly string[];
  readonly blockers?: readonly string[];
}

export interface DashboardState {
  readonly rootAgentId: string;
  readonly maxLines: number;
  readonly session: {
    readonly id?: string;
    readonly model?: string;
    readonly workspace?: string;
    readonly startedAt?: number;
    readonly status?: string;
    /** The dashboard opened on a logged session (--resume / --continue). */
    readonly resumed?: boolean;
  };
  readonly agents: Readonly<Record<string, AgentView>>;
  /** Sub-agent ids in the order they first started. */
  readonly order: readonly string[];
  /** Unfinished calls keyed by `agentId \0 callId` (model call ids may repeat across agents). */
  readonly active: Readonly<Record<string, ActiveCall>>;
  readonly totals: { readonly input: number; readonly output: number; readonly cached: number; readonly cost?: number };
  readonly seq: number;
  /** Running and waiting tool calls, as the scheduler counts them. */
  readonly scheduler: { readonly running: number; readonly waiting: number };
  /** Writes refused because the file had changed since the agent saw it (write_conflict events). */
  readonly conflicts: number;
}
