import { z } from "zod";
import type { AnyTool } from "./tool.js";

/**
 * The built-in tools' parameters as JSON Schema, the form every request offers the model, are made
 * once at build time (scripts/bundle.mjs, for the default config) and compiled into the bundle:
 * converting nine zod schemas cold costs ~5–25 ms of every start, before the first request, and
 * building them ~5–10 ms more. They come from the same sources as the bundle that holds them, so they
 * cannot go stale; a schema is kept under the tool's name and its `schemaVariant` — the settings that
 * shape it (the bash tool has no `dangerously_disable_sandbox` without a sandbox, its timeout's
 * description names `tools.bash_timeout`) — so a session whose tools differ from the build's finds no
 * kept schema and converts its own, and finding one builds no zod schema
 * (tests/unit/prebuilt-schema-keys.test.ts: one key, one schema, whatever the settings). Run from
 * source (tests, tsx), there are none and each schema is converted as before.
 */
declare const ORCA_PREBUILT_TOOL_SCHEMAS: Record<string, Record<string, unknown>> | undefined;

const PREBUILT: Record<string, Record<string, unknown>> | undefined = typeof ORCA_PREBUILT_TOOL_SCHEMAS === "undefined" ? undefined : ORCA_PREBUILT_TOOL_SCHEMAS;

/** What a schema is kept under: the tool's name and its schemaVariant; null for a tool without one. */
export function schemaKey(tool: Pick<AnyTool, "name" | "schemaVariant">): string | null {
  return tool.schemaVariant === undefined ? null : JSON.stringify([tool.name, tool.schemaVariant]);
}

/** A tool's parameters as the JSON Schema the model is offered. */
export function toModelSchema(params: z.ZodType): Record<string, unknown> {
  const schema = z.toJSONSchema(params, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/** Each tool's parameters as the model is offered them, by schemaKey: what the build compiles in. */
export function schemaFormsOf(tools: readonly Pick<AnyTool, "name" | "params" | "schemaVariant">[]): Record<string, Record<string, unknown>> {
  const forms: Record<string, Record<string, unknown>> = {};
  for (const tool of tools) {
    const key = schemaKey(tool);
    if (key) forms[key] = toModelSchema(tool.params);
  }
  return forms;
}

/** The schema made at build time for this tool, if the bundle holds one. */
export function prebuiltSchema(tool: Pick<AnyTool, "name" | "schemaVariant">): Record<string, unknown> | undefined {
  if (!PREBUILT) return undefined;
  const key = schemaKey(tool);
  return key ? PREBUILT[key] : undefined;
}
