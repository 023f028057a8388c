/** Where the headless bundle's compiled code is kept: `<compileCacheDir>/orca-headless.v8`. */
export declare function headlessCacheFile(env?: NodeJS.ProcessEnv, home?: string): string;
/**
 * On a Node without module.enableCompileCache, for a `-p` run: the headless bundle's `main`, whether
 * V8 took the kept compiled code, and `keep` (call after main returns); else undefined.
 */
export declare function loadHeadlessBundle(
  argv: string[],
  nodeModule: { enableCompileCache?: unknown },
  env?: NodeJS.ProcessEnv,
  home?: string,
): { main: (argv: string[]) => Promise<number>; taken: boolean; keep: () => void } | undefined;
