import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/load.js";
import { ROOT, tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

function write(file: string, text: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

const load = (opts: Partial<Parameters<typeof loadConfig>[0]> = {}) =>
  loadConfig({ workspace: ws.dir, home: ws.home, packageDir: path.join(ws.home, "no-package"), env: {}, ...opts });

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("config loading", () => {
  it("works with no file at all: every section has its default", () => {
    ws = tempWorkspace();
    const { config, path: found } = load();
    expect(found).toBeNull();
    expect(config.agents.max_parallel).toBe(4);
    expect(config.scheduler.max_concurrency).toBe(8);
    expect(config.permissions.mode).toBe("default");
    expect(config.context.compact_at).toBe(0.8);
  });

  it("searches workspace, then home, then the package; the first found wins", () => {
    ws = tempWorkspace();
    const pkg = path.join(ws.home, "pkg");
    write(path.join(pkg, "config.yaml"), "model:\n  name: from-package\n");
    expect(load({ packageDir: pkg }).config.model.name).toBe("from-package");
    write(path.join(ws.home, ".config", "orca", "config.yaml"), "model:\n  name: from-home\n");
    expect(load({ packageDir: pkg }).config.model.name).toBe("from-home");
    write(path.join(ws.dir, ".orca", "config.yaml"), "model:\n  name: from-workspace\n");
    expect(load({ packageDir: pkg }).config.model.name).toBe("from-workspace");
    const explicit = write(path.join(ws.home, "x.yaml"), "model:\n  name: explicit\n");
    expect(load({ packageDir: pkg, configFile: explicit }).config.model.name).toBe("explicit");
  });

  it("interpolates ${VAR} and ${VAR:-default}, and an unset ${VAR} is an error naming where", () => {
    ws = tempWorkspace();
    const file = write(path.join(ws.home, "c.yaml"), "model:\n  name: ${MODEL_NAME:-fallback}\n  base_url: ${BASE}\n");
    const { config } = load({ configFile: file, env: { BASE: "http://x/v1" } });
    expect(config.model.name).toBe("fallback");
    expect(config.model.base_url).toBe("http://x/v1");
    expect(errorOf(() => load({ configFile: file }))).toMatch(/model\.base_url: environment variable BASE is not set/);
  });

  it("environment overrides the file and flags override the environment", () => {
    ws = tempWorkspace();
    const file = write(path.join(ws.home, "c.yaml"), "model:\n  name: file-model\n  base_url: http://file/v1\n");
    const env = { ORCA_MODEL: "env-model", OPENAI_BASE_URL: "http://env/v1", OPENAI_API_KEY: "sk-env-key-123456" };
    let { config } = load({ configFile: file, env });
    expect([config.model.name, config.model.base_url, config.model.api_key]).toEqual(["env-model", "http://env/v1", "sk-env-key-123456"]);
    ({ config } = load({ configFile: file, env, overrides: { model: "flag-model", baseUrl: "http://flag/v1", maxSteps: 7, permissionMode: "plan" } }));
    expect([config.model.name, config.model.base_url, config.agent.max_steps, config.permissions.mode]).toEqual(["flag-model", "http://flag/v1", 7, "plan"]);
  });

  it("reports one line naming the path for unknown keys, bad values and broken YAML", () => {
    ws = tempWorkspace();
    const cases: [string, RegExp][] = [
      ["model:\n  nmae: x\n", /model\.nmae: unknown key; did you mean name\?$/],
      ["agents:\n  max_parallel: many\n", /agents\.max_parallel: expected number, got string/],
      ["permissions:\n  mode: yolo\n", /permissions\.mode: expected one of "default", "accept-edits", "plan", "bypass"/],
      ["mcp_servers:\n  gh:\n    url: not a url\n", /mcp_servers\.gh\.url: /],
      ["bogus: 1\n", /bogus: unknown key$/],
      ["model: [1\n", /bad\.yaml:2:1: invalid YAML: Flow sequence/],
      ["- a list\n", /expected a mapping/],
    ];
    for (const [text, pattern] of cases) {
      const file = write(path.join(ws.home, "bad.yaml"), text);
      const message = errorOf(() => load({ configFile: file }));
      expect(message.split("\n")).toHaveLength(1);
      expect(message).toMatch(pattern);
      expect(message).not.toMatch(/ZodError|"code":/);
    }
  });

  it("suggests the nearest known key wherever the unknown one sits, and none when nothing is near", () => {
    ws = tempWorkspace();
    const cases: [string, string][] = [
      ["permisions:\n  mode: plan\n", "permisions: unknown key; did you mean permissions?"],
      ["sandbox:\n  network:\n    alow: []\n", "sandbox.network.alow: unknown key; did you mean allow?"],
      // Inside a record (a server's name) and a union (stdio or remote): the branch's own keys.
      ["mcp_servers:\n  gh:\n    command: x\n    agrs: []\n", "mcp_servers.gh.agrs: unknown key; did you mean args?"],
      ["providers:\n  local:\n    type: openai\n    base_ulr: http://x/v1\n", "providers.local.base_ulr: unknown key; did you mean base_url?"],
      ["model:\n  colour: red\n", "model.colour: unknown key"],
    ];
    for (const [text, line] of cases) {
      const file = write(path.join(ws.home, "bad.yaml"), text);
      expect(errorOf(() => load({ configFile: file }))).toBe(`${file}: ${line}`);
    }
  });

  it("gives a YAML error's line and column, counted from 1", () => {
    ws = tempWorkspace();
    const file = write(path.join(ws.home, "bad.yaml"), "model:\n  name: gpt-4o\nagent:\n  max_steps: 5\n    oops: [\n");
    // yaml places it at the value that a deeper line turns into a mapping: line 4, column 14.
    expect(errorOf(() => load({ configFile: file }))).toBe(`${file}:4:14: invalid YAML: Nested mappings are not allowed in compact mappings`);
  });

  it("treats a section whose fields are all commented out as absent", () => {
    ws = tempWorkspace();
    const file = write(path.join(ws.home, "c.yaml"), "budget:\n  # max_tokens: 5\nmodel:\n");
    expect(load({ configFile: file }).config.budget).toEqual({});
  });

  it("the shipped config.yaml is valid and matches the defaults", () => {
    ws = tempWorkspace();
    const shipped = load({ configFile: path.join(ROOT, "config.yaml") }).config;
    const defaults = load().config;
    expect(shipped).toEqual(defaults);
  });
});
