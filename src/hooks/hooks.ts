import type { HookEventName } from "../config/hooks.js";
import type { AgentStatus, EmitFn } from "../events/types.js";
import { aggregateBlocking, aggregateContext, aggregatePermissionRequest, aggregatePreToolUse, cap, type StopRequest } from "./aggregate.js";
import { hookCommandLine, type ConfiguredHook } from "./config.js";
import { claudeToolName, orcaToolInput } from "./names.js";
import type { HookVerdict } from "./output.js";
import { commonFields, toolFields, toolResponse, type HookAgent, type HookSession, type HookToolCall, type HookToolResult } from "./payload.js";
import type { WrapCommand } from "./process.js";
import { HookRunner, type HookRun } from "./runner.js";

/**
 * The one object the core calls at each lifecycle moment. Every method is cheap when no hook is
 * configured for its event (no payload is built, nothing is spawned) and never throws: a hook
 * that fails is a warning in its hook_finished event, never a failed tool call or run.
 *
 * Where each is called from:
 *   preToolUse          tools/executor.ts ToolExecutor.check: after schema validation, before the permission check
 *   permissionRequest   tools/permissions/engine.ts Permissions.ask: just before the approver is asked
 *   notification        engine.ts Permissions.askApprover: when a person (the dialog) is asked; not awaited
 *   postToolUse(Failure) executor.ts ToolExecutor.afterCall: after a call that ran, before tool_finished
 *   userPromptSubmit    orchestrator/lifecycle.ts RunLifecycle.submitPrompt (Session.run), before user_message
 *   sessionStart/End    RunLifecycle.sessionStart (Session.start) / RunLifecycle.close (Session.close, before onClose)
 *   preCompact          agent/compaction.ts compactHistory (beforeCompact), once a compaction is decided
 *   subagentStart/Stop  orchestrator/lifecycle.ts runSubagent, the one wrapper of every sub-agent run (delegation.ts)
 *   stop                RunLifecycle.afterStop (Session.run), after the root's loop, unless the run was cancelled
 *   settleSubagents     RunLifecycle.close, and cli/headless.ts on a second SIGINT/SIGTERM, with a short deadline
 *   setCommandWrapper   the command sandbox, once open (orchestrator/create.ts)
 */

export interface HooksOptions {
  hooks: readonly ConfiguredHook[];
  session: HookSession;
  /** The environment hooks inherit (orca's own). */
  env: NodeJS.ProcessEnv;
  /** Values no hook may inherit (orca's model key): variables holding one are left out. */
  secrets?: readonly (string | undefined)[];
  emit: EmitFn;
  wrap?: WrapCommand;
  defaultTimeoutMs?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Caps every hook's timeout (the shutdown path). */
  maxTimeoutMs?: number;
}

export interface ToolCallOptions extends CallOptions {
  /** orca's permission-rule matcher for the call, for handlers with an `if` rule. */
  ruleMatches?(rule: string): boolean;
}

export interface PreToolUseOutcome {
  /** Undefined: no hook decided; the permission check goes on as usual. */
  decision?: "allow" | "deny" | "ask";
  /** deny: what the model reads. allow / ask: shown to the user. */
  reason?: string;
  /** The deciding hook, for permission_decided's rule: `hook PreToolUse: ./check.sh`. */
  rule?: string;
  /** The whole new input, in orca's shape, to validate again and check permissions on. */
  updatedInput?: Record<string, unknown>;
  /** To put next to the tool's result. */
  additionalContext: string[];
  /** `continue: false`: end the run after this call. */
  stop?: StopRequest;
}

export interface PermissionRequestOutcome {
  behavior?: "allow" | "deny";
  rule?: string;
  updatedInput?: Record<string, unknown>;
  message?: string;
  interrupt: boolean;
}

export interface PostToolUseOutcome {
  /** Block reasons and exit-2 stderr, for the model, next to the result. */
  feedback: string[];
  additionalContext: string[];
  /** updatedToolOutput: what the model gets instead of the tool's own output. */
  updatedContent?: string;
  stop?: StopRequest;
}

export interface UserPromptOutcome {
  /** The prompt is erased and not sent; the reason is for the user. */
  block?: { reason: string };
  additionalContext: string[];
  stop?: StopRequest;
}

