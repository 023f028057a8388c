import type { BuildOptions } from "esbuild";

/** esbuild's options for a bundle of `entryPoints` into `outdir`, as the bin is bundled. */
export declare function bundleOptions(entryPoints: BuildOptions["entryPoints"], outdir: string): BuildOptions;
