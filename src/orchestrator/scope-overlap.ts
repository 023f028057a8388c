import fs from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { findFiles, patternProblem } from "../tools/builtin/walk.js";

/** At most this many files are named: enough to see where two tasks meet. */
export const MAX_OVERLAP_FILES = 20;

/**
 * Where two tasks' scopes meet. Whether two globs can match one path is not decidable in general
 * without enumerating paths, so this asks what can be checked soundly:
 * - a file of the workspace that both scopes match (the overlap that matters today);
 * - a literal path of one scope (a file that may not exist yet) that the other scope matches;
 * - the same glob in both (however few files it matches now).
 * Two patterns that could only meet on files that do not exist yet (`src/**\/*.ts` and
 * `src/new/*.ts` with no src/new) are not reported. A folder (`src`, `src/`) means everything in it.
 */
export async function scopeOverlap(root: string, a: readonly string[], b: readonly string[], signal?: AbortSignal): Promise<string[]> {
  // The board refuses such scopes; one from elsewhere (an edited log) still walks only the workspace.
  const inside = (scope: readonly string[]) => scope.filter((g) => patternProblem(g) === null).map((g) => asGlob(root, g));
  const left = inside(a);
  const right = inside(b);
  if (!left.length || !right.length) return [];
  const found = new Set<string>();
  const matchesRight = picomatch(right, { dot: true });
  const matchesLeft = picomatch(left, { dot: true });
  for (const g of left) if (right.includes(g)) found.add(g);
  for (const g of left) if (isLiteral(g) && matchesRight(g)) found.add(g);
  for (const g of right) if (isLiteral(g) && matchesLeft(g)) found.add(g);
  // The side with fewer globs is listed; the other only matched, so one big scope is walked once.
  const [walk, match] = left.length <= right.length ? [left, matchesRight] : [right, matchesLeft];
  for (const g of walk) {
    if (found.size >= MAX_OVERLAP_FILES) break;
    if (isLiteral(g)) continue;
    const files = await findFiles(root, g, signal).catch(() => [] as string[]);
    for (const f of files.sort()) {
      if (found.size >= MAX_OVERLAP_FILES) break;
      if (match(f)) found.add(f);
    }
  }
  return [...found].sort().slice(0, MAX_OVERLAP_FILES);
}

function isLiteral(glob: string): boolean {
  return !picomatch.scan(glob).isGlob;
}

/** A scope entry as a glob: `./` dropped, a folder made into everything below it. */
function asGlob(root: string, entry: string): string {
  const clean = entry.trim().replace(/^\.\//, "").replace(/\\/g, "/");
  if (clean.endsWith("/")) return `${clean}**`;
  if (isLiteral(clean)) {
    try {
      if (fs.statSync(path.join(root, clean)).isDirectory()) return clean === "." || clean === "" ? "**" : `${clean}/**`;
    } catch {
      // Not there (yet): a file path.
    }
  }
  return clean;
}
