import type { EmitFn, ToolCall } from "../events/types.js";
import { formatValidationError, type ToolRegistry } from "./registry.js";
import type { Permissions } from "./permissions/engine.js";
import { CancelledError, type Scheduler } from "./scheduler.js";
import type { AnyTool, ToolResult } from "./tool.js";
import type { CallVersions, FileVersions } from "./versions.js";
import type { Workspace } from "./workspace.js";
import { CancelScope } from "../util/cancel-scope.js";
import { errorLine } from "../util/text.js";

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
}

export const CANCELLED_RESULT = "cancelled by user";

/**
 * Runs the tool calls of one assistant message: checks each (known tool, whitelist, JSON, schema,
 * permission) in order, then submits the admitted ones to the scheduler in the same order, so the
 * scheduler's submission order is the model's order. Returns one result per call, in call order,
 * and always one: a refused or cancelled call still gets a result the model can read.
 */
export class ToolExecutor {
  constructor(
    private readonly deps: {
      registry: ToolRegistry;
      scheduler: Scheduler;
      permissions: Permissions;
      workspace: Workspace;
      emit: EmitFn;
      /** The session's read versions: every file tool checks its writes against them. */
      versions: FileVersions;
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
      return refuse(`tool "${tool.name}" is not available to agent ${caller.agentName}; it was not run`);
    }
    if (call.parseError !== undefined) {
      return refuse(
        `the arguments for ${call.name} are not valid JSON (${call.parseError}). You sent: ${call.raw}\n` +
          `Send the call again with the arguments as one JSON object.`,
      );
    }
    const parsed = tool.params.safeParse(call.args ?? {});
    if (!parsed.success) return refuse(formatValidationError(tool.name, parsed.error));

    const decision = await permissions.check(
      { callId: call.id, agentId: caller.agentId, parentId: caller.parentId, agentName: caller.agentName, tool, args: parsed.data, workspace: caller.workspace },
      caller.signal,
    );
    if (caller.signal.aborted) return { result: cancelled(caller.signal) };
    if (!decision.allowed) return refuse(decision.reason);
    return { call, tool, args: parsed.data };
  }

  private async schedule({ call, tool, args }: AdmittedCall, caller: CallerContext): Promise<ToolResult> {
    const { scheduler, emit } = this.deps;
    const workspace = caller.workspace ?? this.deps.workspace;
    const startedAt = Date.now();
    const versions = tool.unscheduled
      ? undefined
      : this.deps.versions.forCall({ agentId: caller.agentId, parentId: caller.parentId, callId: call.id, tool: call.name, emit });
    const execute = (signal: AbortSignal) =>
      tool.execute(args, { signal, workspace, agentId: caller.agentId, callId: call.id, emit, versions });
    // Each call gets its own scope below the agent's: whatever listeners a tool or SDK leaves on
    // its signal die with the call instead of piling up on the agent's long-lived one.
    const scope = new CancelScope(caller.signal);
    let result: ToolResult;
    try {
      if (tool.unscheduled) {
        emit({ type: "tool_started", agentId: caller.agentId, parentId: caller.parentId, callId: call.id, name: call.name });
        result = await execute(scope.signal);
      } else {
        let access = safeAccess(tool, args, workspace);
        // An agent in its own worktree cannot touch anyone else's files through its workspace: its
        // "everything" is its worktree, which no other agent's paths are in.
        if (access === "exclusive" && caller.workspace && caller.workspace !== this.deps.workspace) access = { reads: [], writes: [workspace.root] };
        const scheduled = { callId: call.id, agentId: caller.agentId, parentId: caller.parentId, name: call.name, args, access };
        result = await scheduler.run(scheduled, access === "exclusive" && versions ? detectWrites(execute, versions) : execute, scope.signal);
      }
    } catch (error) {
      if (error instanceof CancelledError || caller.signal.aborted) result = cancelled(caller.signal);
      else result = { ok: false, error: errorLine(error), content: `Error: ${tool.name} failed: ${errorLine(error)}` };
    } finally {
      scope.dispose();
    }
    // A tool that failed because of the cancel reads as cancelled; delegate's own result (the
    // sub-agent's partial answer and id, for a later resume) is kept.
    if (caller.signal.aborted && !result.ok && !tool.unscheduled) result = cancelled(caller.signal);
    return this.finish(call, caller, result, startedAt, versions);
  }

  private finish(call: ToolCall, caller: CallerContext, result: ToolResult, startedAt: number, versions?: CallVersions): ToolResult {
    this.deps.emit({
      type: "tool_finished",
      agentId: caller.agentId,
      parentId: caller.parentId,
      callId: call.id,
      name: call.name,
      ok: result.ok,
      content: result.content,
      error: result.error,
      durationMs: Date.now() - startedAt,
      versions: versions?.touches.length ? versions.touches : undefined,
    });
    return result;
  }
}

/**
 * Runs an exclusive call (a bash command the scheduler treated as a write), then finds which known
 * files it changed. The scan runs inside the scheduled task, while the call still holds every
 * path, so nothing else of orca's can have changed them: the changes are this agent's. It runs
 * however the call ended (a cancelled command may have written half its files).
 */
function detectWrites(execute: (signal: AbortSignal) => Promise<ToolResult>, versions: CallVersions) {
  return async (signal: AbortSignal): Promise<ToolResult> => {
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

function refuse(message: string): { result: ToolResult } {
  return { result: { ok: false, error: message.split("\n")[0], content: `Error: ${message}` } };
}

/** The scope's own reason when it gave one ("time budget reached"), else a user's cancel. */
function cancelled(signal: AbortSignal): ToolResult {
  const reason = typeof signal.reason === "string" ? signal.reason : CANCELLED_RESULT;
  return { ok: false, error: reason, content: reason };
}

