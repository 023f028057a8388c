import { toolFinished } from "../events/constructors.js";
import type { AgentStatus, EmitFn, ThinkingBlock, ToolCall, Usage } from "../events/types.js";
import { type ChatMessage, type Model, type ToolSpec } from "../model/model.js";
import { ModelError } from "../util/errors.js";
import { countPendingTokens, prepareRequestTokens, tokenizerWorthLoading } from "../model/tokens.js";
import { requestFitProblem } from "../model/context-fit.js";
import type { CallerContext, ToolExecutor } from "../tools/executor.js";
import { CANCELLED_RESULT } from "../tools/executor.js";
import type { ToolResult } from "../tools/tool.js";
import type { Workspace } from "../tools/workspace.js";
import type { AgentBudget } from "./budget.js";
import { errorLine } from "../util/text.js";
import { abortReason, BudgetExceeded, Cancelled, type OrcaError, type ToolStatus } from "../util/errors.js";
import { addUsage, zeroUsage } from "../events/usage.js";
import { whenIdle } from "../util/idle.js";
import { unreportedUsage, type Streamed } from "./unreported-usage.js";

/** Everything one agent needs to run; the session builds it. The loop owns no global state. */
export interface AgentRuntime {
  id: string;
  parentId?: string;
  name: string;
  model: Model;
  /** The agent's own history; the loop appends to it in place. */
  history: ChatMessage[];
  /** The tools offered to the model on each request (already filtered by the whitelist). */
  toolSpecs(): ToolSpec[];
  allows(toolName: string): boolean;
  executor: ToolExecutor;
  emit: EmitFn;
  maxSteps: number;
  loopLimit: number;
  /** The run's budget as this agent sees it (its account and those above); the session charges every usage event of the run to it. */
  budget: AgentBudget;
  temperature?: number;
  maxOutputTokens?: number;
  /** Called before each request with the tools it will offer; may shrink the history (compaction). */
  beforeRequest?(history: ChatMessage[], signal: AbortSignal, tools: ToolSpec[]): Promise<void>;
  /** Returns `id`, or a variant of it when the session has already seen that id. */
  claimCallId?(id: string): string;
  /**
   * Token estimate of the request for the model_request event and the budget; an upper bound for
   * messages not counted exactly yet (see quickRequestTokens).
   */
  estimateTokens(history: ChatMessage[], tools: ToolSpec[]): number;
  /** The exact count, asked when the estimate alone would refuse the request (the token budget, the context window). */
  exactTokens?(history: ChatMessage[], tools: ToolSpec[]): number;
  /** The model's context window in tokens: a request over it is refused unsent. */
  contextWindow?: number;
  /** Loads what later steps need (the tokenizer, the shell grammar); called when the model is slow to answer, so the wait hides it. `bound`: the request's input, at most. */
  warmUp?(bound: number): void;
  /** Looks at a turn's tool calls together before any runs (the fan-out guard): the calls not to run, each with its result. */
  screenCalls?(calls: readonly ToolCall[], signal: AbortSignal): Promise<Map<string, string>>;
  /** Messages for the agent while it runs (steering, background results); absent: none can come. */
  inbox?: AgentInbox;
  /**
   * The agent's own workspace when it is not the session's (a git worktree): its file tools
   * resolve against it, and the scheduler indexes its paths apart from everyone else's.
   */
  workspace?: Workspace;
}

export interface AgentInbox {
  /** The messages queued since the last request, oldest first; they leave the queue. */
  take(): { text: string; from?: string }[];
  /**
   * Called when the agent ends a turn without tool calls. Resolves true once there is a message
   * to answer (the turn goes on), false at once when none can come (nothing pending in the
   * background), or when `signal` aborts.
   */
  idle(signal: AbortSignal): Promise<boolean>;
}

export interface AgentOutcome {
  status: AgentStatus;
  /** The final answer, or what the agent had when it stopped followed by why it stopped. */
  result: string;
  /** Only the agent's own words: the answer, or its partial text when it stopped ("" if none). */
  answer: string;
  steps: number;
  usage: Usage;
  filesChanged: string[];
}

