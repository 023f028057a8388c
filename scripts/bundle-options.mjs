// How orca's code is bundled: by scripts/bundle.mjs for the bin, and by bench/render.ts for the
// dashboard it measures, so the bench runs the code users run.
import { readFile } from "node:fs/promises";
import { builtinModules } from "node:module";

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
 * React, its reconciler and its scheduler choose their build when they load, from NODE_ENV:
 * bundled as they are, both builds ship (the development reconciler alone is ~700 KB) and the
 * dashboard's chunks are ~2.0 MB instead of ~1.27 MB. The bin runs the production build
 * (bin/orca.js sets NODE_ENV), so the bundle holds only that one: ~2 MB less RSS. The first frame
 * does not move measurably — V8 only pre-parses a module wrapper nobody calls. (Tests that import
 * src/ui directly still get React's choice.)
 */
const PRODUCTION_SWITCH = /^'use strict';\s*if \(process\.env\.NODE_ENV === 'production'\) \{\s*module\.exports = require\('(\.\/cjs\/[\w.-]+\.production\.js)'\);\s*\} else \{\s*module\.exports = require\('\.\/cjs\/[\w.-]+\.development\.js'\);\s*\}\s*$/;
const reactProductionOnly = {
  name: "react-production-only",
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/](react|react-reconciler|scheduler)[\\/][\w.-]+\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (!/process\.env\.NODE_ENV/.test(source)) return undefined;
      const production = PRODUCTION_SWITCH.exec(source)?.[1];
      if (!production) throw new Error(`react-production-only: ${args.path} no longer switches its build as expected`);
      return { contents: `module.exports = require(${JSON.stringify(production)});`, loader: "js" };
    });
  },
};

/**
 * zod's `locales` namespace re-exports its error messages in ~50 languages (~250 KB, parsed on
 * every start). orca uses zod's default, English, which zod imports on its own; the namespace
 * keeps only that one.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      if (!source.includes('export { default as en } from "./en.js";')) throw new Error(`zod-english-only: ${args.path} no longer exports en as expected`);
      return { contents: 'export { default as en } from "./en.js";', loader: "js" };
    });
  },
};

/**
 * fdir (tinyglobby's directory walker) requires picomatch when it loads, through a require of its
 * own making that esbuild cannot see: every start then read and compiled picomatch's five files
 * from node_modules (~10 ms). A plain require() is bundled: fdir gets the picomatch the bundle
 * already holds for tinyglobby.
 */
const fdirBundledPicomatch = {
  name: "fdir-bundled-picomatch",
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]fdir[\\/]dist[\\/]index\.mjs$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const patched = source.replace('__require.resolve("picomatch");\n\tpm = __require("picomatch");', 'pm = require("picomatch");');
      if (patched === source) throw new Error(`fdir-bundled-picomatch: ${args.path} no longer requires picomatch as expected`);
      return { contents: patched, loader: "js" };
    });
  },
};

/**
 * A Node built-in imported as an ES module is linked through a facade that reads every export of
 * the built-in when the bundle loads — and reading some of them loads more of Node: `node:http`'s
 * exports load undici, `node:fs`'s its streams and `fs/promises`, `node:util`'s the encoding and
 * worker modules (~50–100 ms of a start on a busy machine before any line of orca ran). Required
 * instead (the bundle's `require`, see the banner), a built-in is just the module object: what
 * orca uses loads when it is first used. Node 24 imports the bundle in ~20 % less CPU; Node 20,
 * whose facades load less, ~3 % more (esbuild wraps each required module once per importing
 * file) — Node 24 first. Requiring only the built-ins with getter exports measured no better. Only import statements are turned; the require() left in
 * the module this makes is what esbuild keeps as Node's own.
 */
const BUILTINS = new Set(builtinModules.flatMap((name) => (name.startsWith("node:") ? [name] : [name, `node:${name}`])));
const builtinsRequired = {
  name: "builtins-required",
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z0-9_/]+$/ }, (args) => {
      if (args.kind !== "import-statement" || !BUILTINS.has(args.path)) return undefined;
      return { path: args.path, namespace: "builtin-required" };
    });
    b.onLoad({ filter: /.*/, namespace: "builtin-required" }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: "js" }));
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
    plugins: [builtinsRequired, fdirBundledPicomatch, noEsprima, reactProductionOnly, zodEnglishOnly],
    // Bundled CommonJS dependencies call require(); give ESM chunks one.
    banner: { js: "import { createRequire as __orcaRequire } from 'node:module'; const require = __orcaRequire(import.meta.url);" },
    logLevel: "error",
  };
}
