import { toolFinished } from "../events/constructors.js";
import type { EmitFn, ToolCall } from "../events/types.js";
import { formatValidationError, type ToolRegistry } from "./registry.js";
import type { Permissions, PreToolHookAnswer } from "./permissions/engine.js";
import { hiddenRead } from "./read-gate.js";
import { CancelledError, type Scheduler } from "./scheduler.js";
import type { SandboxRequest } from "./sandbox/types.js";
import { nestedRepoNotes, type NestedRepoReport } from "./sandbox/nested-repos.js";
import { writtenPaths } from "./written-paths.js";
import type { AnyTool, ToolResult } from "./tool.js";
import { withHookNotes, type HookCaller, type StopRun, type ToolHooks } from "./tool-hooks.js";
import type { CallVersions, FileVersions } from "./versions.js";
import type { Workspace } from "./workspace.js";
import { CancelScope } from "../util/cancel-scope.js";
import { errorLine } from "../util/text.js";
import { abortReason, toolStatusOf, toolStatusOfError } from "../util/errors.js";

/** Who is calling: the executor enforces this agent's whitelist. */
export interface CallerContext {
  agentId: string;
  parentId?: string;
  agentName: string;
  /** The whitelist check, from the agent definition. */
  allows(toolName: string): boolean;
  signal: AbortSignal;
  /** The agent's own workspace (a git worktree) when it has one; else the session's. */
  workspace?: Workspace;
}

/** A call that passed every check and may be scheduled. */
interface AdmittedCall {
  call: ToolCall;
  tool: AnyTool;
  args: unknown;
  /** What PreToolUse hooks added (additionalContext), for the model next to the result. */
  notes: string[];
  /** For a bash command: the sandbox the permission engine decided it runs in. */
  sandbox?: SandboxRequest;
}

export const CANCELLED_RESULT = "cancelled by user";

/**
 * Runs the tool calls of one assistant message: checks each (known tool, whitelist, JSON, schema,
 * permission) in order, then submits the admitted ones to the scheduler in the same order, so the
 * scheduler's submission order is the model's order. Returns one result per call, in call order,
 * and always one: a refused or cancelled call still gets a result the model can read.
 *
 * Lifecycle hooks: PreToolUse runs after the schema check and before the permission check (its
 * deny refuses the call, its input rewrite is validated again and is what the permission check
 * and the tool see); PostToolUse / PostToolUseFailure run after a call that ran, before its
 * tool_finished, so what they tell the model is part of the recorded result.
 */
export class ToolExecutor {
  constructor(
    private readonly deps: {
      registry: ToolRegistry;
      scheduler: Scheduler;
      permissions: Permissions;
      workspace: Workspace;
      emit: EmitFn;
      /** Resolves once every event emitted so far is on disk (the session log's durable()). */
      durable?: () => Promise<void>;
      /** The session's read versions: every file tool checks its writes against them. */
      versions: FileVersions;
      hooks?: ToolHooks;
      /** A hook's `continue: false`: the run ends. */
      stopRun?: StopRun;
      /** Awaited before a call that may write runs, with the root it works in (Sandbox.beforeWrite: the first look at nested repositories). */
      beforeWrite?: (root: string) => Promise<void>;
      /** Right after a call wrote, where (written-paths.ts): the check of the repositories it may have made (Sandbox.afterWrite). */
      afterWrite?: (root: string, written: readonly string[] | null) => Promise<NestedRepoReport[]>;
    },
  ) {}

  async runAll(calls: ToolCall[], caller: CallerContext): Promise<ToolResult[]> {
    const results: (ToolResult | undefined)[] = new Array(calls.length);
    const admitted: { index: number; admitted: AdmittedCall }[] = [];
    const startedAt = Date.now();

    for (const [index, call] of calls.entries()) {
      if (caller.signal.aborted) break;
      const checked = await this.check(call, caller);
      if ("result" in checked) results[index] = this.finish(call, caller, checked.result, startedAt);
      else admitted.push({ index, admitted: checked });
    }

    await Promise.all(
      admitted.map(async ({ index, admitted: a }) => {
        results[index] = await this.schedule(a, caller);
      }),
    );

    return calls.map((call, i) => results[i] ?? this.finish(call, caller, cancelled(caller.signal), startedAt));
  }

