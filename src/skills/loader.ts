import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { settingEntries } from "../config/setting-files.js";
import { parseSkillFile, type SkillFrontmatter } from "./frontmatter.js";
import { isDirectory, isFile } from "../util/fs.js";
import { packageSkillsSnapshot } from "../util/package-snapshot.js";

/** One skill: a folder holding a SKILL.md (Agent Skills format), plus whatever it bundles. */
export interface Skill extends SkillFrontmatter {
  /** Absolute path of the skill's folder. */
  dir: string;
  /** Absolute path of its SKILL.md. */
  file: string;
  /** Where it was found: "config", "workspace", "workspace (.agents)", "user" or "package". */
  source: string;
}

export interface SkillReport {
  /** Usable skills, in search order (the order the index lists them). */
  skills: Skill[];
  /** Files that break the format, with the rule they break. */
  skipped: { path: string; reason: string }[];
  /** Later definitions of a name already taken; the first in search order wins. */
  duplicates: { name: string; path: string; keptPath: string }[];
}

export interface SkillSearchOptions {
  workspace: string;
  /** Defaults to the user's home directory. */
  home?: string;
  /** The orca package's root (the folder holding its shipped `skills/`). */
  packageDir: string;
  /** `skills.paths` from the config: searched first. Relative paths are taken from the workspace. */
  extraPaths?: string[];
  /** False leaves out the workspace's own skill folders (a folder the user has not trusted). */
  project?: boolean;
}

export const SKILL_FILE = "SKILL.md";

interface SearchRoot {
  dir: string;
  source: string;
}

function searchRoots(opts: SkillSearchOptions): SearchRoot[] {
  const home = opts.home ?? os.homedir();
  const workspace = path.resolve(opts.workspace);
  const expand = (p: string): string =>
    p === "~" ? home : p.startsWith("~/") ? path.join(home, p.slice(2)) : path.resolve(workspace, p);
  const roots: SearchRoot[] = [
    ...(opts.extraPaths ?? []).map((p) => ({ dir: expand(p), source: "config" })),
    ...(opts.project === false
      ? []
      : [
          { dir: path.join(workspace, ".orca", "skills"), source: "workspace" },
          { dir: path.join(workspace, ".agents", "skills"), source: "workspace (.agents)" },
        ]),
    { dir: path.join(home, ".config", "orca", "skills"), source: "user" },
    { dir: path.join(path.resolve(opts.packageDir), "skills"), source: "package" },
  ];
  // The same folder reached twice (a config path naming a default one) must not report its
  // skills as duplicates of themselves.
  const seen = new Set<string>();
  return roots.filter((r) => !seen.has(r.dir) && seen.add(r.dir));
}

/** The folders searched for skills, highest precedence first. None of them needs to exist. */
export function skillSearchRoots(opts: SkillSearchOptions): string[] {
  return searchRoots(opts).map((r) => r.dir);
}

/**
 * Finds every skill under the search roots. Read-only: a missing root is simply skipped and no
 * folder is ever created.
 */
export function discoverSkills(opts: SkillSearchOptions): SkillReport {
  const report: SkillReport = { skills: [], skipped: [], duplicates: [] };
  const byName = new Map<string, Skill>();
  const known = packageSkillsSnapshot(path.resolve(opts.packageDir));
  for (const root of searchRoots(opts)) {
    for (const dir of skillFolders(root, report)) {
      const file = path.join(dir, SKILL_FILE);
      let text: string;
      try {
        text = fs.readFileSync(file, "utf8");
      } catch (err) {
        report.skipped.push({ path: file, reason: `cannot read: ${errorCode(err)}` });
        continue;
      }
      const parsed = parseSkillFile(text, path.basename(dir), known);
      if (!parsed.ok) {
        report.skipped.push({ path: file, reason: parsed.reason });
        continue;
      }
      const kept = byName.get(parsed.skill.name);
      if (kept) {
        report.duplicates.push({ name: parsed.skill.name, path: file, keptPath: kept.file });
        continue;
      }
      const skill: Skill = { ...parsed.skill, dir, file, source: root.source };
      byName.set(skill.name, skill);
      report.skills.push(skill);
    }
  }
  return report;
}

/**
 * The skill folders directly under a root, sorted by name. A configured path may also name one
 * skill folder itself.
 */
function skillFolders(root: SearchRoot, report: SkillReport): string[] {
  if (root.source === "config" && isFile(path.join(root.dir, SKILL_FILE))) return [root.dir];
  // The trust survey lists the same entries (config/setting-files.ts): hidden ones by neither.
  const entries = settingEntries(root.dir);
  if (entries.error) report.skipped.push({ path: root.dir, reason: `cannot read folder: ${entries.error}` });
  const folders: string[] = [];
  for (const name of entries.names) {
    const dir = path.join(root.dir, name);
    if (!isDirectory(dir)) continue;
    if (isFile(path.join(dir, SKILL_FILE))) {
      folders.push(dir);
      continue;
    }
    // A near miss is worth a line in `orca skills`; a folder with no skill file at all is not.
    const misnamed = listNames(dir).find((n) => n !== SKILL_FILE && n.toLowerCase() === SKILL_FILE.toLowerCase());
    if (misnamed) {
      report.skipped.push({ path: path.join(dir, misnamed), reason: `the file must be named ${SKILL_FILE}` });
    }
  }
  return folders;
}

function listNames(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function errorCode(err: unknown): string {
  if (err && typeof err === "object" && "code" in err && typeof err.code === "string") return err.code;
  return err instanceof Error ? err.message : String(err);
}
