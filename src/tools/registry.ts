import type { z } from "zod";
import type { ToolSpec } from "../model/model.js";
import { prebuiltSchema, toModelSchema } from "./prebuilt-schemas.js";
import type { AnyTool } from "./tool.js";

export class DuplicateToolError extends Error {
  override readonly name = "DuplicateToolError";
}

/**
 * Every tool of the session: the built-ins and delegate, added once at start-up, plus tools from
 * dynamic sources (MCP servers) that come and go while the session runs.
 */
export class ToolRegistry {
  private readonly fixed = new Map<string, AnyTool>();
  private readonly sources = new Map<string, () => AnyTool[]>();
  private readonly specCache = new WeakMap<AnyTool, ToolSpec>();

  add(tool: AnyTool): void {
    if (this.fixed.has(tool.name)) {
      throw new DuplicateToolError(`two tools are named "${tool.name}"; tool names must be unique`);
    }
    this.fixed.set(tool.name, tool);
  }

  addSource(name: string, source: () => AnyTool[]): void {
    this.sources.set(name, source);
  }

  get(name: string): AnyTool | undefined {
    return this.fixed.get(name) ?? this.dynamic().find((t) => t.name === name);
  }

  list(): AnyTool[] {
    const dynamic = this.dynamic().filter((t) => !this.fixed.has(t.name));
    return [...this.fixed.values(), ...dynamic];
  }

  /** The JSON-Schema form offered to the model; derived once per tool object. */
  spec(tool: AnyTool): ToolSpec {
    let spec = this.specCache.get(tool);
    if (!spec) {
      const parameters = tool.jsonSchema ?? prebuiltSchema(tool) ?? toModelSchema(tool.params);
      spec = { name: tool.name, description: tool.description, parameters };
      this.specCache.set(tool, spec);
    }
    return spec;
  }

  private dynamic(): AnyTool[] {
    return [...this.sources.values()].flatMap((source) => source());
  }
}

/** One line per issue, e.g. `- path: expected string, received number`. */
export function formatValidationError(toolName: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const where = issue.path.length ? issue.path.join(".") : "(arguments)";
    return `- ${where}: ${issue.message}`;
  });
  return `invalid arguments for ${toolName}:\n${lines.join("\n")}`;
}
