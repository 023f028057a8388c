import fs from "node:fs";
import path from "node:path";
import { SKILL_FILE } from "./loader.js";

export interface BundledFiles {
  /** Paths relative to the skill folder, `/`-separated, sorted folder by folder. */
  files: string[];
  /** How many more files there are beyond the cap (counted up to a hard limit). */
  more: number;
}

const IGNORED_DIRS = new Set(["node_modules", "__pycache__"]);
/** Counting stops here, so a skill folder that holds a whole tree cannot stall a tool call. */
const COUNT_LIMIT = 10_000;

/**
 * The files a skill bundles (scripts/, references/, assets/ and any others), without SKILL.md
 * itself. Hidden entries and dependency folders are left out; symlinked folders are not followed.
 */
export function listSkillFiles(dir: string, max = 100): BundledFiles {
  const files: string[] = [];
  let total = 0;
  const walk = (abs: string, rel: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // Files of a folder before its subfolders, so a capped list shows the top level first.
    for (const entry of entries) {
      if (total >= COUNT_LIMIT) return;
      if (entry.name.startsWith(".") || entry.isDirectory()) continue;
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (!rel && entry.name === SKILL_FILE) continue;
      total++;
      if (files.length < max) files.push(relPath);
    }
    for (const entry of entries) {
      if (total >= COUNT_LIMIT) return;
      if (entry.name.startsWith(".") || !entry.isDirectory() || IGNORED_DIRS.has(entry.name)) continue;
      walk(path.join(abs, entry.name), rel ? `${rel}/${entry.name}` : entry.name);
    }
  };
  walk(dir, "");
  return { files, more: total - files.length };
}
