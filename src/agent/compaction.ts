import type { EmitFn, Usage } from "../events/types.js";
import { type ChatMessage, type Model, type RequestUsage, type ToolSpec } from "../model/model.js";
import { BudgetExceeded, ModelError } from "../util/errors.js";
import { countTokens, estimateRequestTokens, quickRequestTokens } from "../model/tokens.js";
import { applyCompaction, HEAD, SUMMARY_MARK } from "../sessions/history.js";
import { addUsage } from "../events/usage.js";
import type { RunBudget } from "./budget.js";
import type { Admission } from "./budget-tree.js";
import { unreportedUsage } from "./unreported-usage.js";

/**
 * Context compaction. Before a request whose estimate passes `compactAt` × the window, the history
 * becomes: system prompt, first task, one summary message, the last rounds verbatim. A round — an
 * assistant message and the results of all its tool calls — is never split, so every tool call in
 * the history keeps its result. The same `applyCompaction` replays a `compacted` event on resume.
 */

export interface CompactionSettings {
  /** Tokens a request may take in all (the model's context window). */
  window: number;
  /** Fraction of the window past which the history is compacted. */
  compactAt: number;
  /** Rounds kept verbatim (fewer only when they alone would not fit). */
  keepRounds: number;
}

export interface CompactionOutcome {
  beforeTokens: number;
  afterTokens: number;
  roundsSummarised: number;
  /** Empty when summarising failed and the rounds were dropped. */
  summary: string;
  replacedMessages: number;
  /** Why the summary call failed, when it did. */
  failure?: string;
  usage: RequestUsage;
}

interface Group {
  start: number;
  /** An assistant message with its tool results (a round), else a lone user message. */
  round: boolean;
}

/** Splits the history after the head into groups that may not be cut: a round, or a user turn. */
function groupsOf(history: ChatMessage[]): Group[] {
  const groups: Group[] = [];
  for (let i = HEAD; i < history.length; i++) {
    const m = history[i]!;
    if (m.role === "tool") continue;
    groups.push({ start: i, round: m.role === "assistant" });
  }
  return groups;
}

/** Output tokens reserved for the summary: a tenth of the window, within sane bounds. */
export function summaryBudget(window: number): number {
  return Math.max(200, Math.min(4_000, Math.floor(window * 0.1)));
}

export interface CompactDeps {
  model: Model;
  tools: ToolSpec[];
  settings: CompactionSettings;
  signal: AbortSignal;
  /** Compact now, under the threshold too (the dashboard's /compact): keep only keepRounds rounds. */
  force?: boolean;
  /**
   * Called once compacting is decided, before the summary is asked for (PreCompact hooks). False
   * skips this compaction: the history stays as it is.
   */
  beforeCompact?(): Promise<boolean>;
  /**
   * The run's token budget, asked before the summary request is sent with orca's estimate of its
   * input: false leaves the history as it is (the agent's own request is then refused too).
   */
  admits?(inputEstimate: number, maxOutput: number): boolean;
}

/**
 * Compacts `history` in place when it is past the threshold. Returns null when nothing was done
 * (under the threshold, nothing old enough to compact, or cancelled).
 */
export async function compactHistory(history: ChatMessage[], deps: CompactDeps): Promise<CompactionOutcome | null> {
  const { model, tools, settings, signal } = deps;
  if (history.length <= HEAD || history[0]?.role !== "system" || history[1]?.role !== "user") return null;
  const threshold = Math.floor(settings.window * settings.compactAt);
  // Settled without the tokenizer when even the upper bound is under the threshold.
  if (!deps.force && quickRequestTokens(history, tools, model.name).tokens <= threshold) return null;
  const estimate = (messages: ChatMessage[]) => estimateRequestTokens(messages, tools, model.name);
  const beforeTokens = estimate(history);
  if (beforeTokens <= threshold && !deps.force) return null;

  const groups = groupsOf(history);
  const reserve = summaryBudget(settings.window);
  // The summary message also carries a one-line preamble and the message framing.
  const summaryTokens = reserve + 32;
  const head = history.slice(0, HEAD);
  // The earliest cut that keeps at most keepRounds rounds; later cuts until the rest fits.
  let g = 0;
  const roundsFrom = (k: number) => groups.slice(k).filter((x) => x.round).length;
  // A user turn the model has yet to answer is never summarised away.
  const last = history.at(-1)?.role === "user" ? groups.length - 1 : groups.length;
  while (g < last && roundsFrom(g) > settings.keepRounds) g++;
  if (!deps.force) while (g < last && estimate([...head, ...history.slice(groups[g]!.start)]) + summaryTokens > threshold) g++;
  if (g === 0) return null; // Nothing before the kept part: compaction cannot help.
  const cut = g < groups.length ? groups[g]!.start : history.length;
  const old = history.slice(HEAD, cut);
  const roundsSummarised = groups.slice(0, g).filter((x) => x.round).length;
  if (deps.beforeCompact && !(await deps.beforeCompact())) return null;
  if (signal.aborted) return null;

  const request = summaryRequest(old, model.name, threshold);
  if (deps.admits && !deps.admits(estimateRequestTokens(request, [], model.name), reserve)) return null;
  const usage: RequestUsage = { input: 0, output: 0, cached: 0 };
  let summary = "";
  let failure: string | undefined;
  try {
    summary = await summarise(request, model, reserve, signal, usage);
    if (!summary.trim()) failure = "the model returned an empty summary";
  } catch (error) {
    if (signal.aborted || (error instanceof ModelError && error.kind === "aborted")) return null;
    failure = error instanceof Error ? error.message.split("\n")[0]! : String(error);
  }
  if (failure) summary = "";
  summary = capTokens(summary.trim(), reserve, model.name);

  const replacedMessages = cut - HEAD;
  applyCompaction(history, { summary, roundsSummarised, replacedMessages });
  return { beforeTokens, afterTokens: estimate(history), roundsSummarised, summary, replacedMessages, failure, usage };
}

