import { analyseShell, type ShellAnalysis } from "./analyse.js";
import { shellParserLoaded } from "./parser.js";

export type { Redirect, ShellAnalysis, SimpleCommand } from "./analyse.js";
export type { ShellWord } from "./words.js";
export type { Invocation } from "./wrappers.js";
export { basename } from "./wrappers.js";
export { loadShellParser, shellParserLoaded } from "./parser.js";

const CACHE_SIZE = 256;
const cache = new Map<string, ShellAnalysis>();

/**
 * The reading of a command line, shared by the permission check, the scheduler's hint and the
 * rule matcher (each asks for the same command several times per call). Callers must not change it.
 */
export function analyseCommand(command: string): ShellAnalysis {
  const hit = cache.get(command);
  if (hit) {
    cache.delete(command);
    cache.set(command, hit);
    return hit;
  }
  const analysis = analyseShell(command);
  // Before the grammar is loaded every reading is "uncertain": not worth keeping.
  if (!shellParserLoaded()) return analysis;
  cache.set(command, analysis);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return analysis;
}
