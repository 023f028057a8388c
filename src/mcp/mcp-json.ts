import path from "node:path";
import { readSettingFile } from "../config/safe-read.js";
import type { z } from "zod";
import { mcpServerSchema, type McpServerConfig } from "../config/schema.js";

/**
 * `<workspace>/.mcp.json`, the Claude Code project file:
 * `{"mcpServers": {name: {command, args, env, cwd} | {type: "http"|"sse", url, headers}}}`.
 * A `url` without `type` is Streamable HTTP. `${VAR}` and `${VAR:-default}` are expanded in every
 * string value. Each problem is one line naming its path; a bad server is left out, the others load.
 */

const FILE = ".mcp.json";
const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

export interface McpJsonResult {
  servers: Record<string, McpServerConfig>;
  errors: string[];
}

export function loadMcpJson(workspaceRoot: string, env: NodeJS.ProcessEnv = process.env): McpJsonResult {
  const file = path.join(workspaceRoot, FILE);
  const read = readSettingFile(file);
  if (!read.ok) return read.reason === "not found" ? { servers: {}, errors: [] } : { servers: {}, errors: [`${FILE}: cannot read: ${read.reason}`] };
  let data: unknown;
  try {
    data = JSON.parse(read.text);
  } catch (e) {
    return { servers: {}, errors: [`${FILE}: invalid JSON: ${(e as Error).message}`] };
  }
  if (!isObject(data)) return { servers: {}, errors: [`${FILE}: expected an object with "mcpServers"`] };
  if (data.mcpServers === undefined) return { servers: {}, errors: [] };
  if (!isObject(data.mcpServers)) return { servers: {}, errors: [`${FILE}: mcpServers: expected an object`] };
  return parseMcpServers(data.mcpServers, env, `${FILE}: mcpServers`);
}

/** Validates a `{name: server}` map in the Claude Code shape; `where` prefixes every error. */
export function parseMcpServers(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, where: string): McpJsonResult {
  const servers: Record<string, McpServerConfig> = {};
  const errors: string[] = [];
  for (const [name, entry] of Object.entries(raw)) {
    const at = `${where}.${name}`;
    if (!SERVER_NAME.test(name)) {
      errors.push(`${at}: server name must use letters, digits, _ and - only`);
      continue;
    }
    if (!isObject(entry)) {
      errors.push(`${at}: expected an object`);
      continue;
    }
    const missing: string[] = [];
    const expanded = expandVars(entry, env, missing);
    if (missing.length > 0) {
      errors.push(...missing.map((m) => `${at}.${m}`));
      continue;
    }
    const parsed = parseServer(expanded);
    if (parsed.ok) servers[name] = parsed.value;
    else errors.push(...parsed.issues.map((issue) => `${at}${issue}`));
  }
  return { servers, errors };
}

type Parsed = { ok: true; value: McpServerConfig } | { ok: false; issues: string[] };

function parseServer(entry: Record<string, unknown>): Parsed {
  const [stdio, remote] = mcpServerSchema.options;
  const hasUrl = "url" in entry;
  const hasCommand = "command" in entry;
  if (!hasUrl && !hasCommand) return { ok: false, issues: [`: expected "command" (stdio) or "url" (http/sse)`] };
  if (entry.type === "stdio" && hasUrl && !hasCommand) return { ok: false, issues: [`.command: required for type "stdio"`] };
  // Pick the branch by shape so the message is about that branch, not a union dump.
  const schema = hasCommand && entry.type !== "http" && entry.type !== "sse" ? stdio : remote;
  const result = schema.safeParse(entry);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, issues: result.error.issues.map(formatIssue) };
}

/** One zod issue as `.path: what was expected`. */
export function formatIssue(issue: z.core.$ZodIssue): string {
  const at = issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("");
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((k) => `${at}.${k}: unknown key`).join("; ");
    case "invalid_type":
      return `${at}: expected ${issue.expected === "record" ? "an object" : issue.expected}`;
    case "invalid_format":
      return `${at}: expected ${issue.format === "url" ? "a URL" : `a ${issue.format}`}`;
    case "invalid_value":
      return `${at}: expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "too_small":
      return `${at}: ${issue.origin === "string" ? "must not be empty" : `must be at least ${String(issue.minimum)}`}`;
    default:
      return `${at}: ${issue.message}`;
  }
}

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `${VAR}` / `${VAR:-default}` in a string; unset variables without a default are collected. */
export function interpolate(value: string, env: NodeJS.ProcessEnv, missing?: string[]): string {
  return value.replace(VAR, (_m, name: string, fallback: string | undefined) => {
    const v = env[name];
    // As in the shell: `:-` also replaces an empty value; plain `${VAR}` keeps a set-but-empty one.
    if (fallback !== undefined) return v !== undefined && v !== "" ? v : fallback;
    if (v !== undefined) return v;
    missing?.push(name);
    return "";
  });
}

/** Expands variables in every string of a JSON value; records `path: ${VAR} is not set` per miss. */
function expandVars<T>(value: T, env: NodeJS.ProcessEnv, problems: string[], at = ""): T {
  if (typeof value === "string") {
    const missing: string[] = [];
    const out = interpolate(value, env, missing);
    for (const name of missing) problems.push(`${at.slice(1)}: environment variable ${name} is not set`);
    return out as T;
  }
  if (Array.isArray(value)) return value.map((v, i) => expandVars(v, env, problems, `${at}[${i}]`)) as T;
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = expandVars(v, env, problems, `${at}.${k}`);
    return out as T;
  }
  return value;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
