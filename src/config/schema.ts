import { z } from "zod";
import { builtOnUse } from "../util/built-on-use.js";
import { checkBaseUrl } from "./base-url.js";
import { hooksConfigSchema } from "./hooks.js";
import { keysConfigSchema } from "./keys.js";

/**
 * The whole configuration. Every section is optional and every field has a default, so an empty
 * file (or none) is a valid configuration. Objects are strict: an unknown key is an error that
 * names its path. The schemas are made on first use (util/built-on-use.ts): a start that reads only
 * the package's config.yaml takes it as the build checked it and makes none of them.
 */

const mcpStdioServer = builtOnUse(() => z.strictObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
  enabled: z.boolean().default(true),
  connect_timeout: z.number().positive().default(30_000),
  call_timeout: z.number().positive().default(120_000),
}));

const mcpRemoteServer = builtOnUse(() => z.strictObject({
  type: z.enum(["http", "sse", "streamable-http", "streamableHttp"]).optional(),
  url: z.url(),
  headers: z.record(z.string(), z.string()).default({}),
  enabled: z.boolean().default(true),
  connect_timeout: z.number().positive().default(30_000),
  call_timeout: z.number().positive().default(120_000),
}));

export const mcpServerSchema = builtOnUse(() => z.union([mcpStdioServer, mcpRemoteServer]));
export type McpServerConfig = z.infer<typeof mcpServerSchema>;
export type McpStdioServerConfig = z.infer<typeof mcpStdioServer>;
export type McpRemoteServerConfig = z.infer<typeof mcpRemoteServer>;

export const permissionModeSchema = builtOnUse(() => z.enum(["default", "accept-edits", "plan", "bypass"]));
export type PermissionMode = z.infer<typeof permissionModeSchema>;

export const DEFAULT_READ_ONLY_COMMANDS = [
  "git status",
  "git status *",
  "git diff",
  "git diff *",
  "git log",
  "git log *",
  "git show",
  "git show *",
  "git branch",
  "ls",
  "ls *",
  "pwd",
  "cat *",
  "head *",
  "tail *",
  "wc *",
  "rg *",
  "grep *",
  "find *",
  "tree",
  "tree *",
];

/**
 * Credential stores commands have no business reading: the sandbox hides them (they stay readable
 * to you, and to orca itself). orca's own config and sessions are among them.
 */
export const DEFAULT_SANDBOX_DENY_READ = [
  "~/.ssh",
  "~/.aws",
  "~/.gnupg",
  "~/.kube",
  "~/.docker",
  "~/.config/gh",
  "~/.config/gcloud",
  "~/.netrc",
  "~/.npmrc",
  "~/.pypirc",
  "~/.git-credentials",
  "~/.config/orca/config.yaml",
  "~/.orca/sessions",
];
const priceSchema = builtOnUse(() => z.strictObject({
  input: z.number().min(0),
  output: z.number().min(0),
  cached: z.number().min(0).optional(),
  cache_write: z.number().min(0).optional(),
}));

/** An endpoint URL, checked at load (an empty value, e.g. `${VAR:-}`, means unset). */
const baseUrlSchema = builtOnUse(() => z.string().superRefine((value, ctx) => {
  const problem = value ? checkBaseUrl(value) : null;
  if (problem) ctx.addIssue({ code: "custom", message: `${JSON.stringify(value)} ${problem.problem}${problem.suggestion ? `; did you mean ${problem.suggestion}?` : ""}` });
}));

/** The name `model.base_url` / `model.api_key` go by as a provider. */
export const DEFAULT_PROVIDER = "default";

export const DEFAULT_INSTRUCTIONS_MAX_CHARS = 40_000;