export interface StopOutcome {
  /** Set when the agent must go on: its next user message (block reasons and context). */
  continueWith?: string;
  /** stop_hook_active as it was sent. */
  stopHookActive: boolean;
  stop?: StopRequest;
}

/** Claude Code ends a turn after this many consecutive Stop blocks, whatever the hooks say. */
export const MAX_STOP_CONTINUATIONS = 8;

export class Hooks {
  private readonly runner: HookRunner;
  /** Sub-agents whose SubagentStart fired and whose final SubagentStop has not. */
  private readonly open = new Map<string, HookAgent>();
  /** SubagentStop occurrences running now, by agent: the shutdown path waits for them rather than fire again. */
  private readonly stopping = new Map<string, Promise<StopOutcome>>();
  /** Consecutive Stop / SubagentStop continuations per agent. */
  private readonly continuations = new Map<string, number>();

  constructor(private readonly opts: HooksOptions) {
    const secrets = new Set(opts.secrets?.filter((s): s is string => Boolean(s)));
    const env = Object.fromEntries(Object.entries(opts.env).filter(([, value]) => value === undefined || !secrets.has(value)));
    this.runner = new HookRunner({ hooks: opts.hooks, projectDir: opts.session.cwd, env, emit: opts.emit, wrap: opts.wrap, defaultTimeoutMs: opts.defaultTimeoutMs });
  }

  get configured(): readonly ConfiguredHook[] {
    return this.opts.hooks;
  }

  has(event: HookEventName): boolean {
    return this.runner.has(event);
  }

  /** Before the permission check of a call that passed validation. A deny is recorded here (permission_decided, by hook). */
  async preToolUse(agent: HookAgent, call: HookToolCall, opts: ToolCallOptions = {}): Promise<PreToolUseOutcome> {
    if (!this.has("PreToolUse")) return { additionalContext: [] };
    const runs = await this.runTool("PreToolUse", agent, call, {}, opts);
    const result = aggregatePreToolUse(runs.map((r) => r.verdict));
    const rule = result.decidedBy !== undefined ? ruleOf("PreToolUse", runs[result.decidedBy]!.hook) : undefined;
    const outcome: PreToolUseOutcome = { decision: result.decision, reason: result.reason && cap(result.reason), rule, additionalContext: result.additionalContext, stop: result.stop };
    if (result.updatedInput) outcome.updatedInput = orcaToolInput(call.name, result.updatedInput, call.args, this.opts.session.cwd);
    if (result.decision === "deny") this.recordDecision(agent, call, "deny", rule!, outcome.reason);
    else this.reportFailed(agent, call, runs);
    return outcome;
  }

  /**
   * A PreToolUse hook that could not decide (not found, crashed, timed out) lets its call through:
   * said every time, in the transcript and on stderr, naming the hook and the call.
   */
  private reportFailed(agent: HookAgent, call: HookToolCall, runs: readonly HookRun[]): void {
    for (const { hook, verdict } of runs) {
      if ((verdict.outcome !== "error" && verdict.outcome !== "timeout") || verdict.exit2) continue;
      const why = verdict.warning ?? (verdict.stderr.trim().split("\n")[0] || "it failed");
      this.opts.emit({
        type: "error",
        agentId: agent.id,
        parentId: agent.parentId,
        where: "hooks",
        message: `hook PreToolUse (${hookCommandLine(hook)}) could not run (${cap(why)}); the ${call.name} call ${callSummary(call)} went on without its decision`,
      });
    }
  }

  /**
   * When orca is about to ask the user (after rules and mode): a hook may answer for them. A deny,
   * or an allow that keeps the input, is recorded here (permission_decided, by hook).
   */
  async permissionRequest(agent: HookAgent, call: HookToolCall, opts: ToolCallOptions = {}): Promise<PermissionRequestOutcome> {
    if (!this.has("PermissionRequest")) return { interrupt: false };
    const runs = await this.runTool("PermissionRequest", agent, call, {}, opts, false);
    const result = aggregatePermissionRequest(runs.map((r) => r.verdict));
    if (!result.behavior) return { interrupt: false };
    const rule = ruleOf("PermissionRequest", runs[result.decidedBy!]!.hook);
    // An allow that rewrites the input is not final: the new input meets the deny and ask rules first.
    if (result.behavior === "deny" || !result.updatedInput) this.recordDecision(agent, call, result.behavior, rule, result.message);
    const updatedInput = result.updatedInput ? orcaToolInput(call.name, result.updatedInput, call.args, this.opts.session.cwd) : undefined;
    return { behavior: result.behavior, rule, updatedInput, message: result.message, interrupt: result.interrupt };
  }