const SUMMARY_SYSTEM = `You compact the working history of an AI agent so it can continue its task with less context.
Write a summary that lets the agent carry on without the original messages. Keep, under short headings:
- Goals: what the user asked for (quote the latest request exactly) and what the task is.
- Constraints: requirements, preferences and limits that were stated.
- Decisions: what was decided or tried, and why; what did not work.
- Files: paths read, created or changed, and what changed in each.
- State: commands run and the results that matter, errors and how they were handled, where the work stands.
- Open questions and next steps.
Be concise and factual, use bullet points, and invent nothing. Tool outputs in the transcript were shortened.`;

/** The summary request's messages: the old rounds as a transcript that fits under the threshold. */
function summaryRequest(old: ChatMessage[], modelName: string, threshold: number): ChatMessage[] {
  // The summary request must itself fit: the transcript gets what the threshold leaves.
  const budget = Math.max(200, threshold - countTokens(SUMMARY_SYSTEM, modelName) - 64);
  const transcript = fitTranscript(old, budget, modelName);
  return [
    { role: "system", content: SUMMARY_SYSTEM },
    { role: "user", content: `Summarise this transcript of the agent's earlier work:\n\n${transcript}` },
  ];
}

async function summarise(messages: ChatMessage[], model: Model, reserve: number, signal: AbortSignal, usage: RequestUsage): Promise<string> {
  let text = "";
  for await (const event of model.stream({ model: model.name, messages, tools: [], maxOutputTokens: reserve }, signal)) {
    if (event.type === "text") text += event.text;
    else if (event.type === "usage") {
      usage.input += event.input;
      usage.output += event.output;
      usage.cached += event.cached;
      if (event.cacheWrite) usage.cacheWrite = (usage.cacheWrite ?? 0) + event.cacheWrite;
      if (event.cost !== undefined) usage.cost = (usage.cost ?? 0) + event.cost;
    }
  }
  if (signal.aborted) throw new ModelError("aborted", "cancelled");
  return text;
}

/** Renders the old part as text, shortening tool outputs (then everything) until it fits. */
export function fitTranscript(old: ChatMessage[], budget: number, modelName: string): string {
  let cap = 2_000;
  for (;;) {
    const text = render(old, cap);
    const tokens = countTokens(text, modelName);
    if (tokens <= budget) return text;
    if (cap > 100) {
      cap = Math.floor(cap / 2);
      continue;
    }
    // Still too long: keep its beginning (earlier summaries, the goals) and its end (the latest state).
    const keep = Math.max(0, Math.floor((text.length * budget) / tokens) - 60);
    return `${text.slice(0, Math.floor(keep / 2))}\n[… middle of the transcript left out …]\n${text.slice(text.length - Math.ceil(keep / 2))}`;
  }
}

function render(messages: ChatMessage[], cap: number): string {
  const lines: string[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "system":
        break;
      case "user":
        lines.push(m.content.startsWith(SUMMARY_MARK) ? `[earlier summary]\n${shorten(m.content, cap * 4)}` : `[user]\n${shorten(m.content, cap * 2)}`);
        break;
      case "assistant": {
        if (m.content.trim()) lines.push(`[assistant]\n${shorten(m.content, cap * 2)}`);
        for (const c of m.toolCalls) lines.push(`[tool call ${c.name}] ${shorten(c.raw, Math.min(cap, 300))}`);
        break;
      }
      case "tool":
        lines.push(`[tool result]\n${shorten(m.content, cap)}`);
        break;
    }
  }
  return lines.join("\n");
}