export const providerSchema = builtOnUse(() => z
  .strictObject({
    type: z.enum(["openai", "anthropic"]),
    /** Unset: the vendor's own endpoint (or OPENAI_BASE_URL / ANTHROPIC_BASE_URL). */
    base_url: baseUrlSchema.optional(),
    api_key: z.string().optional(),
    /** Per-request timeout in ms; default model.timeout. */
    timeout: z.number().int().positive().optional(),
    /** Default model.max_retries. */
    max_retries: z.number().int().min(0).max(10).optional(),
    /** Default model.max_output_tokens (Anthropic requires a cap: 8192 when neither is set). */
    max_output_tokens: z.number().int().positive().optional(),
    /** Anthropic extended thinking: a token budget (≥ 1024) or "adaptive". */
    thinking: z.union([z.literal("adaptive"), z.number().int().min(1024)]).optional(),
    /** Anthropic: mark the stable prefix with cache_control breakpoints. */
    prompt_cache: z.boolean().default(true),
    headers: z.record(z.string(), z.string()).default({}),
  })
  .superRefine((provider, ctx) => {
    if (provider.type !== "anthropic" && provider.thinking !== undefined) {
      ctx.addIssue({ code: "custom", path: ["thinking"], message: "only for type anthropic (OpenAI-compatible servers stream their reasoning unasked)" });
    }
  }));
export type ProviderConfigInput = z.infer<typeof providerSchema>;

