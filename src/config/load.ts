import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { checkBaseUrl, describeBaseUrlProblem } from "./base-url.js";
import { checkWritableAreas, codePaths } from "./code-paths.js";
import { ConfigError } from "../util/errors.js";
import { interpolate } from "./interpolate.js";
import { didYouMeanKey } from "./known-keys.js";
import { holdYourLimits } from "./project-limits.js";
import { keepYourRules, noteRuleSources, type RuleOrigin } from "./your-rules.js";
import { packageConfigSnapshot } from "../util/package-snapshot.js";
import { configSchema, type Config, type PermissionMode } from "./schema.js";
import { readSettingFile } from "./safe-read.js";

export { ConfigError };

export interface ConfigOverrides {
  model?: string;
  baseUrl?: string;
  maxSteps?: number;
  /** --max-cost: budget.max_cost_usd for this run. */
  maxCostUsd?: number;
  permissionMode?: PermissionMode;
}

export interface LoadConfigOptions {
  workspace: string;
  /** `--config FILE`: must exist. */
  configFile?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** The package root, whose config.yaml is the last resort. */
  packageDir: string;
  overrides?: ConfigOverrides;
  /**
   * Whether the workspace's own `.orca/config.yaml` may be read (default true). False for a folder
   * the user has not trusted: the search starts at ~/.config/orca/config.yaml.
   */
  project?: boolean;
}

export interface LoadedConfig {
  config: Config;
  /** The file that was read, or null when none was found. */
  path: string | null;
}

/** The config files orca looks for, first found wins. */
export function configSearchPath(opts: Pick<LoadConfigOptions, "workspace" | "home" | "packageDir" | "project">): string[] {
  const home = opts.home ?? os.homedir();
  return [
    ...(opts.project === false ? [] : [path.join(opts.workspace, ".orca", "config.yaml")]),
    path.join(home, ".config", "orca", "config.yaml"),
    path.join(opts.packageDir, "config.yaml"),
  ];
}

export function loadConfig(opts: LoadConfigOptions): LoadedConfig {
  const env = opts.env ?? process.env;
  let file: string | null = null;
  if (opts.configFile) {
    file = path.resolve(opts.configFile);
    if (!fs.existsSync(file)) throw new ConfigError(`config file ${opts.configFile} does not exist`);
  } else {
    file = configSearchPath(opts).find((candidate) => fs.existsSync(candidate)) ?? null;
  }

  const config = readLayer(file, opts.packageDir, env);
  noteRuleSources(config, ruleOrigin(file, opts));
  let overrides = opts.overrides ?? {};
  // The folder's own file: your limits (--max-cost among them) still hold (project-limits.ts), and
  // your permission rules count beside its own (your-rules.ts).
  if (!opts.configFile && file === configSearchPath(opts)[0] && opts.project !== false) {
    const yourFile = configSearchPath({ ...opts, project: false }).find((candidate) => fs.existsSync(candidate)) ?? null;
    const yours = readLayer(yourFile, opts.packageDir, env);
    if (overrides.maxCostUsd !== undefined) yours.budget.max_cost_usd = overrides.maxCostUsd;
    holdYourLimits(config, yours);
    keepYourRules(config, yours, ruleOrigin(yourFile, opts));
    overrides = { ...overrides, maxCostUsd: undefined };
  }
  applyOverrides(config, env, overrides);
  const home = opts.home ?? os.homedir();
  const writable = [
    { key: "sandbox.writable", values: config.sandbox.writable },
    { key: "permissions.additional_dirs", values: config.permissions.additional_dirs },
  ];
  checkWritableAreas(writable, opts.workspace, home, codePaths({ env, home, dataDir: dataDir(config, home), packageDir: opts.packageDir }));
  return { config, path: file };
}

/** A config file as the origin of its rules: the project's or yours (what /permissions remove edits), or neither. */
function ruleOrigin(file: string | null, opts: LoadConfigOptions): RuleOrigin {
  if (!file) return { file: "built-in defaults" };
  const [project, user] = configSearchPath({ ...opts, project: true });
  return { file, ...(file === project ? { scope: "project" as const } : file === user ? { scope: "user" as const } : {}) };
}