  /** After a call that ran and succeeded (ok: true). */
  async postToolUse(agent: HookAgent, call: HookToolCall, result: HookToolResult, durationMs: number, opts: ToolCallOptions = {}): Promise<PostToolUseOutcome> {
    if (!this.has("PostToolUse")) return { feedback: [], additionalContext: [] };
    const runs = await this.runTool("PostToolUse", agent, call, { tool_response: toolResponse(this.opts.session, call, result), duration_ms: durationMs }, opts);
    const verdicts = runs.map((r) => r.verdict);
    const blocked = aggregateBlocking("PostToolUse", verdicts);
    return { feedback: blocked.reasons, additionalContext: blocked.additionalContext, updatedContent: updatedOutput(call.name, verdicts), stop: blocked.stop };
  }

  /** After a call that ran and failed (ok: false), including one cancelled while it ran. */
  async postToolUseFailure(agent: HookAgent, call: HookToolCall, failure: { error: string; isInterrupt: boolean }, opts: ToolCallOptions = {}): Promise<PostToolUseOutcome> {
    if (!this.has("PostToolUseFailure")) return { feedback: [], additionalContext: [] };
    const runs = await this.runTool("PostToolUseFailure", agent, call, { error: failure.error, is_interrupt: failure.isInterrupt }, opts);
    const blocked = aggregateBlocking("PostToolUseFailure", runs.map((r) => r.verdict));
    return { feedback: blocked.reasons, additionalContext: blocked.additionalContext, stop: blocked.stop };
  }

  /** orca asks the user something (a permission dialog). Side effects only. */
  async notification(agent: HookAgent, note: { message: string; title?: string; type: string }, opts: CallOptions = {}): Promise<void> {
    if (!this.has("Notification")) return;
    await this.runEvent("Notification", agent, [note.type], { message: note.message, ...(note.title ? { title: note.title } : {}), notification_type: note.type }, opts);
  }

  /** Before a user prompt reaches the coordinator. Call it for every run: it also resets the Stop count. */
  async userPromptSubmit(agent: HookAgent, prompt: string, opts: CallOptions = {}): Promise<UserPromptOutcome> {
    this.continuations.delete(agent.id);
    if (!this.has("UserPromptSubmit")) return { additionalContext: [] };
    const runs = await this.runEvent("UserPromptSubmit", agent, [], { prompt }, opts);
    const result = aggregateBlocking("UserPromptSubmit", runs.map((r) => r.verdict));
    return { ...(result.block ? { block: { reason: result.reasons.join("\n") } } : {}), additionalContext: result.additionalContext, stop: result.stop };
  }

  async sessionStart(start: { source: "startup" | "resume"; model?: string; agent: HookAgent }, opts: CallOptions = {}): Promise<{ additionalContext: string[] }> {
    if (!this.has("SessionStart")) return { additionalContext: [] };
    const runs = await this.runEvent("SessionStart", start.agent, [start.source], { source: start.source, ...(start.model ? { model: start.model } : {}) }, opts);
    return aggregateContext("SessionStart", runs.map((r) => r.verdict));
  }

  /** On the way out; no decision. Without their own timeout, SessionEnd hooks get 1.5 s (Claude Code's budget). */
  async sessionEnd(end: { reason: "prompt_input_exit" | "other"; agent: HookAgent }, opts: CallOptions = {}): Promise<void> {
    if (!this.has("SessionEnd")) return;
    await this.runEvent("SessionEnd", end.agent, [end.reason], { reason: end.reason }, { ...opts, maxTimeoutMs: Math.min(opts.maxTimeoutMs ?? 60_000, 60_000) });
  }

