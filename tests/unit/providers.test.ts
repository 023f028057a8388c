import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/load.js";
import type { EventInput, OrcaEvent } from "../../src/events/types.js";
import { AnthropicModel } from "../../src/model/anthropic.js";
import { OpenAIModel } from "../../src/model/openai.js";
import { costOf, priceFor } from "../../src/model/pricing.js";
import { Providers } from "../../src/model/providers.js";
import { rebuildSession } from "../../src/sessions/rebuild.js";
import { tempWorkspace, type TempWorkspace } from "../fixtures/harness.js";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

function load(yaml: string, env: NodeJS.ProcessEnv = {}, overrides: { model?: string; baseUrl?: string } = {}) {
  ws = tempWorkspace();
  const file = path.join(ws.home, "c.yaml");
  fs.writeFileSync(file, yaml);
  return loadConfig({ workspace: ws.dir, home: ws.home, packageDir: path.join(ws.home, "none"), configFile: file, env, overrides }).config;
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain("\n");
    return message;
  }
  throw new Error("expected a ConfigError");
}

const TWO = `
model:
  name: gpt-4.1-mini
  base_url: http://main.example/v1
  api_key: main-key
providers:
  fast:
    type: anthropic
    base_url: http://claude.example
    api_key: fast-key
    thinking: 2048
  local:
    type: openai
    base_url: http://localhost:11434/v1
`;

describe("providers and model specs", () => {
  it("resolves inherit, a bare name, and provider/model; shows them as provider/model", () => {
    const providers = new Providers(load(TWO), {});
    const label = (spec: string) => Providers.label(providers.resolve(spec));
    expect(label("inherit")).toBe("default/gpt-4.1-mini");
    expect(label("gpt-4o")).toBe("default/gpt-4o");
    expect(label("fast/claude-haiku-4-5")).toBe("fast/claude-haiku-4-5");
    expect(label("local/qwen2.5-coder:7b")).toBe("local/qwen2.5-coder:7b");
    // A name with a slash on a named provider: everything after the provider is the name.
    expect(label("local/library/qwen")).toBe("local/library/qwen");
    expect(label("default/openai/gpt-4o")).toBe("default/openai/gpt-4o");
    const fast = providers.resolve("fast/x").provider;
    expect(fast).toMatchObject({ type: "anthropic", baseURL: "http://claude.example", apiKey: "fast-key", thinking: 2048, promptCache: true });
  });

  it("an unknown provider is one line naming the known ones; with no providers, slashes belong to the model name", () => {
    const providers = new Providers(load(TWO), {});
    expect(errorOf(() => providers.resolve("fsat/claude-haiku-4-5"))).toBe(
      'model "fsat/claude-haiku-4-5": no provider named "fsat" (providers: default, fast, local); to send a model name with a slash, write default/fsat/claude-haiku-4-5',
    );
    expect(errorOf(() => providers.resolve("fast/"))).toMatch(/no model name after the provider/);
    const plain = new Providers(load("model:\n  base_url: https://openrouter.ai/api/v1\n"), {});
    expect(Providers.label(plain.resolve("anthropic/claude-sonnet-4.5"))).toBe("default/anthropic/claude-sonnet-4.5");
    expect(errorOf(() => new Providers(load("model:\n  provider: nope\n"), {}))).toBe('model.provider: no provider named "nope" (providers: default)');
  });

  it("model.provider picks the configured model's provider; -m provider/model and --base-url follow it", () => {
    const yaml = `${TWO}\n`.replace("model:\n  name: gpt-4.1-mini\n", "model:\n  provider: fast\n");
    const config = load(yaml);
    // No model.name with an Anthropic provider: a Claude model, not the OpenAI default.
    expect(new Providers(config, {}).main).toMatchObject({ name: "claude-sonnet-4-6", provider: { name: "fast" } });
    expect(Providers.label(new Providers(load(yaml, {}, { model: "local/qwen" }), {}).main)).toBe("local/qwen");
    expect(Providers.label(new Providers(load(yaml, {}, { model: "claude-opus-4-5" }), {}).main)).toBe("fast/claude-opus-4-5");
    expect(new Providers(load(yaml, {}, { baseUrl: "http://elsewhere" }), {}).main.provider.baseURL).toBe("http://elsewhere");
  });

  it("environment keys go to the vendor or where the environment points, never to a base_url from the config", () => {
    const env = { ANTHROPIC_API_KEY: "env-anthropic", OPENAI_API_KEY: "env-openai" };
    const config = load("providers:\n  claude: { type: anthropic }\n  gw: { type: anthropic, base_url: http://gateway }\n  oai: { type: openai }\n", env);
    const providers = new Providers(config, env);
    expect(providers.resolve("claude/x").provider).toMatchObject({ apiKey: "env-anthropic", baseURL: undefined });
    expect(providers.resolve("gw/x").provider.apiKey).toBeUndefined();
    expect(providers.resolve("oai/x").provider.apiKey).toBe("env-openai");
    const pointed = new Providers(config, { ...env, ANTHROPIC_BASE_URL: "http://proxy" });
    expect(pointed.resolve("claude/x").provider).toMatchObject({ apiKey: "env-anthropic", baseURL: "http://proxy" });
    expect(providers.secrets()).toEqual(expect.arrayContaining(["env-anthropic", "env-openai"]));
    // Credential headers are secrets; a feature flag is not (redacting it would blank it out of the log).
    const headers = new Providers(load('providers:\n  gw: { type: anthropic, base_url: http://gw, headers: { Authorization: "Bearer gw-token-123456", anthropic-beta: "some-feature-2026" } }\n'), {});
    expect(headers.secrets()).toEqual(["Bearer gw-token-123456"]);
  });

  it("builds an Anthropic or an OpenAI model by the provider's type", () => {
    const providers = new Providers(load(TWO), {});
    const expectKind = (spec: string) => {
      const model = providers.create(providers.resolve(spec));
      expect(model.name).toBe(spec.split("/").at(-1));
      return model;
    };
    // Priced models are wrapped; unpriced ones are the provider's class itself.
    expect(expectKind("local/qwen")).toBeInstanceOf(OpenAIModel);
    expect(expectKind("fast/my-fine-tune")).toBeInstanceOf(AnthropicModel);
  });

  it("rejects provider config errors with one line naming the path", () => {
    expect(errorOf(() => load("providers:\n  x: { type: gemini }\n"))).toMatch(/^.*c\.yaml: providers\.x\.type: expected one of "openai", "anthropic"$/);
    expect(errorOf(() => load("providers:\n  x: { type: openai, thinking: 2048 }\n"))).toMatch(/providers\.x\.thinking: only for type anthropic/);
    expect(errorOf(() => load("providers:\n  x: { type: anthropic, thinking: 10 }\n"))).toMatch(/providers\.x\.thinking/);
    expect(errorOf(() => load("providers:\n  default: { type: openai }\n"))).toMatch(/providers\.default: "default" is the provider model\.base_url/);
    expect(errorOf(() => load("providers:\n  x: { type: openai, colour: red }\n"))).toMatch(/providers\.x\.colour: unknown key/);
  });
});

