import { ConfigError } from "../util/errors.js";
import { DEFAULT_PROVIDER, type Config } from "../config/schema.js";
import { AnthropicModel } from "./anthropic.js";
import type { Model, ModelEvent, ModelRequest } from "./model.js";
import { OpenAIModel } from "./openai.js";
import { chargedPrice, costOf, priceFor, type Price } from "./pricing.js";

/** One endpoint orca can send model requests to, with the config and environment resolved. */
export interface Provider {
  name: string;
  type: "openai" | "anthropic";
  baseURL?: string;
  apiKey?: string;
  timeoutMs: number;
  maxRetries: number;
  maxOutputTokens?: number;
  thinking?: number | "adaptive";
  promptCache: boolean;
  headers: Record<string, string>;
}

/** A model on a provider: what an agent runs on. */
export interface ModelChoice {
  provider: Provider;
  /** The model name sent to the provider. */
  name: string;
}

/**
 * The providers of a configuration, and how a model spec picks one. A spec is `inherit` (the
 * configured model), a model name (on the configured model's provider), or `provider/model`
 * (`fast/claude-haiku-4-5`, `local/qwen2.5-coder`). While no provider is configured, a spec with
 * a slash is a model name as it stands (OpenRouter's `openai/gpt-4o`, vLLM's `Qwen/Qwen2.5-7B`);
 * once providers are, an unknown prefix is an error rather than a silent detour — and
 * `default/openai/gpt-4o` still sends such a name.
 */
export class Providers {
  readonly byName = new Map<string, Provider>();
  /** The configured model (`model.name` on `model.provider`): what `inherit` means. */
  readonly main: ModelChoice;

  constructor(
    private readonly config: Config,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    const { model } = config;
    this.byName.set(DEFAULT_PROVIDER, {
      name: DEFAULT_PROVIDER,
      type: "openai",
      // model.base_url / model.api_key already carry OPENAI_BASE_URL / OPENAI_API_KEY (config/load.ts).
      baseURL: model.base_url,
      apiKey: model.api_key,
      timeoutMs: model.timeout,
      maxRetries: model.max_retries,
      maxOutputTokens: model.max_output_tokens,
      promptCache: true,
      headers: {},
    });
    for (const [name, p] of Object.entries(config.providers)) {
      const vendor = p.type === "anthropic" ? "ANTHROPIC" : "OPENAI";
      const baseURL = p.base_url ?? env[`${vendor}_BASE_URL`] ?? undefined;
      // The environment's key goes only where the environment points (or to the vendor itself):
      // never to a base_url written in the config for some other server.
      const apiKey = p.api_key ?? (p.base_url ? undefined : env[`${vendor}_API_KEY`] || undefined);
      this.byName.set(name, {
        name,
        type: p.type,
        baseURL: baseURL || undefined,
        apiKey,
        timeoutMs: p.timeout ?? model.timeout,
        maxRetries: p.max_retries ?? model.max_retries,
        maxOutputTokens: p.max_output_tokens ?? model.max_output_tokens,
        thinking: p.thinking,
        promptCache: p.prompt_cache,
        headers: p.headers,
      });
    }
    const base = this.byName.get(model.provider ?? DEFAULT_PROVIDER);
    if (!base) throw new ConfigError(`model.provider: no provider named "${model.provider}" (${this.known()})`);
    this.main = this.resolveOn(model.name, base);
  }

  /** The provider and model a spec names; a ConfigError (one line) when it names no provider. */
  resolve(spec: string): ModelChoice {
    if (spec === "inherit") return this.main;
    return this.resolveOn(spec, this.main.provider);
  }

  /** How a choice is shown: `provider/model`. */
  static label(choice: ModelChoice): string {
    return `${choice.provider.name}/${choice.name}`;
  }

  /** Every secret of every provider (keys, credential headers), to keep out of the log. */
  secrets(): string[] {
    // Only credential headers: redacting a value such as an anthropic-beta flag would blank it
    // out of every logged line that mentions it.
    const credential = /auth|key|token|secret|cookie|session/i;
    return [...this.byName.values()]
      .flatMap((p) => [p.apiKey ?? "", ...Object.entries(p.headers).flatMap(([name, value]) => (credential.test(name) ? [value] : []))])
      .filter(Boolean);
  }

  /** Builds the Model for a choice; the configured model gets `model.price`, others the list price. */
  create(choice: ModelChoice): Model {
    const { provider, name } = choice;
    const model =
      provider.type === "anthropic"
        ? new AnthropicModel({
            name,
            provider: provider.name,
            baseURL: provider.baseURL,
            apiKey: provider.apiKey,
            timeoutMs: provider.timeoutMs,
            maxRetries: provider.maxRetries,
            maxOutputTokens: provider.maxOutputTokens,
            thinking: provider.thinking,
            promptCache: provider.promptCache,
            defaultHeaders: provider.headers,
          })
        : new OpenAIModel({
            name,
            baseURL: provider.baseURL,
            apiKey: provider.apiKey,
            timeoutMs: provider.timeoutMs,
            maxRetries: provider.maxRetries,
            maxOutputTokens: provider.maxOutputTokens,
            defaultHeaders: Object.keys(provider.headers).length ? provider.headers : undefined,
          });
    const configured = this.config.model.price;
    const isMain = provider === this.main.provider && name === this.main.name;
    const price: Price | undefined =
      isMain && configured
        ? chargedPrice(name, { input: configured.input, output: configured.output, cached: configured.cached, cacheWrite: configured.cache_write })
        : priceFor(name);
    return priced(model, price);
  }

  private resolveOn(spec: string, base: Provider): ModelChoice {
    const slash = spec.indexOf("/");
    if (slash > 0) {
      const prefix = spec.slice(0, slash);
      const rest = spec.slice(slash + 1);
      const provider = this.byName.get(prefix);
      if (provider) {
        if (!rest) throw new ConfigError(`model "${spec}": no model name after the provider`);
        return { provider, name: rest };
      }
      if (this.byName.size > 1) {
        throw new ConfigError(`model "${spec}": no provider named "${prefix}" (${this.known()}); to send a model name with a slash, write ${base.name}/${spec}`);
      }
    }
    return { provider: base, name: spec };
  }

  private known(): string {
    return `providers: ${[...this.byName.keys()].join(", ")}`;
  }
}

/** The model with its usage events priced: `cost` in USD when the price is known. */
export function priced(model: Model, price: Price | undefined): Model {
  if (!price) return model;
  return {
    name: model.name,
    price,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
      for await (const event of model.stream(request, signal)) {
        yield event.type === "usage" ? { ...event, cost: costOf(event, price) } : event;
      }
    },
    ...(model.prepare ? { prepare: () => model.prepare!() } : {}),
    ...(model.preconnect ? { preconnect: () => model.preconnect!() } : {}),
  };
}