  /** Before a compaction; a block skips it. */
  async preCompact(agent: HookAgent, compact: { trigger: "auto" | "manual"; customInstructions?: string }, opts: CallOptions = {}): Promise<{ block: boolean; reason?: string }> {
    if (!this.has("PreCompact")) return { block: false };
    const runs = await this.runEvent("PreCompact", agent, [compact.trigger], { trigger: compact.trigger, custom_instructions: compact.customInstructions ?? "" }, opts);
    const result = aggregateBlocking("PreCompact", runs.map((r) => r.verdict));
    return result.block ? { block: true, reason: result.reasons.join("\n") } : { block: false };
  }

  /**
   * A sub-agent starts (or is resumed). Call it for every start even when no hook is configured:
   * it opens the entry that guarantees the matching SubagentStop.
   */
  async subagentStart(agent: HookAgent, opts: CallOptions = {}): Promise<{ additionalContext: string[] }> {
    this.open.set(agent.id, agent);
    this.continuations.delete(agent.id);
    if (!this.has("SubagentStart")) return { additionalContext: [] };
    const runs = await this.runEvent("SubagentStart", agent, [agent.type], { agent_id: agent.id, agent_type: agent.type }, opts);
    return aggregateContext("SubagentStart", runs.map((r) => r.verdict));
  }

  /**
   * A sub-agent ended, however: done, failed, cancelled, a budget, max_steps. Fires only for an open
   * entry, and closes it unless the hooks keep the agent going (then it fires again when it next
   * stops, with stop_hook_active). `canContinue` is false when the agent cannot go on (it was
   * cancelled or cut by a limit): a block is then reported but not honoured.
   */
  async subagentStop(agent: HookAgent, end: { status: AgentStatus; lastAssistantMessage: string; canContinue: boolean }, opts: CallOptions = {}): Promise<StopOutcome> {
    if (!this.open.has(agent.id)) return { stopHookActive: false };
    // Closed before the hooks run, so a shutdown arriving meanwhile waits for this one instead of firing a second.
    this.open.delete(agent.id);
    const transcript = this.opts.session.transcriptPath();
    const running = this.stopLike("SubagentStop", agent, end, { agent_id: agent.id, agent_type: agent.type, agent_transcript_path: transcript, status: end.status }, opts);
    this.stopping.set(agent.id, running);
    try {
      const outcome = await running;
      if (outcome.continueWith) this.open.set(agent.id, agent);
      return outcome;
    } finally {
      this.stopping.delete(agent.id);
    }
  }

  /** The coordinator's run ended (not when the user cancelled it: Claude Code skips Stop then too). */
  async stop(agent: HookAgent, end: { status: AgentStatus; lastAssistantMessage: string; canContinue: boolean }, opts: CallOptions = {}): Promise<StopOutcome> {
    return this.stopLike("Stop", agent, end, { status: end.status }, opts);
  }