/** One config file (or none: the defaults), parsed and checked. */
function readLayer(file: string | null, packageDir: string, env: NodeJS.ProcessEnv): Config {
  if (!file) return checkedLayer({}, "config", env);
  const read = readSettingFile(file);
  if (!read.ok) throw new ConfigError(`${displayPath(file)}: cannot read: ${read.reason}`);
  let value: unknown;
  if (file === path.join(packageDir, "config.yaml")) {
    // The package's own file as the build parsed it, and checked it when nothing in it depends on the environment.
    const kept = packageConfigSnapshot(packageDir, read.text);
    if (kept?.checked !== undefined) return kept.checked as Config;
    value = kept?.value;
  }
  return checkedLayer(value ?? parseConfigText(read.text, file), displayPath(file), env);
}

/**
 * A config file's value (its YAML parsed) checked: nulls dropped, `${VAR}` replaced from `env`
 * outside hooks, the schema's defaults filled in. `where` names the file in errors. The build runs
 * it on the package's config.yaml (util/package-snapshot.ts).
 */
export function checkedLayer(value: unknown, where: string, env: NodeJS.ProcessEnv): Config {
  const raw = dropNulls(value);
  const interpolated = interpolateOutsideHooks(raw, env, where);
  // jitless: zod's fast path compiles a validator per object schema on its first parse (~10 ms for
  // this schema on a cold start); a config layer is parsed once, where the plain walk is quicker.
  const parsed = configSchema.safeParse(interpolated, { reportInput: true, jitless: true });
  if (!parsed.success) throw new ConfigError(formatConfigIssues(parsed.error, where));
  const config = parsed.data;
  const namedModel = (interpolated as { model?: { name?: unknown } } | null)?.model?.name !== undefined;
  const main = config.model.provider ? config.providers[config.model.provider] : undefined;
  // The built-in default names an OpenAI model; an Anthropic provider gets a Claude model instead.
  if (!namedModel && main?.type === "anthropic") config.model.name = DEFAULT_ANTHROPIC_MODEL;
  return config;
}

/** The model an Anthropic `model.provider` runs when `model.name` is not set. */
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-6";

function applyOverrides(config: Config, env: NodeJS.ProcessEnv, overrides: ConfigOverrides): void {
  // Environment beats the file, flags beat the environment — except the key: an api_key the file
  // names (often ${SOME_OTHER_KEY} for another provider) is more specific than OPENAI_API_KEY.
  if (env.OPENAI_API_KEY && !config.model.api_key) config.model.api_key = env.OPENAI_API_KEY;
  if (env.OPENAI_BASE_URL) config.model.base_url = checkedBaseUrl("OPENAI_BASE_URL", env.OPENAI_BASE_URL);
  if (env.ORCA_MODEL) config.model.name = env.ORCA_MODEL;
  if (env.ORCA_DATA_DIR) config.data_dir = env.ORCA_DATA_DIR;
  if (overrides.model) config.model.name = overrides.model;
  if (overrides.baseUrl) {
    checkedBaseUrl("--base-url", overrides.baseUrl);
    // --base-url points the configured model's own provider elsewhere.
    const main = config.model.provider ? config.providers[config.model.provider] : undefined;
    if (main) main.base_url = overrides.baseUrl;
    else config.model.base_url = overrides.baseUrl;
  }
  if (overrides.maxSteps) config.agent.max_steps = overrides.maxSteps;
  if (overrides.maxCostUsd !== undefined) config.budget.max_cost_usd = overrides.maxCostUsd;
  if (overrides.permissionMode) config.permissions.mode = overrides.permissionMode;
}

/** The URL, or a ConfigError naming where it came from and what is wrong with it. */
function checkedBaseUrl(name: string, value: string): string {
  const problem = checkBaseUrl(value);
  if (problem) throw new ConfigError(describeBaseUrlProblem(name, value, problem));
  return value;
}

/**
 * Hook commands are shell commands: their `$VAR` and `${CLAUDE_PROJECT_DIR}` are the shell's to
 * expand when the hook runs (as in Claude Code), not orca's to replace when the config loads.
 */
