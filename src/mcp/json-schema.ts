import { z } from "zod";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType } from "@modelcontextprotocol/sdk/validation/types.js";

/**
 * JSON Schema handling for MCP tools: the schema a server declares goes to the model whole, and
 * the arguments the model sends are checked against that same schema before the call.
 */

export type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Top-level keys OpenAI's function `parameters` reject: meta keys and top-level combinators. */
const TOP_LEVEL_COMBINATORS = ["oneOf", "anyOf", "allOf"] as const;
const TOP_LEVEL_DROPPED = ["$schema", "$id", "not", "enum", "const"] as const;

/**
 * The schema offered to the model. Nested objects, `oneOf`, `$defs` and `$ref`s are kept; only
 * what OpenAI's API rejects at the top level is changed: `$schema`/`$id` are dropped, the top level
 * is forced to `type: "object"` with `properties`, and top-level `oneOf`/`anyOf`/`allOf` (refused
 * there) are folded into plain optional properties — the server-side validator still enforces them.
 */
export function schemaForModel(input: unknown): JsonObject {
  const schema: JsonObject = isObject(input) ? structuredClone(input) : {};
  for (const key of TOP_LEVEL_DROPPED) delete schema[key];
  const properties: JsonObject = isObject(schema.properties) ? { ...schema.properties } : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : []);
  for (const key of TOP_LEVEL_COMBINATORS) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    delete schema[key];
    for (const branch of branches) {
      if (!isObject(branch) || !isObject(branch.properties)) continue;
      for (const [name, prop] of Object.entries(branch.properties)) {
        if (!(name in properties)) properties[name] = prop;
      }
      // allOf branches all apply, so their required keys stay required.
      if (key === "allOf" && Array.isArray(branch.required)) {
        for (const r of branch.required) if (typeof r === "string") required.add(r);
      }
    }
  }
  schema.type = "object";
  schema.properties = properties;
  if (required.size > 0) schema.required = [...required];
  else delete schema.required;
  return schema;
}

/** One problem with the arguments; `path` is empty for the object itself. */
export interface ArgsIssue {
  path: string[];
  message: string;
}

export type ArgsCheck = (args: JsonObject) => ArgsIssue[];

const sharedValidator = new AjvJsonSchemaValidator();

/**
 * A checker for a tool's `inputSchema`, returning one issue per problem.
 * Uses the SDK's own Ajv-backed validator (the SDK depends on ajv and exports this provider), so
 * orca adds no dependency. A schema Ajv cannot compile falls back to checking required keys only,
 * since refusing every call to a tool over a schema quirk would be worse.
 */
export function argsChecker(inputSchema: unknown): ArgsCheck {
  const schema: JsonObject = isObject(inputSchema) ? structuredClone(inputSchema) : { type: "object" };
  // `$id` would make Ajv cache the schema globally; two servers may reuse the same id.
  delete schema.$id;
  delete schema.$schema;
  try {
    const validate = sharedValidator.getValidator<JsonObject>(schema as JsonSchemaType);
    return (args) => {
      const result = validate(args);
      return result.valid ? [] : splitAjvErrors(result.errorMessage);
    };
  } catch {
    const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
    return (args) =>
      required.filter((key) => !(key in args)).map((key) => ({ path: [], message: `must have required property '${key}'` }));
  }
}

/** Ajv's errorsText joins messages with ", " and prefixes each with `data`: one line each. */
function splitAjvErrors(text: string): ArgsIssue[] {
  return text
    .split(/, (?=data[/ ])/)
    .filter((part) => part.length > 0)
    .map((part) => {
      const m = /^data(\/\S*)? (.*)$/s.exec(part);
      if (!m) return { path: [], message: part };
      // JSON Pointer segments: ~1 is "/" and ~0 is "~".
      const path = m[1] ? m[1].slice(1).split("/").map((seg) => seg.replace(/~1/g, "/").replace(/~0/g, "~")) : [];
      return { path, message: m[2] };
    });
}

/**
 * The zod schema used as a Tool's `params`: any object (a missing/null argument object counts as
 * `{}`, which models send for parameterless tools), checked against the server's JSON Schema.
 */
export function paramsSchema(inputSchema: unknown): z.ZodType<JsonObject> {
  const check = argsChecker(inputSchema);
  return z.preprocess(
    (v) => (v === undefined || v === null ? {} : v),
    z.record(z.string(), z.unknown()).superRefine((args, ctx) => {
      for (const issue of check(args)) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
    }),
  );
}
