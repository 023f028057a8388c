import fs from "node:fs";

/**
 * The entries of a settings folder (agents, skills) — one list for the loaders and for the trust
 * survey, so what a folder would load is exactly what the trust prompt shows. Hidden entries (a
 * leading dot) are left out by both: a `.coordinator.md` nobody sees in `ls`, or an editor's
 * `.#x.md` lock file, never becomes an agent or a skill.
 */
export interface SettingEntries {
  /** Sorted names, hidden ones left out. */
  names: string[];
  /** Why the folder could not be read, when it exists but is unreadable (not for a missing one). */
  error?: string;
}

export function settingEntries(dir: string): SettingEntries {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? { names: [] } : { names: [], error: code ?? String(error) };
  }
  return { names: names.filter((n) => !n.startsWith(".")).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) };
}

/** The agent definition files of a folder: its visible `*.md` entries. */
export function agentFileNames(dir: string): string[] {
  return settingEntries(dir).names.filter((n) => n.endsWith(".md"));
}
