import { afterEach, describe, expect, it, vi } from "vitest";
import { createControlTools } from "../../src/orchestrator/control-tools.js";
import { createDelegateTool } from "../../src/orchestrator/delegate.js";
import { prebuiltSchemaForms } from "../../src/orchestrator/tool-schema-forms.js";
import { createTaskTools } from "../../src/orchestrator/task-tools.js";
import type { TaskBoard } from "../../src/orchestrator/task-board.js";
import { createGetSkillTool } from "../../src/skills/index.js";
import { builtinTools } from "../../src/tools/builtin/index.js";
import type { ShellManager } from "../../src/tools/builtin/shells.js";
import { schemaKey, toModelSchema } from "../../src/tools/prebuilt-schemas.js";
import type { AnyTool } from "../../src/tools/tool.js";

/**
 * The build keeps each built-in and session tool's schema under the tool's name and schemaVariant
 * (src/tools/prebuilt-schemas.ts), not under what its zod schema says: a variant that left out a
 * setting a schema depends on would offer the model a schema of other settings. So: whatever the
 * settings, tools with one key have one schema.
 */

const never = (): never => {
  throw new Error("not run here");
};

function toolsFor(settings: { bashTimeoutMs: number; maxOutputTokens: number; readOnlyCommands: string[] }, sandbox: boolean): AnyTool[] {
  const shells = { launcher: { sandbox: { available: sandbox, status: { available: sandbox, network: "off" } } } } as unknown as ShellManager;
  return [
    ...builtinTools({ shells, tokens: { count: (t) => t.length, head: (t) => t, tail: (t) => t }, ...settings }),
    createDelegateTool({ agentNames: () => ["a", "b"], delegate: never }),
    ...createTaskTools({ board: {} as TaskBoard, isAgent: never }),
    ...createControlTools({ message: never, status: never, wait: never }),
    createGetSkillTool({ skills: () => [], onLoaded: never }),
  ];
}

const SETTINGS = [
  { bashTimeoutMs: 120_000, maxOutputTokens: 8_000, readOnlyCommands: ["ls", "cat"] },
  { bashTimeoutMs: 5_000, maxOutputTokens: 100, readOnlyCommands: [] },
  { bashTimeoutMs: 900_000, maxOutputTokens: 50_000, readOnlyCommands: ["git status"] },
];

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe("kept tool schemas: keys", () => {
  it("one key, one schema, across settings and with a sandbox or without", () => {
    const byKey = new Map<string, unknown>();
    for (const settings of SETTINGS) {
      for (const sandbox of [true, false]) {
        for (const tool of toolsFor(settings, sandbox)) {
          const key = schemaKey(tool);
          expect(key, tool.name).not.toBeNull();
          const schema = toModelSchema(tool.params);
          if (byKey.has(key!)) expect(schema, key!).toEqual(byKey.get(key!));
          else byKey.set(key!, schema);
        }
      }
    }
    // The bash tool's schema changes with its timeout and the sandbox: each is a key of its own.
    expect([...byKey.keys()].filter((k) => k.startsWith('["bash",')).length).toBe(SETTINGS.length * 2);
  });

  it("a kept schema is offered without building the tool's zod schema (it is built on first use: validating a call)", async () => {
    const settings = SETTINGS[0]!;
    vi.stubGlobal("ORCA_PREBUILT_TOOL_SCHEMAS", prebuiltSchemaForms(settings));
    // Loaded again so that the module reads the stubbed build-time constant.
    vi.resetModules();
    const { ToolRegistry } = await import("../../src/tools/registry.js");
    const registry = new ToolRegistry();
    const built: string[] = [];
    const tools = toolsFor(settings, true).map((tool) => {
      const watched = Object.create(tool) as AnyTool;
      Object.defineProperty(watched, "params", {
        get: () => {
          built.push(tool.name);
          return tool.params;
        },
      });
      return watched;
    });
    const specs = tools.map((tool) => registry.spec(tool));
    expect(built).toEqual([]);
    for (const [i, tool] of tools.entries()) expect(specs[i]!.parameters, tool.name).toEqual(toModelSchema(tool.params));
  });
});
