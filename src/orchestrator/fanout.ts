import { allowsTool, type AgentDefinition } from "../agent/definition.js";
import type { Config } from "../config/schema.js";
import type { EmitFn, ToolCall } from "../events/types.js";
import type { ChatMessage, Model } from "../model/model.js";
import { estimateRequestTokens } from "../model/tokens.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { AgentRegistry } from "./agents.js";
import type { DelegateArgs } from "./delegate.js";
import type { Approver, FanoutQuestion } from "../tools/approver.js";
import { formatUsd } from "../agent/budget-tree.js";
import { ownLimits } from "./budget-accounts.js";
import type { RunBudget } from "../agent/budget.js";

/**
 * How a fan-out's cost is estimated, per sub-agent: its first request (system prompt, task and tool
 * list, counted with its model's tokenizer) at its input price, plus OUTPUT_PER_STEP tokens at its
 * output price, times ASSUMED_STEPS (or its step limit, when lower) — a typical short sub-agent
 * run; a longer one costs more, since every step sends the whole history again. A sub-agent with a
 * money budget of its own is counted at no more than that budget. Unknown price: unknown estimate.
 */
export const ASSUMED_STEPS = 10;
export const OUTPUT_PER_STEP = 500;
export const ESTIMATE_HOW = `each sub-agent's first request (its prompt, task and tools, counted with its model's tokenizer) at its price, plus ${OUTPUT_PER_STEP} output tokens, times ${ASSUMED_STEPS} steps (fewer when its max_steps is lower), at most its own max_cost_usd`;

/** One delegate call of a turn, as the guard sees it. */
export interface PlannedChild {
  definition: AgentDefinition;
  model: Model;
  task: string;
  label?: string;
  /** delegate {budget}'s max_cost_usd, when given. */
  maxCostUsd?: number;
  maxSteps: number;
}

export interface FanoutGuardDeps {
  /** More sub-agents at once than this asks; false: never by count. */
  confirmFanout: number | false;
  /** A fan-out estimated above this (USD) asks; unset: never by cost. */
  confirmCostUsd?: number;
  approver: Approver;
  emit: EmitFn;
  /** The sub-agent a delegate call would start or resume; null for one it cannot (delegate refuses it itself). */
  plan(callerId: string, args: unknown): PlannedChild | null;
  /** Input tokens of a sub-agent's first request. */
  firstRequestTokens(child: PlannedChild): number;
  /** The run in progress (any object that is new with each run): the count starts again with each. */
  run(): object | null;
  /** A resumed run's delegate calls from before it stopped, counted as if it had not (sessions/stopped-run.ts). */
  carried?(): readonly { callerId: string; args: unknown }[];
}

/** Sub-agents started in one run since the person last approved a fan-out (or since the run began). */
interface Tally {
  run: object | null;
  started: number;
  /** USD estimated for them; null once one was unknown. */
  estimateUsd: number | null;
}

/** The agent whose turn it is. */
export interface Caller {
  id: string;
  parentId?: string;
  name: string;
}

/**
 * Looks at every turn's delegate calls together, before any runs, and counts them with every
 * sub-agent the run has started since the person last approved a fan-out — by any agent, background
 * ones and children's children included — so four a turn over many turns, or children that each
 * delegate four more, are one fan-out. Passing agents.confirm_fanout sub-agents, or
 * agents.confirm_cost_usd of estimate, asks the person (the turn's all start, or none). A headless
 * run cannot ask: it runs the calls that stay within both limits, in order, and refuses the rest
 * with a result the model reads.
 */
export class FanoutGuard {
  private tally: Tally = { run: null, started: 0, estimateUsd: 0 };
  /** Screens one at a time: two agents' turns must not both count on the same room. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: FanoutGuardDeps) {}

  /** The delegate calls not to run, each with the result its model gets. */
  screen(caller: Caller, calls: readonly ToolCall[], signal: AbortSignal): Promise<Map<string, string>> {
    const screened = this.queue.then(() => this.screenNow(caller, calls, signal));
    this.queue = screened.catch(() => {});
    return screened;
  }