/** Head and tail of `text` within `max` characters. */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.max(1, Math.floor((max - 30) / 2));
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters left out …]\n${text.slice(text.length - half)}`;
}

function capTokens(text: string, max: number, modelName: string): string {
  const tokens = countTokens(text, modelName);
  if (tokens <= max) return text;
  return `${text.slice(0, Math.floor((text.length * max) / tokens) - 20)}\n[… summary cut …]`;
}

export interface CompactorOptions<A extends CompactableAgent = CompactableAgent> {
  compactAt: number;
  keepRounds: number;
  /** The window of a model, `model.context_window` winning over the known defaults. */
  windowFor(modelName: string): number;
  emit: EmitFn;
  /** PreCompact hooks, once a compaction is due (manual: /compact asked for it): a block skips it. */
  preCompact?(agent: A, signal: AbortSignal, trigger: "auto" | "manual"): Promise<{ block: boolean; reason?: string }>;
  /** The budget of the run in progress, if any: a summary request it cannot afford is not sent. */
  budget?(): Pick<RunBudget, "admitSummary"> | null;
}

export interface CompactableAgent {
  id: string;
  parentId?: string;
  model: Model;
  usage: Usage;
}

/**
 * The compaction hook for SessionDeps.compact: each agent, sub-agents included, compacts its own
 * history. Emits `compacted` (and `usage` for the summary call); a failed summary is an `error`
 * event too, so the user learns that rounds were dropped.
 */
export function createCompactor<A extends CompactableAgent = CompactableAgent>(opts: CompactorOptions<A>) {
  /** Resolves true when the history was compacted. */
  return async (agent: A, history: ChatMessage[], signal: AbortSignal, tools: ToolSpec[] = [], force = false): Promise<boolean> => {
    const base = { agentId: agent.id, parentId: agent.parentId };
    const preCompact = opts.preCompact;
    // What the summary may cost is held from its admission until its usage is emitted (and so charged).
    let held: Admission | undefined;
    let asked: { input: number; output: number } | undefined;
    try {
      return await compactAndReport();
    } finally {
      held?.release();
    }

    async function compactAndReport(): Promise<boolean> {
      let outcome: CompactionOutcome | null;
      try {
        outcome = await compactHistory(history, {
          model: agent.model,
          tools,
          signal,
          settings: { window: opts.windowFor(agent.model.name), compactAt: opts.compactAt, keepRounds: opts.keepRounds },
          force,
          admits: (estimate, maxOutput) => {
            const verdict = opts.budget?.()?.admitSummary(estimate, { agentId: agent.id, model: agent.model, maxOutput });
            if (verdict instanceof BudgetExceeded) return false;
            held = verdict;
            asked = { input: estimate, output: maxOutput };
            return true;
          },
          beforeCompact: preCompact
            ? async () => {
                const verdict = await preCompact(agent, signal, force ? "manual" : "auto");
                if (verdict.block) opts.emit({ ...base, type: "error", where: "compaction", message: `compaction skipped by a PreCompact hook${verdict.reason ? `: ${verdict.reason}` : ""}` });
                return !verdict.block;
              }
            : undefined,
        });
      } catch (error) {
        // A bug here must not end the run: the request goes out uncompacted and the user is told.
        opts.emit({ ...base, type: "error", where: "compaction", message: `compaction failed: ${error instanceof Error ? error.message : String(error)}` });
        return false;
      }
      if (!outcome) return false;
      // A summary sent whose server reported no usage is charged an estimate, as an agent's request is.
      const reported = outcome.usage.input || outcome.usage.output;
      const usage = reported || !asked ? outcome.usage : unreportedUsage(asked.input, { received: !!outcome.summary, finished: !outcome.failure, cancelled: false, output: outcome.summary }, agent.model, asked.output);
      if (usage && (usage.input || usage.output)) {
        addUsage(agent.usage, usage);
        opts.emit({ ...base, type: "usage", ...usage });
      }
      if (outcome.failure) {
        opts.emit({
          ...base,
          type: "error",
          where: "compaction",
          message: `summarising the history failed (${outcome.failure}); dropped the ${outcome.roundsSummarised} oldest rounds instead`,
        });
      }
      opts.emit({
        ...base,
        type: "compacted",
        beforeTokens: outcome.beforeTokens,
        afterTokens: outcome.afterTokens,
        roundsSummarised: outcome.roundsSummarised,
        summary: outcome.summary,
        replacedMessages: outcome.replacedMessages,
      });
      return true;
    }
  };
}
