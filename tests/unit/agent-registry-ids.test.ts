import { describe, expect, it } from "vitest";
import type { AgentDefinition } from "../../src/agent/definition.js";
import type { Model } from "../../src/model/model.js";
import { AgentRegistry } from "../../src/orchestrator/agents.js";

const definition = (name: string) => ({ name, description: "d", model: "inherit", skills: [], isolation: "none", verify: [], prompt: "p", file: `${name}.md` }) as unknown as AgentDefinition;

describe("sub-agent ids", () => {
  it("never take an id in use: a coordinator whose definition is named `explorer-1` keeps its place", () => {
    const registry = new AgentRegistry(() => ({}) as Model);
    const root = registry.add("explorer-1", definition("explorer-1"), undefined, 0);
    const sub = registry.addSubAgent(definition("explorer"), root);
    expect(sub.id).toBe("explorer-2");
    expect(registry.get("explorer-1")).toBe(root);
    expect(registry.addSubAgent(definition("explorer"), root).id).toBe("explorer-3");
  });
});
