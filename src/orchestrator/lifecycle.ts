import type { AgentOutcome } from "../agent/loop.js";
import type { EmitFn } from "../events/types.js";
import { shellCommandOf, type Hooks, type HookAgent, type WrapCommand } from "../hooks/index.js";
import type { Sandbox } from "../tools/sandbox/index.js";
import { raceAbort } from "../util/race-abort.js";
import type { AgentState } from "./agents.js";

/**
 * The lifecycle hooks around an agent's run that the session and the delegator share: who an
 * agent is to a hook, how hook context joins a message, and the one wrapper every sub-agent run
 * goes through, which guarantees its SubagentStop.
 */

/**
 * Hooks run in the workspace-write sandbox, as an allowed command does: a hook is a command a
 * config file names, and a project's config is only trusted so far (issue #15). Its own
 * environment (CLAUDE_PROJECT_DIR…) is kept, the sandbox's (proxy variables) added.
 */
export function sandboxedHooks(sandbox: Pick<Sandbox, "wrap">): WrapCommand {
  return async (spec) => {
    const wrapped = await sandbox.wrap(shellCommandOf(spec), "workspace-write");
    return { file: wrapped.file, args: wrapped.args, cwd: spec.cwd, env: { ...spec.env, ...wrapped.env }, ...(wrapped.fd3 ? { fd3: wrapped.fd3 } : {}), infoFd: true, lease: wrapped.lease };
  };
}

export function hookAgentOf(agent: AgentState): HookAgent {
  return { id: agent.id, type: agent.definition.name, parentId: agent.parentId };
}

/**
 * A user message with the context hooks added (SessionStart, UserPromptSubmit, SubagentStart
 * additionalContext, their plain stdout). It is part of the message itself, so the log holds what
 * the model read and a resumed session reads it again.
 */
export function withHookContext(text: string, context: readonly string[]): string {
  if (!context.length) return text;
  return [text, ...context.map((c) => `<hook-context>\n${c}\n</hook-context>`)].join("\n\n");
}

/** What a Stop or SubagentStop hook that keeps an agent going says to it, as its next user message. */
export function stopFeedback(event: "Stop" | "SubagentStop", message: string): string {
  return `${event} hook feedback (you may not stop yet):\n${message}`;
}

export interface SubagentRun {
  /** Runs the sub-agent (fresh or resumed) with what SubagentStart hooks added to its task. */
  run(context: string[]): Promise<AgentOutcome>;
  /** Runs it again after a SubagentStop hook kept it going: `message` is its next user message. */
  continueWith(message: string): Promise<AgentOutcome>;
}

/**
 * One sub-agent's run between its SubagentStart and its SubagentStop — the one start point and the
 * one end point. SubagentStop fires however the run ends (done, failed, cancelled, a budget,
 * max_steps, a throw), exactly once for its last stop: the facade closes the agent's entry, so the
 * `finally` and the shutdown path (`settleSubagents`) cannot fire it twice. Its hooks run without
 * the run's abort signal, or a cancel would kill the very hooks that report it.
 */
export async function runSubagent(hooks: Hooks | undefined, agent: AgentState, signal: AbortSignal, run: SubagentRun): Promise<AgentOutcome> {
  if (!hooks) return run.run([]);
  const who = hookAgentOf(agent);
  let outcome: AgentOutcome | undefined;
  try {
    const start = await hooks.subagentStart(who, { signal });
    outcome = await run.run(start.additionalContext);
    for (;;) {
      const end = { status: outcome.status, lastAssistantMessage: outcome.answer, canContinue: outcome.status === "done" && !signal.aborted };
      const stop = await hooks.subagentStop(who, end);
      if (!stop.continueWith || signal.aborted) return outcome;
      outcome = await run.continueWith(stopFeedback("SubagentStop", stop.continueWith));
    }
  } finally {
    // Only reached with the entry still open when the run threw, or a block could not be honoured.
    await hooks.subagentStop(who, { status: outcome?.status ?? "failed", lastAssistantMessage: outcome?.answer ?? "", canContinue: false });
  }
}

/** How long the shutdown path gives SubagentStop hooks still due, and hooks still running. */
export const SETTLE_DEADLINE_MS = 1_500;

/**
 * The session's own moments: SessionStart when it starts, UserPromptSubmit before each prompt,
 * Stop after the coordinator's loop, and on close the sub-agents' last SubagentStop and SessionEnd.
 * Without hooks every method is a pass-through.
 */
export class RunLifecycle {
  /** SessionStart hooks' context, for the first prompt. */
  private startContext: Promise<string[]> | null = null;

  constructor(
    private readonly hooks: Hooks | undefined,
    private readonly emit: EmitFn,
  ) {}

  /** Runs beside whatever the user does first; `signal` is the session's. */
  sessionStart(root: AgentState, source: "startup" | "resume", model: string, signal: AbortSignal): void {
    if (!this.hooks?.has("SessionStart")) return;
    this.startContext = this.hooks.sessionStart({ source, model, agent: hookAgentOf(root) }, { signal }).then((r) => r.additionalContext);
  }

  /**
   * UserPromptSubmit, and the first run's SessionStart context. A block (or `continue: false`)
   * keeps the prompt out of the history and the log; the reason is an error event for the user.
   */
  async submitPrompt(root: AgentState, text: string, signal: AbortSignal): Promise<{ prompt: string } | { blocked: string }> {
    const context: string[] = [];
    if (this.startContext) {
      context.push(...(await raceAbort(this.startContext, signal, () => [])));
      this.startContext = null;
    }
    if (this.hooks) {
      const submitted = await this.hooks.userPromptSubmit(hookAgentOf(root), text, { signal });
      const why = submitted.block
        ? `prompt blocked by a UserPromptSubmit hook: ${submitted.block.reason}`
        : submitted.stop
          ? `stopped by a UserPromptSubmit hook: ${submitted.stop.reason}`
          : undefined;
      if (why) {
        this.emit({ type: "error", agentId: root.id, where: "hook", message: why });
        return { blocked: why };
      }
      context.push(...submitted.additionalContext);
    }
    return { prompt: withHookContext(text, context) };
  }

  /**
   * Stop hooks once the root's loop has ended (not when the run was cancelled: Claude Code skips
   * Stop then too). A block keeps the root going with the reason as its next message, until the
   * hooks let it stop (they see stop_hook_active: true) or the facade's cap is reached.
   */
  async afterStop(root: AgentState, outcome: AgentOutcome, signal: AbortSignal, continueWith: (message: string) => Promise<AgentOutcome>): Promise<AgentOutcome> {
    while (this.hooks?.has("Stop") && outcome.status !== "cancelled" && !signal.aborted) {
      const stop = await this.hooks.stop(hookAgentOf(root), { status: outcome.status, lastAssistantMessage: outcome.answer, canContinue: outcome.status === "done" }, { signal });
      if (stop.stop) this.emit({ type: "error", agentId: root.id, where: "hook", message: `stopped by a Stop hook: ${stop.stop.reason}` });
      if (!stop.continueWith || signal.aborted) break;
      outcome = await continueWith(stopFeedback("Stop", stop.continueWith));
    }
    return outcome;
  }

  /** The shutdown path: every sub-agent still open gets its SubagentStop, then SessionEnd runs. */
  async close(root: AgentState, reason: "prompt_input_exit" | "other"): Promise<void> {
    if (!this.hooks) return;
    await this.hooks.settleSubagents({ deadlineMs: SETTLE_DEADLINE_MS });
    await this.hooks.sessionEnd({ reason, agent: hookAgentOf(root) });
  }
}
