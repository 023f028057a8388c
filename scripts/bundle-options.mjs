// How orca's code is bundled: by scripts/bundle.mjs for the bin, and by bench/render.ts for the
// dashboard it measures, so the bench runs the code users run.
import { readFile } from "node:fs/promises";

/**
 * js-yaml (through gray-matter) requires esprima when it loads, for its `!!js/function` type —
 * 400 KB of parser compiled on every start. orca parses front matter with the safe schema only,
 * which has no JavaScript types, so the bundle leaves esprima out: the type then never resolves.
 */
const noEsprima = {
  name: "no-esprima",
  setup(b) {
    b.onLoad({ filter: /js-yaml[\\/]lib[\\/]js-yaml[\\/]type[\\/]js[\\/]function\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const patched = source.replace("esprima = _require('esprima');", "esprima = undefined;");
      if (patched === source) throw new Error(`no-esprima: ${args.path} no longer requires esprima as expected`);
      return { contents: patched, loader: "js" };
    });
  },
};

/**
 * esbuild's options for a bundle of `entryPoints` into `outdir`: ESM chunks for Node 20; the MCP
 * SDK stays external (loaded only when a server is configured) and so does react-devtools-core
 * (Ink's devtools chunk, which imports it, loads only when asked for).
 */
export function bundleOptions(entryPoints, outdir) {
  return {
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: ["@modelcontextprotocol/sdk", "react-devtools-core"],
    plugins: [noEsprima],
    // Bundled CommonJS dependencies call require(); give ESM chunks one.
    banner: { js: "import { createRequire as __orcaRequire } from 'node:module'; const require = __orcaRequire(import.meta.url);" },
    logLevel: "error",
  };
}
