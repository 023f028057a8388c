import type { AgentBudget, RunBudget } from "../agent/budget.js";
import type { AccountLimits } from "../agent/budget-tree.js";
import type { AgentDefinition } from "../agent/definition.js";
import type { Config } from "../config/schema.js";
import type { EmitFn } from "../events/types.js";
import type { Model } from "../model/model.js";
import { outputLimitFor } from "../model/pricing.js";
import { ConfigError } from "../util/errors.js";
import type { AgentState } from "./agents.js";

const KEYS = ["maxCostUsd", "maxTokens", "maxSteps"] as const;

/** An agent's own limits for this run: its definition's `budget:`, lowered by its delegate call's. */
export function ownLimits(agent: Pick<AgentState, "definition" | "budget">): AccountLimits {
  const out: AccountLimits = {};
  for (const key of KEYS) {
    const values = [agent.definition.budget?.[key], agent.budget?.[key]].filter((v): v is number => v !== undefined);
    if (values.length) out[key] = Math.min(...values);
  }
  return out;
}

/**
 * The budget an agent's loop runs under: its account in the run's tree (opened on its first run in
 * this run, its limits cut to its parent's remainder and logged as budget_set), its requests priced
 * by its model, at most `outputCap` tokens of output each (model.max_output_tokens, else the model's limit).
 */
export function agentBudget(run: RunBudget, agent: AgentState, outputCap: number | undefined, emit: EmitFn): AgentBudget {
  const own = ownLimits(agent);
  const { account, cut, opened, lowered } = run.tree.open(agent.id, agent.parentId, own);
  if ((opened || lowered) && KEYS.some((key) => account.limits[key] !== undefined)) {
    emit({ type: "budget_set", agentId: agent.id, parentId: agent.parentId, scope: "agent", ...account.limits, ...(cut.length ? { asked: own } : {}) });
  }
  return run.forAgent(account, { model: agent.model.name, price: agent.model.price, outputCap: outputCap ?? outputLimitFor(agent.model.name) });
}

/**
 * A money budget with a model orca cannot price is refused before anything starts: an unknown price
 * would make the limit a guess. Checks the models of the agents that may run under one: every agent
 * when the run has max_cost_usd, else those whose `budget:` sets one.
 */
export function requirePrices(config: Config, definitions: ReadonlyMap<string, AgentDefinition>, modelFor: (spec: string) => Model): void {
  const runLimit = config.budget.max_cost_usd !== undefined;
  for (const definition of definitions.values()) {
    if (!runLimit && definition.budget?.maxCostUsd === undefined) continue;
    const model = modelFor(definition.model === "inherit" ? config.model.name : definition.model);
    if (model.price) continue;
    const which = runLimit ? "budget.max_cost_usd" : `the budget of agent ${definition.name}`;
    const fix =
      model.name === config.model.name
        ? "set model.price in config.yaml (USD per million tokens: price: { input: …, output: … })"
        : `model.price prices only ${config.model.name}: give agent ${definition.name} a model orca has a price for`;
    throw new ConfigError(`${which} needs a price, and orca has none for model ${model.name} (agent ${definition.name}): ${fix}`);
  }
}