/**
 * The one ReAct loop of every agent: request a step, record the assistant message, run its tool
 * calls, append one result per call, repeat. Invariant: when this returns (or a request is sent),
 * every tool call in the history has exactly one result.
 */
/** How long orca may wait idle on the model before it uses the wait to load what later steps need (warmUp). */
const WARM_AFTER_MS = 30;

export async function runAgentLoop(agent: AgentRuntime, signal: AbortSignal): Promise<AgentOutcome> {
  const usage: Usage = zeroUsage();
  const filesChanged = new Set<string>();
  const recentCalls: string[] = [];
  let lastText = "";
  let steps = 0;

  const outcome = (status: AgentStatus, result: string, answer = result): AgentOutcome => ({
    status,
    result,
    answer,
    steps,
    usage,
    filesChanged: [...filesChanged],
  });
  const base = { agentId: agent.id, parentId: agent.parentId };

  // A run stopped by its time budget (or a failure of the session, such as its log) is aborted like
  // a cancel; the abort's reason says which it was.
  const stopped = (partial: string, reason: OrcaError | null = signal.aborted ? abortReason(signal) : agent.budget.exceeded()): AgentOutcome => {
    if (reason instanceof BudgetExceeded) {
      const message = `Stopped: ${reason.message}.`;
      // One limit stops every agent under it; the line that says so is said once.
      if (!reason.announced) agent.emit({ ...base, type: "error", where: "budget", message });
      reason.announced = true;
      return outcome("budget", withReason(partial, message), partial);
    }
    // Reported where it happened; the agent's result says it too.
    if (reason && !(reason instanceof Cancelled)) return outcome("failed", withReason(partial, reason.message), partial);
    return outcome("cancelled", partial || CANCELLED_RESULT, partial);
  };

  // Queued messages join the history only here, before a request: never between a call and its result.
  const deliver = (): void => {
    for (const { text, from } of agent.inbox?.take() ?? []) {
      agent.history.push({ role: "user", content: text });
      agent.emit({ ...base, type: "user_message", text, ...(from ? { from } : {}) });
    }
  };

  while (steps < agent.maxSteps) {
    if (signal.aborted || agent.budget.exceeded()) return stopped(lastText);
    deliver();

    const tools = agent.toolSpecs();
    // Counting a lot of new text is long work: done here in slices that let a cancel or a SIGTERM
    // through, so an exact count that compaction or the budget may need finds it counted. Less
    // text is bounded for now and counted while the model thinks.
    await prepareRequestTokens(agent.history, agent.model.name, signal, (bound) => agent.budget.weighsInput?.() === true || tokenizerWorthLoading(bound, agent.contextWindow));
    if (signal.aborted) return stopped(lastText);
    await agent.beforeRequest?.(agent.history, signal, tools);
    if (signal.aborted) return stopped(lastText);
    let tokenEstimate = agent.estimateTokens(agent.history, tools);
    // Compaction (beforeRequest) has done what it could: a request still over the window is never sent.
    if (agent.contextWindow && tokenEstimate > agent.contextWindow) {
      const problem = requestFitProblem(agent.exactTokens?.(agent.history, tools) ?? tokenEstimate, agent.model.name, agent.contextWindow);
      if (problem) {
        agent.emit({ ...base, type: "error", where: "context", message: problem });
        return outcome("failed", withReason(lastText, problem), lastText);
      }
    }
    // Checked after the window (a refused request holds no money) and before sending, not after: a request that cannot end within the budget is never sent.
    // An upper bound over the budget may still fit once counted exactly.
    const exact = agent.exactTokens;
    const admission = await agent.budget.admit(tokenEstimate, exact && (() => (tokenEstimate = exact(agent.history, tools))), signal);
    if (admission === null) return stopped(lastText);
    if (admission instanceof BudgetExceeded) return stopped(lastText, admission);
    steps++;
    agent.emit({ ...base, type: "model_request", step: steps, messageCount: agent.history.length, tokenEstimate });

    let text = "";
    const toolCalls: ToolCall[] = [];
    const streamed: Streamed = { received: false, finished: false, cancelled: false, output: "" };
    let reported = false;
    const thinking: ThinkingBlock[] = [];
    // While the model thinks: the tokenizer and the shell grammar load (off the path to the first
    // request), and the messages of the last step are counted exactly (off the path to this one).
    const warmed = whenIdle(WARM_AFTER_MS, () => {
      agent.warmUp?.(tokenEstimate);
      void countPendingTokens(agent.history, agent.model.name, signal).catch(() => {});
    });
    try {
      const stream = agent.model.stream(
        {
          model: agent.model.name,
          messages: agent.history,
          tools,
          temperature: agent.temperature,
          // A money limit sets max_tokens to the output it can still pay for.
          maxOutputTokens: admission.maxOutputTokens ?? agent.maxOutputTokens,
        },
        signal,
      );
      for await (const event of stream) {
        warmed();
        streamed.received = true;
        switch (event.type) {
          case "text":
            text += event.text;
            agent.emit({ ...base, type: "text_delta", text: event.text });
            break;
          case "thinking":
            streamed.output += event.text;
            agent.emit({ ...base, type: "thinking_delta", text: event.text });
            break;
          case "thinking_block":
            thinking.push(event.block);
            break;
          case "tool_call": {
            const { type: _type, ...call } = event;
            streamed.output += call.name + JSON.stringify(call.args);
            // Some servers number calls call_0, call_1… in every response; ids must stay unique
            // in a history, and across the session for the scheduler's and the log's sake.
            toolCalls.push(agent.claimCallId ? { ...call, id: agent.claimCallId(call.id) } : call);
            break;
          }
          case "usage":
            reported = true;
            // The run's budget counts it from this event (the session feeds it every usage event).
            addUsage(usage, event);
            agent.emit({
              ...base,
              type: "usage",
              input: event.input,
              output: event.output,
              cached: event.cached,
              ...(event.cacheWrite ? { cacheWrite: event.cacheWrite } : {}),
              ...(event.cost !== undefined ? { cost: event.cost } : {}),
            });
            break;
          case "done":
            streamed.finished = true;
            break;
        }
      }
    } catch (error) {
      // Nothing of this step entered the history, so it stays valid for a retry or a resume.
      if (signal.aborted || (error instanceof ModelError && error.kind === "aborted")) return stopped(text || lastText);
      const message = error instanceof ModelError ? error.message : `model request failed: ${errorLine(error)}`;
      agent.emit({ ...base, type: "error", where: "model", message });
      return outcome("failed", withReason(lastText, message), lastText);
    } finally {
      warmed();
      // No usage report: charged an estimate before the hold is given back, so no gap lets a parallel request spend it.
      const estimate = reported ? null : unreportedUsage(tokenEstimate, { ...streamed, output: text + streamed.output, cancelled: signal.aborted }, agent.model, admission.maxOutputTokens);
      if (estimate) {
        addUsage(usage, estimate);
        agent.emit({ ...base, type: "usage", ...estimate });
      }
      admission.release();
    }

    // Reasoning the provider needs back rides with the message, in the history and in the log.
    const kept = thinking.length ? { thinking } : {};
    agent.history.push({ role: "assistant", content: text, toolCalls, ...kept });
    agent.emit({ ...base, type: "assistant_message", content: text, toolCalls, ...kept });
    if (text.trim()) lastText = text;

    if (toolCalls.length === 0) {
      // A message that came during this turn, or a background result still to come, keeps it open.
      if (agent.inbox && (await agent.inbox.idle(signal))) continue;
      if (signal.aborted) return stopped(lastText);
      return outcome("done", text);
    }

    const loopCall = pollsARunningShell(agent.history, toolCalls) ? null : detectLoop(recentCalls, toolCalls, agent.loopLimit);
    if (loopCall) {
      const message = `Stopped: the same call (${loopCall}) was made ${agent.loopLimit} times in a row.`;
      answerAll(agent, toolCalls, `Error: not run. ${message}`, "cancelled");
      agent.emit({ ...base, type: "error", where: "loop", message });
      return outcome("loop", withReason(lastText, message), lastText);
    }

    const refused = (await agent.screenCalls?.(toolCalls, signal)) ?? new Map<string, string>();
    for (const call of toolCalls.filter((c) => refused.has(c.id))) answerAll(agent, [call], refused.get(call.id)!, "denied");
    const allowed = refused.size ? toolCalls.filter((c) => !refused.has(c.id)) : toolCalls;
    if (signal.aborted) {
      answerAll(agent, allowed, CANCELLED_RESULT, "cancelled");
      return stopped(lastText);
    }
    // Reserved before running, so parallel agents of one run cannot all spend the same remainder.
    const runnable = allowed.slice(0, agent.budget.reserveToolCalls(allowed.length));
    const caller: CallerContext = { agentId: agent.id, parentId: agent.parentId, agentName: agent.name, allows: agent.allows, signal, workspace: agent.workspace };
    let results: ToolResult[];
    try {
      results = await agent.executor.runAll(runnable, caller);
    } catch (error) {
      // The assistant message is already in the history: every call must still get its result.
      const message = `Error: not run: internal error: ${errorLine(error)}`;
      answerAll(agent, toolCalls, message, "error");
      agent.emit({ ...base, type: "error", where: "tools", message });
      return outcome("failed", withReason(lastText, message), lastText);
    }
    appendResults(agent, runnable, results, filesChanged);
    if (runnable.length < allowed.length) {
      const skipped = allowed.slice(runnable.length);
      answerAll(agent, skipped, "Error: not run: the run's tool-call budget is used up.", "denied");
    }
    if (signal.aborted) return stopped(lastText);
  }

  const message = `Stopped after ${steps} steps: the step limit (max_steps ${agent.maxSteps}) was reached.`;
  agent.emit({ ...base, type: "error", where: "max_steps", message });
  return outcome("max_steps", withReason(lastText, message), lastText);
}

