import { schemaFormsOf } from "../prebuilt-schemas.js";
import type { TokenCounter } from "../../util/token-counter.js";
import { builtinTools } from "./index.js";
import type { ShellManager } from "./shells.js";

/** The settings that shape the built-in tools' parameters. */
export interface SchemaSettings {
  bashTimeoutMs: number;
  maxOutputTokens: number;
  readOnlyCommands: string[];
}

/**
 * Every form of the built-in tools' parameter schemas for these settings — with a sandbox and
 * without — by schemaKey: what scripts/bundle.mjs compiles into the bundle (prebuilt-schemas.ts), with
 * the tools the session adds (orchestrator/tool-schema-forms.ts).
 * Only the tools' definitions are made: nothing here runs a tool.
 */
export function builtinSchemaForms(settings: SchemaSettings): Record<string, Record<string, unknown>> {
  let forms: Record<string, Record<string, unknown>> = {};
  const tokens: TokenCounter = { count: (text) => text.length, head: (text) => text, tail: (text) => text };
  for (const available of [true, false]) {
    const shells = { launcher: { sandbox: { available, status: { available, network: "off" } } } } as unknown as ShellManager;
    forms = { ...forms, ...schemaFormsOf(builtinTools({ shells, tokens, ...settings })) };
  }
  return forms;
}