  private async screenNow(caller: Caller, calls: readonly ToolCall[], signal: AbortSignal): Promise<Map<string, string>> {
    const run = this.deps.run();
    if (this.tally.run !== run) this.tally = this.carriedTally(run);
    const tally = this.tally;
    const refused = new Map<string, string>();
    const children = calls.flatMap((call) => {
      if (call.name !== "delegate") return [];
      const child = this.deps.plan(caller.id, call.args);
      return child ? [{ call, child }] : [];
    });
    const { confirmFanout, confirmCostUsd } = this.deps;
    const count = tally.started + children.length;
    const tooMany = confirmFanout !== false && count > confirmFanout;
    // The estimate counts each child's first request with its model's tokenizer, whose tables take
    // ~0.3 s and ~30 MB to load: it is made only when a limit on cost needs it or the person is
    // asked (the question shows it), not before every sub-agent a run starts within its limits.
    if (!tooMany && confirmCostUsd === undefined) {
      tally.started += children.length;
      return refused;
    }
    const planned = children.map((p) => ({ ...p, estimateUsd: this.estimate(p.child) }));
    const total = sum(planned.map((p) => p.estimateUsd));
    const cost = sum([tally.estimateUsd, total]);
    const tooDear = confirmCostUsd !== undefined && planned.length > 0 && (cost === null || cost > confirmCostUsd);
    const counted = (n: number | null): void => {
      tally.started += n ?? planned.length;
      tally.estimateUsd = sum([tally.estimateUsd, n === null ? total : sum(planned.slice(0, n).map((p) => p.estimateUsd))]);
    };
    if (!tooMany && !tooDear) {
      counted(null);
      return refused;
    }
    const howMany = tally.started ? `${count} sub-agents in this run, ${planned.length} in this turn` : `${count} sub-agents at once`;
    const reasons = [
      tooMany ? `${howMany} (agents.confirm_fanout: ${confirmFanout})` : "",
      tooDear ? `estimated ${cost === null ? "at an unknown cost" : formatUsd(cost)}${tally.started ? " in this run" : ""} (agents.confirm_cost_usd: ${formatUsd(confirmCostUsd!)})` : "",
    ].filter(Boolean);
    const reason = reasons.join("; ");
    const base = { agentId: caller.id, parentId: caller.parentId, calls: planned.length, estimateUsd: total, reason };

    if (this.deps.approver.decidedBy === "headless") {
      // The longest run of calls, in order, that stays within both limits.
      let spent = tally.estimateUsd ?? Infinity;
      let kept = 0;
      for (const p of planned) {
        const next = p.estimateUsd === null ? Infinity : spent + p.estimateUsd;
        if ((confirmFanout !== false && tally.started + kept + 1 > confirmFanout) || (confirmCostUsd !== undefined && next > confirmCostUsd)) break;
        spent = next;
        kept++;
      }
      counted(kept);
      for (const p of planned.slice(kept)) {
        refused.set(
          p.call.id,
          `Error: not run: this turn started ${reason}, and a headless run has no one to ask, so only the first ${kept} ran. ` +
            "Start fewer sub-agents: wait for these to end, or do the work yourself.",
        );
      }
      this.deps.emit({ type: "fanout_checked", ...base, decision: "limited", decidedBy: "headless", refused: [...refused.keys()] });
      return refused;
    }

    const question: FanoutQuestion = {
      agents: planned.map((p) => ({ agent: p.child.definition.name, label: p.child.label, task: p.child.task, estimateUsd: p.estimateUsd })),
      estimateUsd: total,
      reason,
      how: ESTIMATE_HOW,
    };
    const first = planned[0]!.call;
    const answer = await this.deps.approver.request(
      { callId: first.id, agentId: caller.id, agentName: caller.name, tool: "delegate", args: question.agents, rule: reason, fanout: question },
      signal,
    );
    if (answer.decision !== "deny") {
      // The person has seen and approved these: the count starts again after them.
      this.tally = { run, started: 0, estimateUsd: 0 };
      this.deps.emit({ type: "fanout_checked", ...base, decision: "approved", decidedBy: "user", refused: [] });
      return refused;
    }
    const why = signal.aborted ? "cancelled" : `the person declined this fan-out (${reason})${answer.reason ? `: ${answer.reason}` : ""}`;
    for (const p of planned) refused.set(p.call.id, `Error: not run: ${why}; none of its ${planned.length} sub-agents started.`);
    this.deps.emit({ type: "fanout_checked", ...base, decision: "denied", decidedBy: "user", refused: [...refused.keys()] });
    return refused;
  }