function interpolateOutsideHooks(raw: unknown, env: NodeJS.ProcessEnv, file: string): unknown {
  if (!raw || typeof raw !== "object" || Array.isArray(raw) || !("hooks" in raw)) return interpolate(raw, env, file);
  const { hooks, ...rest } = raw as Record<string, unknown>;
  return { ...(interpolate(rest, env, file) as Record<string, unknown>), hooks };
}

/** `budget:` with every field commented out parses as null: treat an empty key as an absent one. */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value) || !value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, item]) => item !== null)
      .map(([key, item]) => [key, dropNulls(item)]),
  );
}

/** The value of a config file's text: a mapping of sections, or a ConfigError naming the line. */
export function parseConfigText(text: string, file: string): unknown {
  const lines = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, lineCounter: lines });
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    const at = lines.linePos(first.pos[0]);
    // yaml's own message ends with " at line L, column C"; the position leads the line instead, as a compiler's does.
    const message = first.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    throw new ConfigError(`${displayPath(file)}${at ? `:${at.line}:${at.col}` : ""}: invalid YAML: ${message}`);
  }
  const value: unknown = doc.toJS();
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(`${displayPath(file)}: expected a mapping of sections at the top level`);
  }
  return value;
}

/**
 * Every problem, one line each with its file and dotted path, so the user fixes the file in one
 * pass instead of one error per run.
 */
export function formatConfigIssues(error: z.ZodError, file: string): string {
  const lines = [...new Set(error.issues.flatMap((issue) => describeIssue(issue)))];
  return (lines.length ? lines : ["invalid configuration"]).map((line) => `${file}: ${line}`).join("\n");
}

function describeIssue(issue: z.core.$ZodIssue): string[] {
  const where = issue.path.map(String).join(".");
  const prefix = where ? `${where}` : "(top level)";
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((key) => `${where ? `${where}.` : ""}${key}: unknown key${didYouMeanKey(configSchema, issue.path, key)}`);
    case "invalid_type":
      return [`${prefix}: expected ${issue.expected}${receivedOf(issue.input)}`];
    case "invalid_value":
      return [`${prefix}: expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`];
    case "invalid_key":
      // A record key that failed its own check (a provider or server name): say why.
      return issue.issues.length ? issue.issues.map((inner) => `${prefix}: ${inner.message}`) : [`${prefix}: ${issue.message}`];
    case "too_small":
    case "too_big": {
      // zod's own text ("Too small: expected number to be >0") reads like a dump; say it plainly.
      const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
      const op = issue.code === "too_small" ? (issue.inclusive ? "at least" : "more than") : issue.inclusive ? "at most" : "less than";
      const what = issue.origin === "number" || issue.origin === "int" ? "a number" : issue.origin === "string" ? "a length" : "a size";
      const got = typeof issue.input === "number" ? `, got ${issue.input}` : "";
      return [`${prefix}: expected ${what} ${op} ${String(bound)}${got}`];
    }
    case "invalid_union": {
      // Report the branch that got furthest, so "url: Invalid URL" beats "command: required".
      const branches = issue.errors.map((branch) => branch.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] })));
      const best = branches.sort((a, b) => a.length - b.length)[0];
      return best && best.length ? best.flatMap((inner) => describeIssue(inner as z.core.$ZodIssue)) : [`${prefix}: ${issue.message}`];
    }
    default:
      return [`${prefix}: ${issue.message}`];
  }
}

function receivedOf(input: unknown): string {
  if (input === undefined) return "";
  const kind = input === null ? "null" : Array.isArray(input) ? "array" : typeof input;
  return `, got ${kind}`;
}

function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith("..") ? rel : file;
}

/** Where sessions and other state live: `data_dir`, else ~/.orca. */
export function dataDir(config: Config, home = os.homedir()): string {
  const dir = config.data_dir ?? path.join(home, ".orca");
  // `~/.orca`, as config.yaml's own example writes it, is the home's — not a folder named ~ in the
  // current directory (which would put the trust store inside the workspace).
  return path.resolve(dir === "~" ? home : dir.startsWith("~/") ? path.join(home, dir.slice(2)) : dir);
}
