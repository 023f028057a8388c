// Node 22.1 and later keep V8's compiled code of orca's bundle between runs
// (module.enableCompileCache): a start then skips compiling the chunks it loads (bench/startup.ts).
// Node 20 has no such cache for ES modules; there this does nothing.
//
// The cache lives in the user's own runtime folder ($XDG_RUNTIME_DIR, private, emptied at logout),
// else their cache folder — not in the shared temp folder Node defaults to: compiled code read
// from a folder other users can write to would run as this user. The runtime folder comes first
// because it lies outside the home: a command in a workspace that is the home could otherwise
// rename a parent of the cache folder away and plant a new one where orca reads it.
// NODE_COMPILE_CACHE (a folder of the user's choosing) and NODE_DISABLE_COMPILE_CACHE=1 are Node's
// own switches and win over this.
//
// What is in the folder runs as the user, outside any sandbox, so no command may write it: a
// `sandbox.writable` or `additional_dirs` entry covering it is refused when the config loads, and
// inside a workspace that holds it (a home directory) the sandbox keeps it read-only — the session
// makes it first there if Node has not (src/config/code-paths.ts, src/orchestrator/create.ts).
//
// A runtime or cache folder inside a temp dir (XDG_RUNTIME_DIR=/tmp/runtime-<user>, as containers
// and WSL set it) is passed over: a sandbox with the host's network shares /tmp writable with
// commands, which could rename the cache's parent away and plant code in its place.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export function compileCacheDir(env, home) {
  return path.join(orcaCacheBase(env, home), "orca", "compile-cache");
}

/** The folder orca's cache folder goes in: the first absolute one of $XDG_RUNTIME_DIR, $XDG_CACHE_HOME not in a temp dir, else ~/.cache. */
export function orcaCacheBase(env, home) {
  const temps = [os.tmpdir(), "/tmp"].map(real);
  const usable = (p) => typeof p === "string" && path.isAbsolute(p) && !temps.some((t) => isInside(t, real(p)));
  return usable(env.XDG_RUNTIME_DIR) ? env.XDG_RUNTIME_DIR : usable(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(home, ".cache");
}

function real(p) {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return path.resolve(p);
  }
}

function isInside(dir, p) {
  const rel = path.relative(dir, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

export function enableCompileCache(nodeModule, env = process.env, home = os.homedir()) {
  if (typeof nodeModule.enableCompileCache !== "function") return undefined;
  try {
    return nodeModule.enableCompileCache(compileCacheDir(env, home));
  } catch {
    // A folder that cannot be made (a read-only home) only costs the cache.
    return undefined;
  }
}