function appendResults(agent: AgentRuntime, calls: ToolCall[], results: ToolResult[], filesChanged: Set<string>): void {
  calls.forEach((call, i) => {
    const result = results[i]!;
    agent.history.push({ role: "tool", toolCallId: call.id, content: result.content });
    const changed = result.meta?.filesChanged;
    if (result.ok && Array.isArray(changed)) for (const f of changed) if (typeof f === "string") filesChanged.add(f);
  });
}

/** Answers calls that will not run, with events, so the history and the log stay complete. */
function answerAll(agent: AgentRuntime, calls: ToolCall[], content: string, status: Exclude<ToolStatus, "ok">): void {
  for (const call of calls) {
    agent.history.push({ role: "tool", toolCallId: call.id, content });
    agent.emit(toolFinished({ agentId: agent.id, parentId: agent.parentId }, { callId: call.id, name: call.name }, { status, content, durationMs: 0 }));
  }
}

/**
 * A bash_output whose last answer said the shell still runs is waiting for it, not looping (a long
 * build is polled many times); max_steps and the budgets bound it. The call is the history's last
 * message, the previous step's last result the one before.
 */
function pollsARunningShell(history: ChatMessage[], calls: ToolCall[]): boolean {
  const previous = history.at(-2);
  return calls.every((c) => c.name === "bash_output") && previous?.role === "tool" && previous.content.startsWith("status: running");
}

/** Returns a description of the repeated call when the last `limit` steps made the very same calls. */
function detectLoop(recent: string[], calls: ToolCall[], limit: number): string | null {
  const signature = calls.map((c) => `${c.name} ${canonical(c)}`).join("\n");
  recent.push(signature);
  if (recent.length > limit) recent.shift();
  if (recent.length === limit && recent.every((s) => s === signature)) {
    const first = calls[0]!;
    const args = canonical(first);
    return `${first.name} ${args.length > 80 ? `${args.slice(0, 77)}...` : args}`;
  }
  return null;
}

function canonical(call: ToolCall): string {
  return call.args === undefined ? call.raw : stableStringify(call.args);
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function withReason(partial: string, reason: string): string {
  return partial.trim() ? `${partial.trim()}\n\n${reason}` : reason;
}