  private async check(call: ToolCall, caller: CallerContext): Promise<AdmittedCall | { result: ToolResult }> {
    const { registry, permissions } = this.deps;
    const tool = registry.get(call.name);
    if (!tool) {
      const offered = registry.list().filter((t) => caller.allows(t.name)).map((t) => t.name);
      return refuse(`unknown tool "${call.name}"; available tools: ${offered.join(", ") || "none"}`);
    }
    if (!caller.allows(tool.name)) {
      return refuse(`tool "${tool.name}" is not available to agent ${caller.agentName}; it was not run`, [], "denied");
    }
    if (call.parseError !== undefined) {
      return refuse(
        `the arguments for ${call.name} are not valid JSON (${call.parseError}). You sent: ${call.raw}\n` +
          `Send the call again with the arguments as one JSON object.`,
      );
    }
    const parsed = tool.params.safeParse(call.args ?? {});
    if (!parsed.success) return refuse(formatValidationError(tool.name, parsed.error));
    let args: unknown = parsed.data;

    const notes: string[] = [];
    let hookAnswer: PreToolHookAnswer | undefined;
    const hooks = this.deps.hooks;
    if (hooks?.has("PreToolUse")) {
      // A hook's `if` on a command reads it with the shell grammar, as the check after it does.
      await permissions.readyFor(caller.agentId, tool, args, caller.workspace);
      const pre = await hooks.preToolUse(callerOf(caller), { id: call.id, name: tool.name, args }, { signal: caller.signal, ruleMatches: (rule) => permissions.ruleMatches(tool, args, rule) });
      if (caller.signal.aborted) return { result: cancelled(caller.signal) };
      notes.push(...pre.additionalContext.map((c) => `PreToolUse hook context: ${c}`));
      if (pre.decision === "deny") return refuse(`denied by a PreToolUse hook: ${pre.reason ?? "no reason given"}`, notes, "denied");
      if (pre.stop) {
        this.deps.stopRun?.(caller.agentId, `a PreToolUse hook stopped the run: ${pre.stop.reason}`);
        return refuse(`not run: a PreToolUse hook stopped the run: ${pre.stop.reason}`, notes, "cancelled");
      }
      if (pre.updatedInput) {
        const again = tool.params.safeParse(pre.updatedInput);
        if (!again.success) return refuse(`not run: a PreToolUse hook rewrote the input into an invalid one: ${formatValidationError(tool.name, again.error)}`, notes);
        args = again.data;
      }
      if (pre.decision === "allow" || pre.decision === "ask") hookAnswer = { decision: pre.decision, rule: pre.rule ?? "hook PreToolUse", reason: pre.reason };
    }

    // A deny rule on content holds for every tool that declares what it reads, before anyone is asked.
    const hidden = this.hiddenRead(tool, args, caller);
    if (hidden) return refuse(hidden, notes, "denied");
    const decision = await permissions.check(
      { callId: call.id, agentId: caller.agentId, parentId: caller.parentId, agentName: caller.agentName, tool, args, workspace: caller.workspace },
      caller.signal,
      hookAnswer,
    );
    if (caller.signal.aborted) return { result: cancelled(caller.signal) };
    if (!decision.allowed) return refuse(decision.reason, notes, "denied");
    const rewritten = decision.args !== undefined && decision.args !== args ? this.hiddenRead(tool, decision.args, caller) : null;
    if (rewritten) return refuse(rewritten, notes, "denied");
    return { call, tool, args: decision.args ?? args, notes, sandbox: decision.sandbox };
  }

  /** Why a call may not read what it declares (a deny rule hides it), or null. */
  private hiddenRead(tool: AnyTool, args: unknown, caller: CallerContext): string | null {
    const hidden = hiddenRead(tool, args, caller.workspace ?? this.deps.workspace, (p) => this.deps.permissions.readDenied(p));
    // Worded as a deny rule's refusal, which it is: only the subject (a file the call would read) differs.
    return hidden && `denied by rule deny: ${hidden.rule} (${tool.name} would read ${hidden.path})`;
  }

