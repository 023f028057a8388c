import path from "node:path";
import { readSettingFile } from "../config/safe-read.js";
import { ConfigError } from "../util/errors.js";
import { HOOK_EVENTS, isHookEvent, type HookEventName, type HookHandlerConfig, type HookMatcherGroupConfig } from "../config/hooks.js";
import type { Config } from "../config/schema.js";
import { compileMatcher, type Matcher } from "./matcher.js";

/**
 * Every hook orca will run, in one flat list: those of the loaded config.yaml first, then — with
 * `hooks.import_claude: true` — those of Claude Code's settings files, user, project and local.
 * A workspace's own files (its .orca/config.yaml, its .claude/settings*.json) count only in a
 * folder the user trusted: the config loader already leaves an untrusted .orca/config.yaml out,
 * and the .claude files are read here only when `trustProject` is true.
 */

export type HookSourceKind = "config" | "claude-user" | "claude-project" | "claude-local";

export interface HookSource {
  kind: HookSourceKind;
  /** The file, absolute. */
  path: string;
}

export interface ConfiguredHook {
  event: HookEventName;
  /** As written; undefined when the group had none. */
  matcher?: string;
  match: Matcher;
  command: string;
  args?: string[];
  /** The handler's own timeout, in ms; undefined means the event's default. */
  timeoutMs?: number;
  /** A permission rule in Claude Code's spelling; tool events only. */
  if?: string;
  statusMessage?: string;
  source: HookSource;
  /**
   * Whose code it is: the user's own (user config, --config, ~/.claude/settings.json) runs as the
   * user, as Claude Code runs it; a workspace's (its .orca/config.yaml, .claude/settings*.json,
   * any file inside it) runs in the command sandbox when `sandbox.hooks` is on.
   */
  origin?: "user" | "workspace";
  /** Handlers with the same key run once per occurrence, however many groups list them. */
  key: string;
}

/** off: hooks.import_claude is false; disabled: by disableAllHooks; not trusted: a project file of an untrusted folder. */
export type ClaudeFileStatus = "imported" | "off" | "disabled" | "not trusted" | "invalid";

export interface ClaudeSettingsFile {
  kind: Exclude<HookSourceKind, "config">;
  path: string;
  status: ClaudeFileStatus;
  /** How many hooks it contributed (imported) or holds (otherwise, when readable). */
  hooks: number;
}

export interface LoadedHooks {
  hooks: ConfiguredHook[];
  /** One line each: handlers skipped and why. */
  warnings: string[];
  importClaude: boolean;
  /** The Claude Code settings files that exist, with what became of them. */
  claudeFiles: ClaudeSettingsFile[];
}

export interface LoadHooksOptions {
  config: Config;
  configPath: string | null;
  workspace: string;
  home: string;
  /** Whether the workspace's own .claude/settings*.json may be read. */
  trustProject: boolean;
}

export function loadHooks(opts: LoadHooksOptions): LoadedHooks {
  const warnings: string[] = [];
  const hooks = fromOrcaConfig(opts.config, opts.configPath);
  const importClaude = opts.config.hooks.import_claude;
  const claudeFiles: ClaudeSettingsFile[] = [];
  const candidates: { kind: ClaudeSettingsFile["kind"]; path: string; project: boolean }[] = [
    { kind: "claude-user", path: path.join(opts.home, ".claude", "settings.json"), project: false },
    { kind: "claude-project", path: path.join(opts.workspace, ".claude", "settings.json"), project: true },
    { kind: "claude-local", path: path.join(opts.workspace, ".claude", "settings.local.json"), project: true },
  ];
  const read = candidates.flatMap((c) => {
    const settings = readClaudeSettings(c.path);
    return settings === null ? [] : [{ ...c, settings }];
  });
  // disableAllHooks follows Claude Code's precedence: local over project over user.
  // An untrusted folder's files do not count, for this as for anything else.
  const deciding = read.filter((r) => !r.project || opts.trustProject).reverse();
  const disabledBy = deciding.find((r) => r.settings.ok && typeof r.settings.data.disableAllHooks === "boolean");
  const disabled = disabledBy?.settings.ok === true && disabledBy.settings.data.disableAllHooks === true;

  for (const file of read) {
    if (!file.settings.ok) {
      claudeFiles.push({ kind: file.kind, path: file.path, status: "invalid", hooks: 0 });
      if (importClaude && (!file.project || opts.trustProject)) warnings.push(`${file.path}: ${file.settings.error}; its hooks were not imported`);
      continue;
    }
    const parsed = fromClaudeSettings(file.settings.data.hooks, { kind: file.kind, path: file.path });
    const status: ClaudeFileStatus = !importClaude ? "off" : file.project && !opts.trustProject ? "not trusted" : disabled ? "disabled" : "imported";
    claudeFiles.push({ kind: file.kind, path: file.path, status, hooks: parsed.hooks.length });
    if (status !== "imported") continue;
    hooks.push(...parsed.hooks);
    warnings.push(...parsed.warnings);
  }
  for (const hook of hooks) hook.origin = originOf(hook.source, opts.workspace);
  return { hooks, warnings, importClaude, claudeFiles };
}

function originOf(source: HookSource, workspace: string): "user" | "workspace" {
  if (source.kind === "claude-project" || source.kind === "claude-local") return "workspace";
  if (source.kind === "claude-user") return "user";
  // A config file inside the workspace is the workspace's, whoever named it: its agents can write there.
  const rel = path.relative(path.resolve(workspace), path.resolve(source.path));
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel)) ? "workspace" : "user";
}

