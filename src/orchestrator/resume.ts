import path from "node:path";
import type { AgentDefinition } from "../agent/definition.js";
import type { Model } from "../model/model.js";
import type { RebuiltSession } from "../sessions/rebuild.js";
import type { AgentState } from "./session.js";

export interface RestoreDeps {
  definitions: Map<string, AgentDefinition>;
  /** The model for an agent definition under the current config ("inherit" resolved). */
  modelFor(definition: AgentDefinition): Model;
  workspaceRoot: string;
  restoreAgent(state: AgentState): void;
}

/**
 * Registers rebuilt agents with a session, keeping their ids. Returns one line per agent that
 * could not be restored (its definition is gone).
 */
export function restoreAgents(rebuilt: RebuiltSession, deps: RestoreDeps): string[] {
  const warnings: string[] = [];
  for (const agent of rebuilt.agents) {
    const definition = deps.definitions.get(agent.name);
    if (!definition) {
      warnings.push(`agent ${agent.id} was not restored: no agent definition named "${agent.name}" is loaded`);
      continue;
    }
    deps.restoreAgent({
      id: agent.id,
      definition,
      label: agent.label,
      parentId: agent.parentId,
      depth: agent.depth,
      model: deps.modelFor(definition),
      history: agent.history,
      status: agent.status,
      steps: agent.steps,
      usage: { ...agent.usage },
      filesChanged: new Set(agent.filesChanged.map((f) => path.resolve(deps.workspaceRoot, f))),
    });
  }
  return warnings;
}