  private async schedule({ call, tool, args, notes, sandbox }: AdmittedCall, caller: CallerContext): Promise<ToolResult> {
    const { scheduler, emit } = this.deps;
    const workspace = caller.workspace ?? this.deps.workspace;
    const startedAt = Date.now();
    const versions = tool.unscheduled
      ? undefined
      : this.deps.versions.forCall({ agentId: caller.agentId, parentId: caller.parentId, callId: call.id, tool: call.name, emit });
    const readDenied = (relative: string) => this.deps.permissions.readDenied(relative);
    const { beforeWrite, afterWrite } = this.deps;
    const writes = tool.unscheduled || !tool.readOnly(args);
    const execute = async (signal: AbortSignal) => {
      // A delegation (unscheduled) says it reads only, but its agents write, and a worktree's work merges back here.
      if (beforeWrite && writes) await beforeWrite(workspace.root);
      versions?.begin();
      const result = await tool.execute(args, { signal, workspace, agentId: caller.agentId, callId: call.id, emit, versions, sandbox, readDenied });
      // Before the result goes back (and while the call still holds its paths): a repository the
      // write made or completed is checked now, not at the next command (the user's git runs meanwhile).
      if (!afterWrite || !writes || tool.unscheduled) return result;
      const notes = nestedRepoNotes(await afterWrite(workspace.root, writtenPaths(tool, args, workspace)), workspace.root, caller.agentId);
      return notes ? { ...result, content: result.content + notes } : result;
    };
    // Each call gets its own scope below the agent's: whatever listeners a tool or SDK leaves on
    // its signal die with the call instead of piling up on the agent's long-lived one.
    const scope = new CancelScope(caller.signal);
    let result: ToolResult;
    try {
      if (tool.unscheduled) {
        emit({ type: "tool_started", agentId: caller.agentId, parentId: caller.parentId, callId: call.id, name: call.name });
        // Its start is on disk before it runs; the starts of one turn share the sync (SessionLog.durable).
        await this.deps.durable?.();
        result = await execute(scope.signal);
      } else {
        // A command in a read-only sandbox cannot write, whatever it says: it is a read.
        let access = sandbox === "read-only" ? { reads: [workspace.root], writes: [] } : safeAccess(tool, args, workspace);
        // An agent in its own worktree cannot touch anyone else's files through its workspace: its
        // "everything" is its worktree, which no other agent's paths are in.
        const ownWorktree = caller.workspace !== undefined && caller.workspace !== this.deps.workspace;
        if (access === "exclusive" && ownWorktree) access = { reads: [], writes: [workspace.root] };
        const detects = versions && !ownWorktree && (access === "exclusive" || access.command === true);
        const scheduled = { callId: call.id, agentId: caller.agentId, parentId: caller.parentId, name: call.name, args, access };
        result = await scheduler.run(scheduled, detects ? detectWrites(execute, versions) : execute, scope.signal);
      }
    } catch (error) {
      if (error instanceof CancelledError || caller.signal.aborted) result = cancelled(caller.signal);
      else result = { ok: false, status: toolStatusOfError(error), error: errorLine(error), content: `Error: ${tool.name} failed: ${errorLine(error)}` };
    } finally {
      scope.dispose();
    }
    // A tool that failed because of the cancel reads as cancelled; delegate's own result (the
    // sub-agent's partial answer and id, for a later resume) is kept.
    if (caller.signal.aborted && !result.ok && !tool.unscheduled) result = cancelled(caller.signal);
    if (this.deps.hooks) result = await this.afterCall(this.deps.hooks, { call, tool, args, notes }, caller, result, Date.now() - startedAt);
    else if (notes.length) result = { ...result, content: withHookNotes(result.content, notes) };
    return this.finish(call, caller, result, startedAt, versions);
  }

