import type { AgentStatus } from "../../events/types.js";
import type { MdScan } from "./blocks.js";
import type { BoardState } from "../../orchestrator/task-board.js";

/** A tool call's life as the dashboard shows it. */
export type ToolState = "queued" | "waiting" | "asking" | "running" | "ok" | "failed" | "denied" | "cancelled";

/** "md": a finished block of the assistant's markdown (several lines); "text": a line still streaming or not yet settled into a block. */
export type TextKind = "user" | "text" | "md" | "thinking" | "notice" | "error";

/** One logical line of a pane's transcript (only "md" entries contain newlines). */
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
      /** The first line of the error, for one-row views. */
      readonly error?: string;
      /** The whole error text (zoom shows it uncut). */
      readonly errorText?: string;
      /** What the model received, sanitised; dropped for the oldest calls when a pane holds too much. */
      readonly output?: string;
      readonly outputDropped?: true;
      /** The unified diff a file tool applied. */
      readonly diff?: string;
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
  /** How far the streamed lines have been scanned for finished markdown blocks. */
  readonly md?: MdScan;
  /** Text deltas seen since the last assistant_message (so its content is not shown twice). */
  readonly streamed: boolean;
  readonly currentTool?: { readonly callId: string; readonly name: string; readonly summary: string };
  readonly steps: number;
  readonly tokens: AgentTokens;
  readonly startedAt: number;
  readonly finishedAt?: number;
  /** Its parent's delegate call returned at once (background: true, or Ctrl+B). */
  readonly background?: boolean;
  /** A resumed session continued it from its history (the run had stopped while it worked). */
  readonly continued?: boolean;
  /** The board task it owns (its pane's title shows it). */
  readonly boardTask?: { readonly id: string; readonly title: string };
}

export interface AgentTokens {
  readonly input: number;
  readonly output: number;
  readonly cached?: number;
  /** USD, when the model's price is known. */
  readonly cost?: number;
  /** A request was priced at nothing known: the cost is unknown (or only a part of it is known). */
  readonly unpriced?: boolean;
  /** The agent's own money limit for this run (budget_set), USD. */
  readonly limitUsd?: number;
}

/** The run's account as the header shows it: spend since the run's budget_set, against its limits. */
export interface RunBudgetView {
  readonly maxCostUsd?: number;
  readonly maxTokens?: number;
  readonly cost: number;
  readonly tokens: number;
  readonly unpriced?: boolean;
}

export interface McpView {
  readonly state: "connecting" | "connected" | "failed" | "restarted" | "disabled";
  readonly tools?: number;
  readonly reason?: string;
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
  readonly totals: { readonly input: number; readonly output: number; readonly cached: number; readonly cost?: number; readonly unpriced?: boolean };
  /** The run in progress has limits (budget_set of scope run). */
  readonly runBudget?: RunBudgetView;
  readonly seq: number;
  /** MCP servers by name, as their last mcp_status said. */
  readonly mcp: Readonly<Record<string, McpView>>;
  /** Running and waiting tool calls, as the scheduler counts them. */
  readonly scheduler: { readonly running: number; readonly waiting: number };
  /** Writes refused because the file had changed since the agent saw it (write_conflict events). */
  readonly conflicts: number;
  /** The team's task board, once a task exists (/tasks shows it). */
  readonly tasks?: BoardState;
}