/** A `sandbox.network.allow` entry: `*`, or a host (`*.` for its subdomains, `[v6]`), optionally `:port`. */
const NETWORK_ALLOW_ENTRY = /^(?:\*|(?:\*\.)?[^:\s[\]/*]+(?::[1-9]\d{0,4})?|\[[0-9a-fA-F:.]+\](?::[1-9]\d{0,4})?)$/;

export const configSchema = builtOnUse(() => z.strictObject({
  model: z
    .strictObject({
      name: z.string().min(1).default("gpt-4.1-mini"),
      /** A name from `providers`; unset: the OpenAI-compatible endpoint base_url/api_key describe. */
      provider: z.string().min(1).optional(),
      base_url: baseUrlSchema.optional(),
      api_key: z.string().optional(),
      /** Context window in tokens; when absent, a known model's window or 128k. */
      context_window: z.number().int().positive().optional(),
      max_output_tokens: z.number().int().positive().optional(),
      temperature: z.number().min(0).max(2).optional(),
      /** Per-request timeout in ms. */
      timeout: z.number().int().positive().default(600_000),
      max_retries: z.number().int().min(0).max(10).default(3),
      /** Open each provider's connection at start, before the first request needs it. */
      preconnect: z.boolean().default(true),
      /** USD per million tokens, for models orca has no price for. */
      price: priceSchema.optional(),
    })
    .prefault({}),
  /** Named endpoints an agent's `model: provider/name` can use. */
  providers: z
    .record(
      z
        .string()
        .regex(/^[A-Za-z0-9_-]+$/, "letters, digits, _ and - only")
        .refine((name) => name !== DEFAULT_PROVIDER, `"${DEFAULT_PROVIDER}" is the provider model.base_url and model.api_key describe`),
      providerSchema,
    )
    .default({}),
  agent: z
    .strictObject({
      /** The agent that talks with the user. */
      default: z.string().default("coordinator"),
      max_steps: z.number().int().positive().default(50),
      /** The same call (tool + args) this many times in a row ends the run as a loop. */
      loop_limit: z.number().int().min(2).default(3),
    })
    .prefault({}),
  agents: z
    .strictObject({
      max_parallel: z.number().int().positive().default(4),
      max_depth: z.number().int().min(1).default(2),
      /** A turn that starts more sub-agents than this at once asks first (headless: the rest are refused); false: never by count. */
      confirm_fanout: z.union([z.number().int().min(1), z.literal(false)]).default(4),
      /** A turn whose sub-agents' estimated cost passes this (USD) asks first; unset: never by cost. */
      confirm_cost_usd: z.number().positive().optional(),
      /** ask: an isolated (worktree) agent's merge waits for a person's acceptance in /review. */
      review: z.enum(["ask", "auto"]).default("auto"),
      /** A delegated board task whose scope meets a running task's: warn (the result and a notice say so), ask the person, or refuse. */
      on_overlap: z.enum(["warn", "ask", "refuse"]).default("warn"),
    })
    .prefault({}),
  scheduler: z
    .strictObject({
      max_concurrency: z.number().int().positive().default(8),
      read_only_commands: z.array(z.string()).default(DEFAULT_READ_ONLY_COMMANDS),
    })
    .prefault({}),
  permissions: z
    .strictObject({
      mode: permissionModeSchema.default("default"),
      allow: z.array(z.string()).default([]),
      ask: z.array(z.string()).default([]),
      deny: z.array(z.string()).default([]),
      additional_dirs: z.array(z.string()).default([]),
      /**
       * auto: a command that may write runs unasked when it runs in the workspace-write sandbox
       * with no network (leaving it, protected paths and deny rules still ask or refuse). Unset:
       * auto in accept-edits (such a command writes no more than edits may), ask in default.
       */
      sandboxed_commands: z.enum(["ask", "auto"]).optional(),
    })
    .prefault({}),
  tools: z
    .strictObject({
      bash_timeout: z.number().int().positive().default(120_000),
      /** Tool output beyond this many tokens is cut to its head and tail. */
      max_output_tokens: z.number().int().positive().default(8_000),
      /** Give commands the model's API key (OPENAI_API_KEY, ANTHROPIC_API_KEY, model.api_key). */
      pass_model_key: z.boolean().default(false),
    })
    .prefault({}),
  sandbox: z
    .strictObject({
      /** auto: sandbox commands where the platform can; true: refuse to start without; false: never. */
      enabled: z.union([z.literal("auto"), z.boolean()]).default("auto"),
      network: z
        .strictObject({
          /**
           * [] no network; ["*"] the host's network; else these hosts (`*.example.com` for
           * subdomains), on ports 443 and 80 unless an entry names its port (`host:8443`).
           */
          allow: z
            .array(
              z
                .string()
                .trim()
                .regex(NETWORK_ALLOW_ENTRY, 'expected "*", a host ("example.com", "*.example.com") or a host and port ("example.com:8443", "[::1]:8080")')
                .refine((e) => Number(/:(\d+)$/.exec(e)?.[1] ?? 1) <= 65535, "a port is 1 to 65535"),
            )
            .default([]),
          /** Commands may use Unix sockets (the host's in /run and /tmp stay hidden); false refuses them all. */
          unix_sockets: z.boolean().default(true),
        })
        .prefault({}),
      /** More directories commands may write (caches such as ~/.cache/go-build). */
      writable: z.array(z.string().min(1)).default([]),
      /** More paths kept read-only inside the writable areas (workspace-relative or absolute). */
      read_only: z.array(z.string().min(1)).default([]),
      /** Paths commands cannot read at all; read_file(PATTERN) deny rules are added to these. */
      deny_read: z.array(z.string().min(1)).default(DEFAULT_SANDBOX_DENY_READ),
      /** A workspace's hooks run in the workspace-write sandbox, as allowed commands do (the user's own run as the user); false: all as you. */
      hooks: z.boolean().default(true),
    })
    .prefault({}),
  mcp_servers: z.record(z.string().regex(/^[A-Za-z0-9_-]+$/, "letters, digits, _ and - only"), mcpServerSchema).default({}),
  skills: z
    .strictObject({
      index_max_chars: z.number().int().positive().default(8_000),
      /** Extra folders to search for skills, before the built-in ones. */
      paths: z.array(z.string()).default([]),
    })
    .prefault({}),
  /** Project instructions (AGENTS.md, CLAUDE.md and its imports; config/instructions.ts). */
  instructions: z
    .strictObject({
      /** Most characters all instruction files together may add to a system prompt; a file past it is skipped and named. */
      max_chars: z.number().int().positive().default(DEFAULT_INSTRUCTIONS_MAX_CHARS),
      /** Sub-agents get them too (an agent definition's `instructions:` decides for its own agent). */
      subagents: z.boolean().default(true),
    })
    .prefault({}),
  context: z
    .strictObject({
      compact_at: z.number().gt(0).lt(1).default(0.8),
      keep_rounds: z.number().int().min(1).default(4),
    })
    .prefault({}),
  budget: z
    .strictObject({
      max_tokens: z.number().int().positive().optional(),
      max_tool_calls: z.number().int().positive().optional(),
      /** Seconds. */
      max_duration: z.number().positive().optional(),
      /** USD for the whole run, every agent's requests priced; needs each model's price. */
      max_cost_usd: z.number().positive().optional(),
    })
    .prefault({}),
  /** Lifecycle hooks, in Claude Code's shape (see ./hooks.ts). */
  hooks: hooksConfigSchema.prefault({}),
  /** Dashboard key bindings: action → key or keys (ui/keymap.ts has the actions and defaults). */
  keys: keysConfigSchema.default({}),
  /** Where sessions are kept; default ~/.orca. */
  data_dir: z.string().optional(),
}));

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