  /**
   * PostToolUse after a call that succeeded (it may replace the output, and its block reason and
   * context are appended for the model), PostToolUseFailure after one that failed. A call cut by a
   * cancel gets its PostToolUseFailure (is_interrupt) in the background: nobody waits for it, and
   * the shutdown path lets it finish within its deadline.
   */
  private async afterCall(hooks: ToolHooks, admitted: AdmittedCall, caller: CallerContext, result: ToolResult, durationMs: number): Promise<ToolResult> {
    const { call, tool, args } = admitted;
    const notes = [...admitted.notes];
    const who = callerOf(caller);
    const hooked = { id: call.id, name: tool.name, args };
    const opts = { signal: caller.signal, ruleMatches: (rule: string) => this.deps.permissions.ruleMatches(tool, args, rule) };
    let post: { feedback: string[]; additionalContext: string[]; updatedContent?: string; stop?: { reason: string } } | undefined;
    if (result.ok && hooks.has("PostToolUse")) post = await hooks.postToolUse(who, hooked, result, durationMs, opts);
    else if (!result.ok && hooks.has("PostToolUseFailure")) {
      const failure = { error: result.error ?? result.content, isInterrupt: caller.signal.aborted };
      if (failure.isInterrupt) void hooks.postToolUseFailure(who, hooked, failure, { ruleMatches: opts.ruleMatches });
      else post = await hooks.postToolUseFailure(who, hooked, failure, opts);
    }
    let content = result.content;
    if (post) {
      if (post.updatedContent !== undefined) content = post.updatedContent;
      const event = result.ok ? "PostToolUse" : "PostToolUseFailure";
      notes.push(...post.feedback.map((f) => `${event} hook feedback: ${f}`), ...post.additionalContext.map((c) => `${event} hook context: ${c}`));
      if (post.stop) this.deps.stopRun?.(caller.agentId, `a ${event} hook stopped the run: ${post.stop.reason}`);
    }
    return content === result.content && !notes.length ? result : { ...result, content: withHookNotes(content, notes) };
  }

  private finish(call: ToolCall, caller: CallerContext, given: ToolResult, startedAt: number, versions?: CallVersions): ToolResult {
    const status = toolStatusOf(given);
    const result: ToolResult = { ...given, ok: status === "ok", status };
    this.deps.emit(
      toolFinished(caller, { callId: call.id, name: call.name }, {
        status,
        content: result.content,
        error: result.error,
        durationMs: Date.now() - startedAt,
        diff: typeof result.meta?.diff === "string" ? result.meta.diff : undefined,
        versions: versions?.touches,
        exitCode: typeof result.meta?.exitCode === "number" || result.meta?.exitCode === null ? result.meta.exitCode : undefined,
      }),
    );
    return result;
  }
}

/**
 * Runs a command (or an exclusive call), then finds which known files it changed; files that had
 * changed before it started are first counted as changed outside. The scan runs inside the
 * scheduled task, while the call still holds every path against writes, so nothing else of orca's
 * can have changed them: the changes are this agent's (reads beside it only record what they saw).
 * It runs however the call ended (a cancelled command may have written half its files).
 */
function detectWrites(execute: (signal: AbortSignal) => Promise<ToolResult>, versions: CallVersions) {
  return async (signal: AbortSignal): Promise<ToolResult> => {
    // What changed before the command started is not the command's (issue 33: it laundered a change).
    await versions.beforeExclusive();
    let result: ToolResult;
    try {
      result = await execute(signal);
    } catch (error) {
      await versions.afterExclusive();
      throw error;
    }
    const changed = await versions.afterExclusive();
    if (changed.length === 0) return result;
    const prior = Array.isArray(result.meta?.filesChanged) ? (result.meta.filesChanged as unknown[]) : [];
    return { ...result, meta: { ...result.meta, filesChanged: [...new Set([...prior, ...changed])] } };
  };
}

function safeAccess(tool: AnyTool, args: unknown, workspace: Workspace) {
  try {
    return tool.access(args, workspace);
  } catch {
    // A tool that cannot say what it touches is treated as touching everything.
    return "exclusive" as const;
  }
}

function refuse(message: string, notes: readonly string[] = [], status: "error" | "denied" | "cancelled" = "error"): { result: ToolResult } {
  return { result: { ok: false, status, error: message.split("\n")[0], content: withHookNotes(`Error: ${message}`, notes) } };
}

function callerOf(caller: CallerContext): HookCaller {
  return { id: caller.agentId, type: caller.agentName, parentId: caller.parentId };
}

/** The scope's own reason when it gave one ("time budget reached"), else a user's cancel. */
function cancelled(signal: AbortSignal): ToolResult {
  const reason = abortReason(signal).message;
  return { ok: false, status: "cancelled", error: reason, content: reason };
}

