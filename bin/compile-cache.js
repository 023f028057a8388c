// Node 22.1 and later keep V8's compiled code of orca's bundle between runs
// (module.enableCompileCache): a start then skips compiling the chunks it loads (bench/startup.ts).
// Node 20 has no such cache for ES modules; there this does nothing.
//
// The cache lives in the user's own runtime folder ($XDG_RUNTIME_DIR, private, emptied at logout),
// else their cache folder — not in the shared temp folder Node defaults to: compiled code read
// from a folder other users can write to would run as this user. The runtime folder comes first
// because it lies outside the home: in a workspace that is the home, the cache folder is safe only
// because the sandbox pins every folder above it too (a command could otherwise rename ~/.cache
// away and plant a new one where orca reads it; src/tools/sandbox/protected.ts).
// NODE_COMPILE_CACHE (a folder of the user's choosing) and NODE_DISABLE_COMPILE_CACHE=1 are Node's
// own switches and win over this.
//
// What is in the folder runs as the user, outside any sandbox, so no command may write it: a
// `sandbox.writable` or `additional_dirs` entry covering it is refused when the config loads, and
// inside a workspace that holds it (a home directory) the sandbox keeps it read-only — the session
// makes it first there if Node has not (src/config/code-paths.ts, src/orchestrator/create.ts).
//
// With the cache, V8 compiles each function eagerly (--no-lazy), so that the cache holds them all.
// Node writes a module's cache when it first compiles it, before it runs: with V8's lazy default
// that is the top level alone, and every function a run calls was compiled again in every run, on
// its first call — ~40 % of a headless run's JavaScript between the last response and exit (the
// loop's end, the change set, the close: 1.3 of 3.1 ms). Eager, a warm run reads them from the
// cache instead (`orca -p hi` on Node 24: exit 0.7–3.9 ms sooner, ~4 ms less CPU; RSS +4 MB, +7 MB
// at 64 agents; docs/benchmarks.md). The cost is the cache's first run (a new orca or Node):
// ~40 ms more CPU, once. Where orca's own cache is not on, the flag is taken back before the
// bundle loads: eager compiling without a cache would pay that in every run.
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

// Node names each entry by its file's path, and each build's chunks have names of their own (their
// content's hash): unpruned, every build (an upgrade, a checkout's `npm run build`) left its entries
// for good — ~2.3 MB a build, compiled eagerly, in a runtime folder that is memory. Each build's go
// in a folder of their own (its name written at build time, dist/bundle/build-id), and a start
// removes the folders of other builds unused for a week: two installs run by turns keep theirs.
const UNUSED_FOR_MS = 7 * 24 * 3600 * 1000;
const TOUCH_AFTER_MS = 24 * 3600 * 1000;
const BUILD_FOLDER = /^build-[0-9a-f]{16}$/;

/** This build's name (dist/bundle/build-id), or undefined for a build from before it. */
export function readBuildId(file = new URL("../dist/bundle/build-id", import.meta.url)) {
  try {
    const id = fs.readFileSync(file, "latin1");
    return /^[0-9a-f]{16}$/.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Removes other builds' folders unused for a week; marks this build's as used (at most once a day). */
export function pruneBuildFolders(dir, current, now = Date.now()) {
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!BUILD_FOLDER.test(name)) continue;
    const folder = path.join(dir, name);
    try {
      const st = fs.lstatSync(folder);
      if (name === current) {
        if (now - st.mtimeMs > TOUCH_AFTER_MS) fs.utimesSync(folder, new Date(now), new Date(now));
      } else if (st.isDirectory() && now - st.mtimeMs > UNUSED_FOR_MS) {
        fs.rmSync(folder, { recursive: true, force: true });
      }
    } catch {
      // Another start removed it, or it cannot be: it costs room, never a run.
    }
  }
}

export function enableCompileCache(nodeModule, env = process.env, home = os.homedir(), v8 = undefined, buildId = undefined) {
  if (typeof nodeModule.enableCompileCache !== "function") return undefined;
  const root = compileCacheDir(env, home);
  const dir = buildId ? path.join(root, `build-${buildId}`) : root;
  // Before the cache is turned on: the flags are part of its folder's name and of each entry's check.
  // Not for a folder orca cannot write (Node still answers "enabled" for one that exists): nothing
  // compiled would be kept, and eager compiling would cost the whole bundle in every run.
  const eager = v8 !== undefined && writableOrAbsent(dir);
  if (eager) v8.setFlagsFromString("--no-lazy");
  let result;
  try {
    result = nodeModule.enableCompileCache(dir);
  } catch {
    // A folder that cannot be made (a read-only home) only costs the cache.
    result = undefined;
  }
  // Without a cache of orca's own (off, failed, or one Node turned on at start under other flags),
  // eager compiling would compile the whole bundle in every run: back to V8's default.
  const enabled = result?.status === nodeModule.constants?.compileCacheStatus?.ENABLED;
  if (eager && !enabled) v8.setFlagsFromString("--lazy");
  if (enabled && buildId) pruneBuildFolders(root, `build-${buildId}`);
  return result;
}

function writableOrAbsent(dir) {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch (e) {
    return e?.code === "ENOENT";
  }
}
