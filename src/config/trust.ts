import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeFileAtomicSync } from "../util/atomic-write.js";
import { ConfigError } from "../util/errors.js";
import { definesHooks } from "./hooks.js";
import { agentFileNames, settingEntries } from "./setting-files.js";
import { dataDir, loadConfig, type LoadConfigOptions } from "./load.js";
import { isFile } from "../util/fs.js";
import { projectInstructionFiles } from "./instructions.js";
import { readSettingFile } from "./safe-read.js";
import { PROJECT_SETTING_SOURCES, type ProjectSettingKind } from "./project-setting-sources.js";

export type { ProjectSettingKind };

/**
 * Workspace trust. A cloned repository can ship settings that act without asking: a config with
 * `permissions.mode: bypass`, a .mcp.json whose commands start at once, skills whose
 * `allowed-tools` pre-approve bash. Interactive orca loads them only from a folder the user
 * trusted; the folders they trusted are kept in `<data_dir>/trusted-workspaces.json`.
 */

export const TRUST_FILE = "trusted-workspaces.json";

/** A project-level source found in a workspace. */
export interface ProjectSetting {
  kind: ProjectSettingKind;
  /** Relative to the workspace, as the user knows it: ".orca/config.yaml". */
  name: string;
  path: string;
}

/**
 * The project-level sources `workspace` holds. An empty folder loads nothing, so it is not
 * listed; nor is .orca/config.yaml when `--config` names another file (it would not be read).
 * Instruction files (AGENTS.md, CLAUDE.md) count too, up to instructionBound(): they steer
 * every agent before the user says a word, as much as a config does.
 */
export function projectSettings(workspace: string, opts: { configFile?: string; home?: string } = {}): ProjectSetting[] {
  const root = path.resolve(workspace);
  const settings = PROJECT_SETTING_SOURCES.filter((s) => !(s.kind === "config" && opts.configFile))
    .map((s) => ({ kind: s.kind, name: s.name, path: path.join(root, ...s.name.split("/")), folder: s.folder }))
    .filter((s) => (s.folder ? (s.kind === "agents" ? agentFileNames(s.path) : listNames(s.path)).length > 0 : isFile(s.path) && (s.kind !== "hooks" || claudeSettingsHaveHooks(s.path))))
    .map(({ kind, name, path: p }): ProjectSetting => ({ kind, name, path: p }));
  const real = fs.realpathSync(root);
  const instructions = projectInstructionFiles(root, opts.home ?? os.homedir()).map((p): ProjectSetting => ({ kind: "instructions", name: path.relative(real, p), path: p }));
  return [...settings, ...instructions];
}

/** The folders the user trusted; a trusted folder covers everything under it. */
export class TrustStore {
  readonly file: string;

  constructor(dataDirectory: string) {
    this.file = path.join(dataDirectory, TRUST_FILE);
  }

  list(): string[] {
    let text: string;
    try {
      text = fs.readFileSync(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw new ConfigError(`${this.file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new ConfigError(`${this.file}: invalid JSON; fix or delete it`);
    }
    const trusted: unknown = data && typeof data === "object" ? (data as { trusted?: unknown }).trusted : undefined;
    if (!Array.isArray(trusted) || !trusted.every((p): p is string => typeof p === "string")) {
      throw new ConfigError(`${this.file}: expected {"trusted": ["/absolute/path", …]}`);
    }
    return trusted;
  }

  isTrusted(workspace: string): boolean {
    const target = canonical(workspace);
    return this.list().some((folder) => covers(canonical(folder), target));
  }

  /** Remembers `workspace` as trusted; the file and its folder are created here and only here. */
  trust(workspace: string): void {
    const target = canonical(workspace);
    const trusted = this.list();
    if (trusted.some((folder) => covers(canonical(folder), target))) return;
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    // Written whole, synced and renamed into place: a crash never leaves half a file that locks the user out.
    writeFileAtomicSync(this.file, `${JSON.stringify({ trusted: [...trusted, target] }, null, 2)}\n`, { mode: 0o600 });
  }
}

/**
 * The trust store for a run. Its data_dir is resolved without the workspace's own config: a
 * folder must not be able to point orca at a trust file of its choosing.
 */
export function trustStoreFor(opts: Omit<LoadConfigOptions, "overrides" | "project">): TrustStore {
  const { config } = loadConfig({ ...opts, project: false });
  return new TrustStore(dataDir(config, opts.home));
}

function covers(folder: string, target: string): boolean {
  if (folder === target) return true;
  const prefix = folder.endsWith(path.sep) ? folder : folder + path.sep;
  return target.startsWith(prefix);
}

/** Symlinks resolved, so a folder reached through a link is the folder that was trusted. */
function canonical(p: string): string {
  const resolved = path.resolve(p);
  try {
    return fs.realpathSync(resolved);
  } catch {
    return resolved;
  }
}

/** Entry names, hidden ones left out — the loaders' own list (setting-files.ts); none when `dir` is no folder. */
export function listNames(dir: string): string[] {
  return settingEntries(dir).names;
}

/** Read before trust, so by the safe reader: a FIFO, a device or a huge file counts as none, as it does for the hooks loader. */
function claudeSettingsHaveHooks(file: string): boolean {
  const read = readSettingFile(file);
  if (!read.ok) return false;
  try {
    const data: unknown = JSON.parse(read.text);
    return typeof data === "object" && data !== null && definesHooks((data as Record<string, unknown>).hooks);
  } catch {
    return false;
  }
}
