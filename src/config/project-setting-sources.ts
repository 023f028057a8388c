import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { projectInstructionFiles } from "./instructions.js";

export type ProjectSettingKind = "config" | "agents" | "skills" | "mcp" | "hooks" | "commands" | "instructions";

/** Where a workspace keeps the settings trust decides on (trust.ts), instruction files aside. */
export const PROJECT_SETTING_SOURCES: readonly { kind: ProjectSettingKind; name: string; folder: boolean }[] = [
  { kind: "config", name: ".orca/config.yaml", folder: false },
  { kind: "agents", name: ".orca/agents", folder: true },
  { kind: "skills", name: ".orca/skills", folder: true },
  { kind: "skills", name: ".agents/skills", folder: true },
  { kind: "mcp", name: ".mcp.json", folder: false },
  { kind: "commands", name: ".orca/commands", folder: true },
  { kind: "commands", name: ".claude/commands", folder: true },
  // Claude Code's settings count only for their hooks (with hooks.import_claude), and only when they have some.
  { kind: "hooks", name: ".claude/settings.json", folder: false },
  { kind: "hooks", name: ".claude/settings.local.json", folder: false },
];

/**
 * False only when `workspace` certainly has no project settings (trust.ts's projectSettings is
 * empty), so interactive orca will not ask about trust: no source exists at all, not even an
 * empty folder or a settings file without hooks. Reads no file and loads no config or schema,
 * so the first frame (src/cli/first-frame.ts) can ask it before the runtime loads.
 */
export function mayHaveProjectSettings(workspace: string, opts: { configFile?: string; home?: string } = {}): boolean {
  const root = path.resolve(workspace);
  const exists = (p: string): boolean => fs.lstatSync(p, { throwIfNoEntry: false }) !== undefined;
  if (PROJECT_SETTING_SOURCES.some((s) => !(s.kind === "config" && opts.configFile) && exists(path.join(root, ...s.name.split("/"))))) return true;
  return projectInstructionFiles(root, opts.home ?? os.homedir()).length > 0;
}
