import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
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

async function offered(config: string): Promise<Map<string, unknown>> {
  const server = await scriptedServer([{ text: "hi" }]);
  const ws = workspace(config ? { ".orca/config.yaml": config } : {});
  const run = await runOrca(["-p", "hi", "--base-url", server.url], { ws });
  expect(run.code, run.stderr).toBe(0);
  return new Map((server.requests[0]!.body.tools ?? []).map((t) => [t.function.name, t.function.parameters]));
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
});
