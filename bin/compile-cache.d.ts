/** Where orca keeps Node's compile cache: `<orcaCacheBase>/orca/compile-cache`. */
export declare function compileCacheDir(env: NodeJS.ProcessEnv, home: string): string;
/** The folder orca's cache folder goes in: $XDG_RUNTIME_DIR, else $XDG_CACHE_HOME (each when absolute and not in a temp dir), else ~/.cache. */
export declare function orcaCacheBase(env: NodeJS.ProcessEnv, home: string): string;
/**
 * Turns on Node's compile cache (Node 22.1+) in that folder; undefined where Node has none (Node 20)
 * or it could not be turned on, else what Node answered. With `v8`, functions are compiled eagerly
 * (--no-lazy) while the cache is orca's own, so that it holds them all. With `buildId`, the entries go in
 * a folder of that build's, and other builds' folders unused for a week are removed.
 */
export declare function enableCompileCache(
  nodeModule: { enableCompileCache?: (dir?: string) => unknown; constants?: { compileCacheStatus?: { ENABLED?: number } } },
  env?: NodeJS.ProcessEnv,
  home?: string,
  v8?: { setFlagsFromString(flag: string): void },
  buildId?: string,
): unknown;
/** This build's name (dist/bundle/build-id): the folder its compile-cache entries go in is `build-<id>`. */
export declare function readBuildId(file?: URL | string): string | undefined;
/** Removes the `build-*` folders of other builds unused for a week; marks `current` as used (at most once a day). */
export declare function pruneBuildFolders(dir: string, current: string, now?: number): void;
