import type { AgentReport } from "../agent/definition.js";
import type { Config } from "../config/schema.js";
import type { OrcaEvent } from "../events/types.js";
import type { Hooks } from "../hooks/index.js";
import type { ChatMessage, Model, ToolSpec } from "../model/model.js";
import type { ContentStore } from "../sessions/content-store.js";
import type { ReapOutcome } from "../sessions/leftovers.js";
import type { TeamPlan } from "../sessions/team-plan.js";
import type { Approver } from "../tools/approver.js";
import type { AnyTool } from "../tools/tool.js";
import type { Workspace } from "../tools/workspace.js";
import type { NestedRepoReport } from "../tools/sandbox/index.js";
import type { AgentEvidence } from "../review/agent-evidence.js";
import type { PidLock } from "../util/pid-lock.js";
import type { AgentState } from "./agents.js";
import type { McpStatusSource } from "./mcp-status.js";

import type { UserInputDeps } from "./user-input.js";
import type { ConversationMark } from "../sessions/history.js";

/** What a Session is built from: the config, the workspace, and everything create.ts assembled. */
export interface SessionDeps {
  config: Config;
  configPath: string | null;
  workspace: Workspace;
  agents: AgentReport;
  /** Builds the model for a name ("inherit" resolved already). */
  modelFor(name: string): Model;
  approver: Approver;
  /** Tools other than delegate (built-ins, get_skill); MCP tools come through `toolSources`. */
  tools: AnyTool[];
  toolSources?: Record<string, () => AnyTool[]>;
  /** Awaited before the first model request (MCP servers connecting). */
  ready?: Promise<void>;
  skillsIndex?: string;
  preloadSkills?(names: string[]): string;
  /** The project instructions section for system prompts (config/instructions.ts). */
  instructions?: string;
  /** Where the JSONL log goes; null for no log. */
  logFile: string | null;
  /** The log's lock when the caller holds it already (resume); else the log takes it. */
  logLock?: PidLock;
  secrets?: string[];
  version: string;
  sessionId?: string;
  agentName?: string;
  /** Runs a command the person typed (`!command`), as create.ts binds runPersonCommand. */
  personCommand?: UserInputDeps["run"];
  /** Called by close(): kill shells, close MCP. */
  onClose?(): Promise<void>;
  /** Optional compaction, run before each model request with the tools that request offers. */
  compact?(agent: AgentState, history: ChatMessage[], signal: AbortSignal, tools: ToolSpec[], force?: boolean): Promise<boolean | void>;
  /** MCP servers' status, turned into mcp_status events. */
  mcp?: McpStatusSource;
  /** Set when this session continues a logged one (recorded in session_started). */
  resumedFrom?: string;
  /** Lifecycle hooks (issue #15); none configured costs nothing. */
  hooks?: Hooks;
  /**
   * Whether commands can be sandboxed: auto-approval of commands rests on it (DESIGN §7); and what
   * every write of an agent in a root awaits first (Sandbox.beforeWrite).
   */
  sandbox?: { readonly available: boolean; beforeWrite?(root: string): Promise<void>; afterWrite?(root: string, written: readonly string[] | null): Promise<NestedRepoReport[]> };
  /** Where `isolation: worktree` agents get their git worktrees (`<data_dir>/worktrees`); unset: no isolation. */
  worktreeDir?: string;
  /** A resumed session's processes its crashed run left (ended or found gone): start() logs their end. */
  leftovers?: ReapOutcome[];
  /** What the resume told the model for interrupted calls it could describe (session_started keeps it). */
  interrupted?: { callId: string; result: string }[];
  /** Each agent's verify commands and change_set when it ends, and the evidence its parent reads (attached to the bus by create.ts). */
  evidence?: AgentEvidence;
  /** The session's content store (file versions for diffs and restores); none: changes are logged, not kept. */
  contents?: ContentStore;
  /** The events of the log a resumed session continues (its change sets span them). */
  priorEvents?: readonly OrcaEvent[];
  /** A resumed session's run that stopped with sub-agents at work: the team the next run continues (team-resume.ts). */
  team?: TeamPlan;
  /** The coordinator's conversation at each turn checkpoint of that log (/rewind N conversation). */
  priorConversation?: ReadonlyMap<string, ConversationMark>;
}