  /**
   * A new run's count: none, or — for a run a resume continues — the sub-agents it had started
   * since the person last approved a fan-out. Those go on without asking again (they passed this
   * guard when they started); a crash must not give the run a fresh allowance either.
   */
  private carriedTally(run: object | null): Tally {
    const children = (this.deps.carried?.() ?? []).flatMap((call) => this.deps.plan(call.callerId, call.args) ?? []);
    const estimateUsd = this.deps.confirmCostUsd === undefined ? 0 : sum(children.map((child) => this.estimate(child)));
    return { run, started: children.length, estimateUsd };
  }

  /** USD for one sub-agent (see ESTIMATE_HOW); null when its model's price is unknown. */
  estimate(child: PlannedChild): number | null {
    const price = child.model.price;
    if (!price) return null;
    const steps = Math.min(ASSUMED_STEPS, child.maxSteps);
    const perStep = (this.deps.firstRequestTokens(child) * price.input + OUTPUT_PER_STEP * price.output) / 1_000_000;
    const own = ownLimits({ definition: child.definition, budget: child.maxCostUsd === undefined ? undefined : { maxCostUsd: child.maxCostUsd } }).maxCostUsd;
    return Math.min(steps * perStep, own ?? Infinity);
  }
}

function sum(values: (number | null)[]): number | null {
  let total = 0;
  for (const v of values) {
    if (v === null) return null;
    total += v;
  }
  return total;
}

/** The guard of a session: plans each delegate call as delegate would, and counts first requests with the tokenizer. */
export function sessionFanoutGuard(deps: {
  config: Config;
  approver: Approver;
  emit: EmitFn;
  definitions: ReadonlyMap<string, AgentDefinition>;
  agents: AgentRegistry;
  modelFor(spec: string): Model;
  registry: ToolRegistry;
  run(): RunBudget | null;
}): FanoutGuard {
  const { config } = deps;
  return new FanoutGuard({
    run: deps.run,
    carried: () => deps.run()?.carried?.delegations ?? [],
    confirmFanout: config.agents.confirm_fanout,
    confirmCostUsd: config.agents.confirm_cost_usd,
    approver: deps.approver,
    emit: deps.emit,
    plan: (_callerId, raw) => {
      if (!raw || typeof raw !== "object") return null;
      const args = raw as Partial<DelegateArgs>;
      const resumed = args.resume ? deps.agents.get(args.resume) : undefined;
      const definition = resumed?.definition ?? deps.definitions.get(args.agent ?? "");
      if (!definition || (args.resume && !resumed)) return null;
      const model = resumed?.model ?? deps.modelFor(definition.model === "inherit" ? config.model.name : definition.model);
      return { definition, model, task: String(args.task ?? ""), label: args.label, maxCostUsd: args.budget?.max_cost_usd, maxSteps: definition.maxSteps ?? config.agent.max_steps };
    },
    firstRequestTokens: (child) => {
      const tools = deps.registry
        .list()
        .filter((tool) => allowsTool(child.definition, tool.name))
        .map((tool) => deps.registry.spec(tool));
      const messages: ChatMessage[] = [
        { role: "system", content: child.definition.prompt },
        { role: "user", content: child.task },
      ];
      return estimateRequestTokens(messages, tools, child.model.name);
    },
  });
}
