import { createGetSkillTool } from "../skills/index.js";
import { builtinSchemaForms, type SchemaSettings } from "../tools/builtin/schema-forms.js";
import { schemaFormsOf } from "../tools/prebuilt-schemas.js";
import { createControlTools } from "./control-tools.js";
import { createDelegateTool } from "./delegate.js";
import { createTaskTools } from "./task-tools.js";
import type { TaskBoard } from "./task-board.js";

/**
 * Every parameter schema scripts/bundle.mjs compiles into the bundle (tools/prebuilt-schemas.ts):
 * the built-in tools' and those the session adds — delegate, the task board's, the agent controls,
 * get_skill. A coordinator is offered all of these on its first request, and converting the eight
 * the session adds cold cost ~10–25 ms before it could leave. Their parameters depend on no
 * setting; only the tools' definitions are made here, with hosts that nothing calls.
 */
export function prebuiltSchemaForms(settings: SchemaSettings): Record<string, Record<string, unknown>> {
  const never = (): never => {
    throw new Error("a tool made for its schema only was run");
  };
  const sessionTools = [
    createDelegateTool({ agentNames: () => [], delegate: never }),
    ...createTaskTools({ board: {} as TaskBoard, isAgent: never }),
    ...createControlTools({ message: never, status: never, wait: never }),
    createGetSkillTool({ skills: () => [], onLoaded: never }),
  ];
  return { ...builtinSchemaForms(settings), ...schemaFormsOf(sessionTools) };
}
