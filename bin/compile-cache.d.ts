/** Where orca keeps Node's compile cache: `$XDG_CACHE_HOME/orca/compile-cache`, else `~/.cache/orca/compile-cache`. */
export declare function compileCacheDir(env: NodeJS.ProcessEnv, home: string): string;
/**
 * Turns on Node's compile cache (Node 22.1+) in that folder; undefined where Node has none (Node 20)
 * or it could not be turned on, else what Node answered.
 */
export declare function enableCompileCache(
  nodeModule: { enableCompileCache?: (dir?: string) => unknown },
  env?: NodeJS.ProcessEnv,
  home?: string,
): unknown;