describe("Claude pricing", () => {
  it("knows Claude models by alias, snapshot and OpenRouter name, with cache write and read rates", () => {
    expect(priceFor("claude-sonnet-4-6")).toEqual({ input: 3, output: 15, cacheWrite: 3.75, cached: 0.3 });
    expect(priceFor("claude-haiku-4-5-20251001")).toEqual(priceFor("claude-haiku-4-5"));
    expect(priceFor("anthropic/claude-opus-4.5")).toEqual({ input: 5, output: 25, cacheWrite: 6.25, cached: 0.5 });
    expect(priceFor("claude-3-5-haiku-latest")).toMatchObject({ input: 0.8 });
    expect(priceFor("claude-unknown-9")).toBeUndefined();
  });

  it("bills fresh, cache-written and cache-read prompt tokens each at its own rate", () => {
    const price = priceFor("claude-sonnet-4-6")!;
    // 1M prompt tokens: 100k fresh, 200k written, 700k read; 10k out.
    const cost = costOf({ input: 1_000_000, output: 10_000, cached: 700_000, cacheWrite: 200_000 }, price)!;
    expect(cost).toBeCloseTo(0.1 * 3 + 0.2 * 3.75 + 0.7 * 0.3 + 0.01 * 15, 10);
    // Without caching the same prompt costs more: the point of the breakpoints.
    expect(costOf({ input: 1_000_000, output: 10_000, cached: 0 }, price)!).toBeGreaterThan(cost);
  });
});

describe("resume keeps thinking", () => {
  it("rebuilds an assistant message with its signed thinking from the log", () => {
    let ts = 0;
    const e = (input: EventInput) => ({ ...input, ts: ts++, sessionId: "s" }) as OrcaEvent;
    const thinking = [{ text: "plan", signature: "sig", model: "claude-x" }];
    const rebuilt = rebuildSession([
      e({ type: "session_started", agentId: "coordinator", workspace: "/w", model: "claude-x", configPath: null, version: "0" }),
      e({ type: "agent_started", agentId: "coordinator", name: "coordinator", task: "t", tools: [], depth: 0, model: "claude-x", system: "sys" }),
      e({ type: "assistant_message", agentId: "coordinator", content: "", toolCalls: [{ id: "a", name: "read_file", raw: "{}", args: {} }], thinking }),
      e({ type: "tool_finished", agentId: "coordinator", callId: "a", name: "read_file", ok: true, content: "A", durationMs: 1 }),
    ]);
    expect(rebuilt.agents[0]!.history[2]).toEqual({ role: "assistant", content: "", toolCalls: [{ id: "a", name: "read_file", raw: "{}", args: {} }], thinking });
  });
});