/** orca's own hooks; a matcher that is no valid regular expression stops orca, as any config error. */
function fromOrcaConfig(config: Config, configPath: string | null): ConfiguredHook[] {
  const source: HookSource = { kind: "config", path: configPath ?? "config.yaml" };
  const hooks: ConfiguredHook[] = [];
  for (const event of HOOK_EVENTS) {
    for (const [index, group] of (config.hooks[event] ?? []).entries()) {
      const compiled = compileMatcher(group.matcher);
      if (!compiled.ok) throw new ConfigError(`${displayPath(source.path)}: hooks.${event}.${index}.matcher: ${compiled.error}`);
      for (const handler of group.hooks) hooks.push(configured(event, group, compiled.test, handler, source));
    }
  }
  return hooks;
}

type Settings = { ok: true; data: Record<string, unknown> } | { ok: false; error: string };

function readClaudeSettings(file: string): Settings | null {
  // Read even for a folder not trusted yet (disableAllHooks, the status line): never a FIFO or a huge file.
  const read = readSettingFile(file);
  if (!read.ok) return read.reason === "not found" ? null : { ok: false, error: `cannot read: ${read.reason}` };
  let data: unknown;
  try {
    data = JSON.parse(read.text);
  } catch {
    return { ok: false, error: "invalid JSON" };
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) return { ok: false, error: "expected a JSON object" };
  return { ok: true, data: data as Record<string, unknown> };
}

/**
 * A Claude Code `hooks` object, read leniently: what orca cannot run (other events, http/prompt/
 * agent hooks, PowerShell) is skipped with a line saying so, and the rest still runs.
 */
export function fromClaudeSettings(raw: unknown, source: HookSource): { hooks: ConfiguredHook[]; warnings: string[] } {
  const hooks: ConfiguredHook[] = [];
  const warnings: string[] = [];
  if (raw === undefined) return { hooks, warnings };
  const at = (where: string) => `${source.path}: hooks${where}`;
  if (!isRecord(raw)) return { hooks, warnings: [`${at("")}: expected an object; skipped`] };
  for (const [event, groups] of Object.entries(raw)) {
    if (!isHookEvent(event)) {
      warnings.push(`${at(`.${event}`)}: orca has no ${event} event; skipped`);
      continue;
    }
    if (!Array.isArray(groups)) {
      warnings.push(`${at(`.${event}`)}: expected a list of matcher groups; skipped`);
      continue;
    }
    for (const [g, group] of groups.entries()) {
      const where = `.${event}[${g}]`;
      if (!isRecord(group) || !Array.isArray(group.hooks)) {
        warnings.push(`${at(where)}: expected {"matcher": …, "hooks": […]}; skipped`);
        continue;
      }
      const matcher = group.matcher;
      if (matcher !== undefined && typeof matcher !== "string") {
        warnings.push(`${at(where)}.matcher: expected a string; skipped`);
        continue;
      }
      const compiled = compileMatcher(matcher);
      if (!compiled.ok) {
        warnings.push(`${at(where)}.matcher: ${compiled.error}; skipped`);
        continue;
      }
      for (const [h, handler] of group.hooks.entries()) {
        const checked = claudeHandler(handler);
        if (typeof checked === "string") warnings.push(`${at(`${where}.hooks[${h}]`)}: ${checked}; skipped`);
        else {
          if (checked.note) warnings.push(`${at(`${where}.hooks[${h}]`)}: ${checked.note}`);
          hooks.push(configured(event, { matcher, hooks: [] }, compiled.test, checked.handler, source));
        }
      }
    }
  }
  return { hooks, warnings };
}

/** One handler of a settings.json, or why orca cannot run it. */
function claudeHandler(raw: unknown): { handler: HookHandlerConfig; note?: string } | string {
  if (!isRecord(raw)) return "expected an object";
  if (raw.type !== "command") return `type ${JSON.stringify(raw.type)} is not supported by orca (command hooks only)`;
  if (typeof raw.command !== "string" || raw.command === "") return "command: expected a non-empty string";
  if (raw.args !== undefined && !(Array.isArray(raw.args) && raw.args.every((a) => typeof a === "string"))) return "args: expected a list of strings";
  if (raw.timeout !== undefined && !(typeof raw.timeout === "number" && raw.timeout > 0)) return "timeout: expected a positive number of seconds";
  if (raw.if !== undefined && typeof raw.if !== "string") return "if: expected a permission rule";
  if (raw.shell !== undefined && raw.shell !== "bash") return `shell ${JSON.stringify(raw.shell)} is not supported by orca (bash only)`;
  const handler: HookHandlerConfig = {
    type: "command",
    command: raw.command,
    args: raw.args as string[] | undefined,
    timeout: raw.timeout as number | undefined,
    if: raw.if as string | undefined,
    statusMessage: typeof raw.statusMessage === "string" ? raw.statusMessage : undefined,
  };
  const note = raw.async === true || raw.asyncRewake === true ? "async hooks run in the foreground in orca (they are waited for)" : undefined;
  return { handler, note };
}

function configured(event: HookEventName, group: HookMatcherGroupConfig, match: Matcher, handler: HookHandlerConfig, source: HookSource): ConfiguredHook {
  return {
    event,
    matcher: group.matcher,
    match,
    command: handler.command,
    args: handler.args,
    timeoutMs: handler.timeout === undefined ? undefined : Math.round(handler.timeout * 1000),
    if: handler.if,
    statusMessage: handler.statusMessage,
    source,
    key: JSON.stringify([handler.command, handler.args ?? null]),
  };
}

/** How a hook is shown: its command, with its args when it has any. */
export function hookCommandLine(hook: Pick<ConfiguredHook, "command" | "args">): string {
  return hook.args?.length ? [hook.command, ...hook.args].join(" ") : hook.command;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return Boolean(value) && typeof value === "object" && !Array.isArray(value);
}

function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith("..") ? rel : file;
}
