import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { glob } from "tinyglobby";
import { isInside } from "../workspace.js";

/** The patterns of `read_file(PATTERN)` entries in `permissions.deny`; other rules are not about reading. */
export function readDenyPatterns(deny: readonly string[]): string[] {
  const out: string[] = [];
  for (const rule of deny) {
    const m = /^\s*read_file\((.*)\)\s*$/s.exec(rule);
    const pattern = m?.[1]?.trim();
    if (pattern) out.push(pattern.startsWith("./") ? pattern.slice(2) : pattern);
  }
  return out;
}

const SKIPPED = ["node_modules", ".git"];

export interface Unreadable {
  files: string[];
  dirs: string[];
}

/**
 * The existing paths to hide: the workspace entries matching `patterns` (matched as the permission
 * rules match paths: workspace-relative, dot-files included) and the `absolute` paths (home dirs
 * of credentials). Read at every command start, so a `.env` created a moment ago is hidden too.
 * Symlinks are followed to what they name, since a mount lands on the target. Like the search
 * tools, the walk skips node_modules and .git unless a pattern names them: a `**` pattern would
 * otherwise read every installed package before each command.
 */
export async function resolveUnreadable(root: string, patterns: readonly string[], absolute: readonly string[]): Promise<Unreadable> {
  const candidates: string[] = absolute.map((p) => expandHome(p));
  if (patterns.length) {
    const ignore = SKIPPED.filter((dir) => !patterns.some((p) => p.includes(dir))).map((dir) => `**/${dir}`);
    const matches = await glob([...patterns], { cwd: root, dot: true, onlyFiles: false, expandDirectories: false, followSymbolicLinks: false, absolute: true, ignore });
    candidates.push(...matches.map((m) => m.replace(/\/$/, "")));
  }
  const kinds = new Map<string, "file" | "dir">();
  for (const candidate of candidates) {
    let real: string;
    let stat: fs.Stats;
    try {
      real = fs.realpathSync.native(candidate);
      stat = fs.statSync(real);
    } catch {
      continue;
    }
    // Hiding the workspace itself (or a folder holding it) would leave commands nothing to work on.
    if (isInside(real, root)) continue;
    if (stat.isDirectory()) kinds.set(real, "dir");
    else if (stat.isFile()) kinds.set(real, "file");
  }
  // Inside a hidden folder, nothing needs hiding again.
  const dirs = [...kinds].filter(([, k]) => k === "dir").map(([p]) => p);
  const covered = (p: string) => dirs.some((d) => d !== p && isInside(d, p));
  const out: Unreadable = { files: [], dirs: [] };
  for (const [p, kind] of kinds) {
    if (covered(p)) continue;
    (kind === "dir" ? out.dirs : out.files).push(p);
  }
  return out;
}

export function expandHome(p: string, home = os.homedir()): string {
  if (p === "~") return home;
  if (p.startsWith("~/")) return path.join(home, p.slice(2));
  return path.resolve(p);
}
