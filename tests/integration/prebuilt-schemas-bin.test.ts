import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { prebuiltSchemaForms } from "../../src/orchestrator/tool-schema-forms.js";
import { builtinSchemaForms } from "../../src/tools/builtin/schema-forms.js";
import { schemaKey } from "../../src/tools/prebuilt-schemas.js";
import { builtinTools } from "../../src/tools/builtin/index.js";
import type { ShellManager } from "../../src/tools/builtin/shells.js";
import { runOrca } from "../fixtures/harness.js";
import { scriptedServer, workspace } from "../fixtures/rig.js";

/**
 * The built-in tools' schemas compiled into the bundle at build time (src/tools/prebuilt-schemas.ts)
 * are what converting the sources' zod schemas gives, with the default settings (kept schemas) and
 * with settings that change a schema (converted at start): the first request offers the model
 * exactly the schemas of the sources.
 */

const BUNDLE = fileURLToPath(new URL("../../dist/bundle/", import.meta.url));

async function offered(config: string): Promise<Map<string, unknown>> {
  return new Map((await firstRequestTools(config)).map((t) => [t.function.name, t.function.parameters]));
}

async function firstRequestTools(config: string) {
  const server = await scriptedServer([{ text: "hi" }]);
  const ws = workspace(config ? { ".orca/config.yaml": config } : {});
  const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
  expect(run.code, run.stderr).toBe(0);
  return server.requests[0]!.body.tools ?? [];
}

function fromSources(bashTimeoutMs: number): Map<string, unknown> {
  const defaults = configSchema.parse({});
  const settings = { bashTimeoutMs, maxOutputTokens: defaults.tools.max_output_tokens, readOnlyCommands: defaults.scheduler.read_only_commands };
  const forms = builtinSchemaForms(settings);
  const shells = { launcher: { sandbox: { available: true, status: { available: true, network: "off" } } } } as unknown as ShellManager;
  const tools = builtinTools({ shells, tokens: { count: () => 0, head: (t) => t, tail: (t) => t }, ...settings });
  return new Map(tools.map((tool) => [tool.name, forms[schemaKey(tool)!]]));
}

describe("built-in tool schemas made at build time", () => {
  it("the default settings: the first request offers the sources' schemas", async () => {
    const tools = await offered("");
    const expected = fromSources(configSchema.parse({}).tools.bash_timeout);
    expect(expected.size).toBeGreaterThan(5);
    for (const [name, schema] of expected) expect(tools.get(name), name).toEqual(schema);
  });

  it("a setting that changes a schema (tools.bash_timeout): the changed one is converted, not taken from the build", async () => {
    const tools = await offered("tools:\n  bash_timeout: 5000\n");
    const expected = fromSources(5000);
    for (const [name, schema] of expected) expect(tools.get(name), name).toEqual(schema);
    expect(JSON.stringify(tools.get("bash"))).toContain("Default 5000");
  });

  it("every tool the coordinator is offered at first has a kept schema (the session's own: delegate, the task board, the agent controls, get_skill)", async () => {
    const defaults = configSchema.parse({});
    const settings = { bashTimeoutMs: defaults.tools.bash_timeout, maxOutputTokens: defaults.tools.max_output_tokens, readOnlyCommands: defaults.scheduler.read_only_commands };
    // By name: a tool may have more than one form (bash with a sandbox and without).
    const kept = Object.entries(prebuiltSchemaForms(settings)).map(([key, schema]) => ({ name: (JSON.parse(key) as string[])[0]!, schema }));
    const tools = await firstRequestTools("");
    for (const name of ["delegate", "task_create", "message_agent", "wait_agents", "get_skill"]) expect(tools.map((t) => t.function.name)).toContain(name);
    // And the bundle holds each one under its key (esbuild writes the keys as quoted string literals).
    const bundle = fs.readdirSync(BUNDLE).map((f) => fs.readFileSync(path.join(BUNDLE, f), "utf8")).join("\n");
    const literals = (key: string) => [JSON.stringify(key), `'${key.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`];
    for (const key of Object.keys(prebuiltSchemaForms(settings))) expect(literals(key).some((l) => bundle.includes(l)), key).toBe(true);
    for (const tool of tools) expect(kept.filter((k) => k.name === tool.function.name).map((k) => k.schema), tool.function.name).toContainEqual(tool.function.parameters);
  });
});
