import path from "node:path";
import { glob } from "tinyglobby";
import { TEMP_PREFIX } from "../../util/atomic-write.js";

/** Folders no search wants by default; a pattern that names one opts back in. */
const DEFAULT_IGNORED = ["node_modules", ".git"];

export function defaultIgnores(pattern: string): string[] {
  return DEFAULT_IGNORED.filter((dir) => !pattern.includes(dir)).map((dir) => `**/${dir}/**`);
}

/** Why a glob pattern cannot be used, or null. Patterns stay inside the folder they search. */
export function patternProblem(pattern: string): string | null {
  if (pattern.trim() === "") return "pattern is empty";
  if (path.isAbsolute(pattern)) return `pattern ${pattern} is absolute; give a pattern relative to path`;
  if (pattern.split(/[\\/]/).includes("..")) return `pattern ${pattern} climbs out with ..; set path instead`;
  return null;
}

/** Files under `root` matching `pattern`, relative to `root`, in no particular order. */
export function findFiles(root: string, pattern: string, signal?: AbortSignal): Promise<string[]> {
  return glob(pattern, {
    cwd: root,
    dot: true,
    onlyFiles: true,
    // A symlinked folder may lead outside the workspace, or in a circle.
    followSymbolicLinks: false,
    // orca's temporary files (a write in progress, or one a crash cut short) are never results.
    ignore: [...defaultIgnores(pattern), `**/${TEMP_PREFIX}*`],
    signal,
  });
}
