import path from "node:path";
import { ConfigError } from "../util/errors.js";
import { orcaCacheBase } from "../../bin/compile-cache.js";

/**
 * The places orca loads code or settings from, outside any workspace: Node's compile cache of
 * orca's bundle (bin/compile-cache.js), the sandbox probe's kept answer, the user's config, agents, skills and hooks, the data dir
 * (the trust store) and the package itself. What a sandboxed command could write there would run
 * as the user on a later start, outside any sandbox — so no writable area may cover one.
 */
export interface CodePath {
  path: string;
  what: string;
}

/** orca's cache folder: the user's runtime folder, else their cache folder, neither in a temp dir (why: bin/compile-cache.js, whose rule it is). */
function orcaCacheDir(env: NodeJS.ProcessEnv, home: string): string {
  return path.join(orcaCacheBase(env, home), "orca");
}

/** bin/compile-cache.js's folder, computed the same way (a unit test holds the two equal). */
export function compileCacheDir(env: NodeJS.ProcessEnv, home: string): string {
  return path.join(orcaCacheDir(env, home), "compile-cache");
}

/** Where the sandbox probe's answer is kept (src/tools/sandbox/probe-cache.ts). */
export function sandboxProbeFile(env: NodeJS.ProcessEnv, home: string): string {
  return path.join(orcaCacheDir(env, home), "sandbox", "probe.json");
}

export function codePaths(opts: { env: NodeJS.ProcessEnv; home: string; dataDir: string; packageDir: string }): CodePath[] {
  return [
    { path: compileCacheDir(opts.env, opts.home), what: "orca's compile cache (code orca runs)" },
    { path: path.dirname(sandboxProbeFile(opts.env, opts.home)), what: "orca's sandbox probe cache (how commands are confined)" },
    { path: path.join(opts.home, ".config", "orca"), what: "your orca config, agents, skills and hooks" },
    { path: opts.dataDir, what: "orca's data dir (the trust store)" },
    { path: opts.packageDir, what: "orca's own code" },
  ];
}

function covers(dir: string, target: string): boolean {
  const rel = path.relative(dir, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * Refuses a writable area (`sandbox.writable`, `permissions.additional_dirs`) that covers one of
 * the code paths, with one line saying which and why. Relative entries are taken from the workspace.
 */
export function checkWritableAreas(entries: { key: string; values: readonly string[] }[], workspace: string, home: string, paths: readonly CodePath[]): void {
  for (const { key, values } of entries) {
    for (const value of values) {
      const expanded = value === "~" ? home : value.startsWith("~/") ? path.join(home, value.slice(2)) : value;
      const dir = path.resolve(workspace, expanded);
      const hit = paths.find((p) => covers(dir, p.path));
      if (hit) throw new ConfigError(`${key}: "${value}" covers ${hit.what} (${hit.path}): a command could plant what orca later runs as you; name a folder beside it instead`);
    }
  }
}