  /**
   * The shutdown path: SubagentStop, status cancelled, for every sub-agent still open, with a
   * short deadline. After it, every sub-agent that started has had its SubagentStop.
   */
  async settleSubagents(opts: { deadlineMs: number; status?: AgentStatus }): Promise<void> {
    const startedAt = performance.now();
    const pending = [...this.open.values()];
    const firing = pending.map((agent) => this.subagentStop(agent, { status: opts.status ?? "cancelled", lastAssistantMessage: "", canContinue: false }, { maxTimeoutMs: opts.deadlineMs }));
    let timer: NodeJS.Timeout | undefined;
    // A hook's kill takes a moment past its timeout: the deadline holds for the whole shutdown.
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, opts.deadlineMs + 250)));
    await Promise.race([Promise.allSettled([...firing, ...this.stopping.values()]), deadline]);
    clearTimeout(timer);
    // Whatever else still runs (a Notification, an interrupted call's PostToolUseFailure) gets the rest.
    await this.runner.idle(Math.max(0, opts.deadlineMs - (performance.now() - startedAt)));
  }

  /** Connects the command sandbox: from now on every hook is started through `wrap` (undefined: unwrapped). */
  setCommandWrapper(wrap: WrapCommand | undefined): void {
    this.runner.setWrap(wrap);
  }

  /** Process exit: SIGKILL every running hook's process group. */
  killAllSync(): void {
    this.runner.killAllSync();
  }

  private async stopLike(event: "Stop" | "SubagentStop", agent: HookAgent, end: { status: AgentStatus; lastAssistantMessage: string; canContinue: boolean }, fields: Record<string, unknown>, opts: CallOptions): Promise<StopOutcome> {
    const count = this.continuations.get(agent.id) ?? 0;
    const stopHookActive = count > 0;
    if (!this.has(event)) {
      this.continuations.delete(agent.id);
      return { stopHookActive };
    }
    const runs = await this.runEvent(event, agent, [agent.type], { stop_hook_active: stopHookActive, last_assistant_message: end.lastAssistantMessage, ...fields }, opts);
    const result = aggregateBlocking(event, runs.map((r) => r.verdict));
    const message = [...result.reasons, ...result.additionalContext].join("\n\n");
    if (message && end.canContinue && !result.stop && count < MAX_STOP_CONTINUATIONS) {
      this.continuations.set(agent.id, count + 1);
      return { continueWith: message, stopHookActive, stop: result.stop };
    }
    this.continuations.delete(agent.id);
    return { stopHookActive, stop: result.stop };
  }

  private runTool(event: HookEventName, agent: HookAgent, call: HookToolCall, extra: Record<string, unknown>, opts: ToolCallOptions, withUseId = true): Promise<HookRun[]> {
    const session = this.opts.session;
    return this.runner.run({
      event,
      matchValues: [call.name, claudeToolName(call.name)],
      payload: { ...commonFields(session, event, agent), ...toolFields(session, call, withUseId), ...extra },
      agentId: agent.id,
      parentId: agent.parentId,
      callId: call.id,
      signal: opts.signal,
      maxTimeoutMs: opts.maxTimeoutMs,
      ruleMatches: opts.ruleMatches,
    });
  }

  private runEvent(event: HookEventName, agent: HookAgent, matchValues: string[], extra: Record<string, unknown>, opts: CallOptions): Promise<HookRun[]> {
    return this.runner.run({
      event,
      matchValues,
      payload: { ...commonFields(this.opts.session, event, agent), ...extra },
      agentId: agent.id,
      parentId: agent.parentId,
      signal: opts.signal,
      maxTimeoutMs: opts.maxTimeoutMs,
    });
  }

  private recordDecision(agent: HookAgent, call: HookToolCall, decision: "allow" | "deny", rule: string, reason?: string): void {
    this.opts.emit({
      type: "permission_decided",
      agentId: agent.id,
      parentId: agent.parentId,
      callId: call.id,
      tool: call.name,
      rule,
      decision,
      scope: "once",
      by: "hook",
      ...(reason ? { reason } : {}),
    });
  }
}

function ruleOf(event: HookEventName, hook: ConfiguredHook): string {
  return `hook ${event}: ${hookCommandLine(hook)}`;
}

/**
 * PostToolUse's updatedToolOutput (or updatedMCPToolOutput, for an MCP tool): orca's results are
 * text, so a string is taken as is, Claude Code's Bash shape `{stdout, stderr}` as its text, and
 * any other value as JSON.
 */
function updatedOutput(toolName: string, verdicts: readonly HookVerdict[]): string | undefined {
  for (const v of verdicts) {
    const specific = v.outcome === "ok" ? v.output?.hookSpecificOutput : undefined;
    const value = specific?.updatedToolOutput ?? (toolName.startsWith("mcp__") ? specific?.updatedMCPToolOutput : undefined);
    if (value === undefined) continue;
    if (typeof value === "string") return value;
    if (value && typeof value === "object" && typeof (value as { stdout?: unknown }).stdout === "string") {
      const { stdout, stderr } = value as { stdout: string; stderr?: unknown };
      return typeof stderr === "string" && stderr ? `${stdout}\n${stderr}` : stdout;
    }
    return JSON.stringify(value);
  }
  return undefined;
}

/** The call as a person would recognise it: a command's text, else its arguments, cut short. */
function callSummary(call: HookToolCall): string {
  const args = call.args as { command?: unknown } | undefined;
  const text = typeof args?.command === "string" ? args.command : JSON.stringify(call.args ?? {});
  return `\`${text.length > 200 ? `${text.slice(0, 200)}…` : text}\``;
}
