// How orca's code is bundled: by scripts/bundle.mjs for the bin, and by bench/render.ts for the
// dashboard it measures, so the bench runs the code users run.
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { builtinModules, createRequire } from "node:module";
import { fileURLToPath } from "node:url";

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
 * from node_modules (~10 ms). An import is bundled: fdir gets the picomatch the bundle holds for
 * tinyglobby and orca (a lazy package, below).
 */
const fdirBundledPicomatch = {
  name: "fdir-bundled-picomatch",
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]fdir[\\/]dist[\\/]index\.mjs$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const replaced = source.replace('__require.resolve("picomatch");\n\tpm = __require("picomatch");', "pm = __orcaPicomatch;");
      const patched = replaced === source ? source : `import __orcaPicomatch from "picomatch";\n${replaced}`;
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
 *
 * The stand-ins all land in one chunk: each requires a hub module that names every stand-in (in a
 * function nothing calls), so esbuild sees them reachable from the same entry points. Placed by who
 * imports them, as esbuild places modules, they made ~460-byte chunks of their own, nine among the
 * 26 chunks `orca -p` loaded before its first request, each resolved, read, looked up in the compile
 * cache and linked. A stand-in per importing file instead (tried) made 175 of them, each requiring
 * its built-in through Node's require: fewer chunks, more work (docs/benchmarks.md).
 */
/**
 * Built-ins orca needs only later in a run while Node's fetch does not load them on its own, so that
 * a plain SDK client never pays for them: `node:child_process` (~5 ms of a start; nothing spawns
 * before the first request when the sandbox probe's answer is kept). Their module object is a
 * stand-in whose exports — the names the built-in has in the Node that builds — load it when
 * first read (tests/integration/startup-modules.test.ts: which built-ins a run loads first).
 */
const LAZY_BUILTINS = new Set(["child_process"]);
function lazyBuiltin(spec) {
  const names = Object.getOwnPropertyNames(createRequire(import.meta.url)(spec)).filter((n) => n !== "default");
  return [
    "let real;",
    `const load = () => (real ??= require(${JSON.stringify(spec)}));`,
    `module.exports = Object.defineProperties({}, Object.fromEntries(${JSON.stringify(names)}.map((name) => [name, { get: () => load()[name], enumerable: true }])));`,
  ].join("\n");
}
const BUILTINS = new Set(builtinModules.flatMap((name) => (name.startsWith("node:") ? [name] : [name, `node:${name}`])));
const withPrefix = (spec) => spec.replace(/^(node:)?/, "node:");
const builtinsRequired = {
  name: "builtins-required",
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z0-9_/]+$/ }, (args) => {
      if (args.kind !== "import-statement" || !BUILTINS.has(args.path)) return undefined;
      return { path: withPrefix(args.path), namespace: "builtin-required" };
    });
    b.onResolve({ filter: /^orca-builtin:/ }, (args) => ({ path: args.path.slice("orca-builtin:".length), namespace: "builtin-required" }));
    b.onResolve({ filter: /^orca-builtins-hub$/ }, () => ({ path: "hub", namespace: "builtins-hub" }));
    b.onLoad({ filter: /.*/, namespace: "builtins-hub" }, () => ({
      contents: `module.exports = () => [${[...new Set([...BUILTINS].map(withPrefix))].map((spec) => `require("orca-builtin:${spec}")`).join(", ")}];`,
      loader: "js",
    }));
    b.onLoad({ filter: /.*/, namespace: "builtin-required" }, (args) => ({
      contents: `require("orca-builtins-hub");\n${LAZY_BUILTINS.has(args.path.replace(/^node:/, "")) ? lazyBuiltin(args.path) : `module.exports = require(${JSON.stringify(args.path)});`}`,
      loader: "js",
    }));
  },
};

/**
 * The YAML parsers — `yaml` (~200 KB) and gray-matter with js-yaml (~160 KB) — are needed only
 * when a file orca has not seen at build time is read: a config, agent or SKILL.md of the user's or
 * the project's (the package's own are parsed at build time, src/util/package-snapshot.ts). Bundled
 * into the core chunk, every start compiled and ran them before its first request. Each is built
 * instead into a file of its own beside the chunks (`lazy-<name>.cjs`), which the bundle requires on
 * the first call into the package: its importers get a stand-in whose functions (and classes,
 * `instanceof` included), namespace objects and default export reach the real module. A named
 * import of something that is neither fails the build (tests/integration/startup-modules.test.ts:
 * which runs load them).
 *
 * zod (~250 KB) likewise: what a start uses of it before its first request is built at build time
 * (the package's config and agents, src/util/package-snapshot.ts; the tools' parameter schemas,
 * src/tools/prebuilt-schemas.ts), so a start with no config of its own compiled and ran zod — ~5–10 ms
 * of CPU on Node 24 — for nothing. Its importers use `z`, a namespace object. Built from its ES
 * module entry (`import`), so that zodEnglishOnly applies; the others from their `require` entry.
 *
 * picomatch (~60 KB) too: a start compiled no glob before its first request once an agent's `mcp__*`
 * was matched without it (src/agent/definition.ts), yet loaded it for fdir, tinyglobby and orca's
 * rules. It loads with the first glob a run compiles (a permission rule, the glob tool).
 */
const LAZY_PACKAGES = { yaml: "require", "gray-matter": "require", zod: "import", picomatch: "require" };
const lazyFile = (pkg) => `lazy-${pkg}.cjs`;
function lazyStandIn(pkg) {
  const real = createRequire(import.meta.url)(pkg);
  const named = (name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== "default";
  const names = Object.keys(real).filter((name) => typeof real[name] === "function" && named(name));
  const objects = Object.keys(real).filter((name) => typeof real[name] === "object" && real[name] !== null && named(name));
  return [
    'import { createRequire } from "node:module";',
    "let real;",
    `const load = () => (real ??= createRequire(import.meta.url)(${JSON.stringify(`./${lazyFile(pkg)}`)}));`,
    "const lazyFunction = (name) => {",
    "  const stand = function (...args) { return new.target ? new (load()[name])(...args) : load()[name].apply(this, args); };",
    "  Object.defineProperty(stand, Symbol.hasInstance, { value: (x) => x instanceof load()[name] });",
    "  return stand;",
    "};",
    // A namespace object (zod's `z`): each property read reaches the real one.
    "const lazyObject = (name) => new Proxy({}, {",
    "  get: (_, key) => Reflect.get(load()[name], key),",
    "  has: (_, key) => Reflect.has(load()[name], key),",
    "  ownKeys: () => Reflect.ownKeys(load()[name]),",
    "  getOwnPropertyDescriptor: (_, key) => { const d = Reflect.getOwnPropertyDescriptor(load()[name], key); return d && { ...d, configurable: true }; },",
    "});",
    // Pure: esbuild drops the stand-ins no file imports (zod exports ~240 names).
    // Through a local: an export may be named like a reserved word (zod's `null`, `void`).
    ...names.map((name, i) => `const f${i} = /* @__PURE__ */ lazyFunction(${JSON.stringify(name)}); export { f${i} as ${name} };`),
    ...objects.map((name, i) => `const o${i} = /* @__PURE__ */ lazyObject(${JSON.stringify(name)}); export { o${i} as ${name} };`),
    "export default new Proxy(function () {}, { apply: (_, self, args) => Reflect.apply(load(), self, args), construct: (_, args) => Reflect.construct(load(), args), get: (_, key) => Reflect.get(load(), key), has: (_, key) => Reflect.has(load(), key) });",
  ].join("\n");
}
const lazyPackages = {
  name: "lazy-packages",
  setup(b) {
    const used = new Set();
    b.onResolve({ filter: new RegExp(`^(${Object.keys(LAZY_PACKAGES).join("|")})$`) }, (args) => {
      if (args.kind !== "import-statement") return undefined;
      used.add(args.path);
      return { path: args.path, namespace: "lazy-package" };
    });
    b.onLoad({ filter: /.*/, namespace: "lazy-package" }, (args) => ({ contents: lazyStandIn(args.path), loader: "js", resolveDir: process.cwd() }));
    b.onEnd(async (result) => {
      if (result.errors.length > 0 || used.size === 0) return;
      const resolve = (pkg) => (LAZY_PACKAGES[pkg] === "import" ? fileURLToPath(import.meta.resolve(pkg)) : createRequire(import.meta.url).resolve(pkg));
      await b.esbuild.build({
        entryPoints: Object.fromEntries([...used].map((pkg) => [lazyFile(pkg).replace(/\.cjs$/, ""), resolve(pkg)])),
        outdir: b.initialOptions.outdir,
        outExtension: { ".js": ".cjs" },
        bundle: true,
        format: "cjs",
        platform: "node",
        target: "node20",
        plugins: [noEsprima, zodEnglishOnly],
        logLevel: "error",
      });
    });
  },
};

/**
 * esbuild turns each `import x from "<CommonJS module>"` into `__toESM(require_x(), 1)`: a fresh object
 * with one getter per export of the module, made at every importing file — ~50 of orca's files import
 * `node:fs` (~100 exports), as many `node:path`; copying them was ~5 % of a start. The copy for one
 * module object is the same each time, so it is made once and kept (re-made if the module gained or
 * lost exports meanwhile: a module still loading in a require cycle). Rewrites esbuild's own helper
 * in the written chunks; a new esbuild that writes it differently fails the build here.
 */
const TO_ESM = "var __toESM = (mod, isNodeMode, target) => (";
const TO_ESM_ONCE = `var __toESMKept = new WeakMap();
var __toESM = (mod, isNodeMode) => {
  if (!isNodeMode || mod === null || (typeof mod !== "object" && typeof mod !== "function")) return __toESMFresh(mod, isNodeMode);
  const count = __getOwnPropNames(mod).length;
  const kept = __toESMKept.get(mod);
  if (kept && kept.count === count) return kept.target;
  const target = __toESMFresh(mod, isNodeMode);
  __toESMKept.set(mod, { count, target });
  return target;
};
var __toESMFresh = (mod, isNodeMode, target) => (`;
/** After a build without errors, each written chunk whose name `pattern` matches: `rewrite` returns its new text, or undefined to leave it. */
function rewriteChunks(b, pattern, rewrite) {
  b.onEnd(async (result) => {
    if (result.errors.length > 0) return;
    const outdir = b.initialOptions.outdir;
    for (const name of (await readdir(outdir)).filter((n) => pattern.test(n))) {
      const file = path.join(outdir, name);
      const rewritten = rewrite(await readFile(file, "utf8"));
      if (rewritten !== undefined) await writeFile(file, rewritten);
    }
  });
}

/** @param {RegExp} pattern the written files whose helper is rewritten */
const toEsmOnceIn = (pattern) => ({
  name: "to-esm-once",
  setup(b) {
    let used = false;
    let rewritten = false;
    b.onStart(() => {
      used = rewritten = false;
    });
    rewriteChunks(b, pattern, (source) => {
      used ||= source.includes("__toESM(");
      if (!source.includes(TO_ESM)) return undefined;
      rewritten = true;
      return source.replace(TO_ESM, TO_ESM_ONCE);
    });
    b.onEnd((result) => {
      if (result.errors.length === 0 && used && !rewritten) throw new Error("to-esm-once: esbuild no longer defines __toESM as expected");
    });
  },
});
const toEsmOnce = toEsmOnceIn(/\.m?js$/);

/**
 * esbuild writes ASCII (its default charset: strings, regexes and names are escaped) but keeps some
 * comments as the sources wrote them — an em dash, an ellipsis, an emoji in a dependency's doc
 * comment. One such character makes the whole chunk a two-byte string in V8: Node decodes the core
 * chunk's ~1 MB from UTF-8 to UTF-16 on every start and V8 holds 2 MB of source. Left only in comments,
 * each UTF-16 unit is written as a `\uXXXX` escape here, which also means the same character in a string, a
 * template or a regular expression with or without the u flag (a `\u{…}` escape would not, without it).
 */
const asciiChunks = {
  name: "ascii-chunks",
  setup(b) {
    // eslint-disable-next-line no-control-regex
    rewriteChunks(b, /\.(m?js|cjs)$/, (source) => (/^[\x00-\x7f]*$/.test(source) ? undefined : source.replace(/[^\x00-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`)));
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
    plugins: [builtinsRequired, fdirBundledPicomatch, noEsprima, reactProductionOnly, zodEnglishOnly, toEsmOnce, lazyPackages, asciiChunks],
    // Bundled CommonJS dependencies call require(); give ESM chunks one.
    banner: { js: "import { createRequire as __orcaRequire } from 'node:module'; const require = __orcaRequire(import.meta.url);" },
    logLevel: "error",
  };
}

/**
 * Node 20 keeps no compiled code of ES modules between runs (module.enableCompileCache is 22.1+):
 * each start parsed the ~1.4 MB of chunks a headless run loads again. Code that vm.Script compiles
 * can be kept (bin/headless-bundle.js), and vm.Script runs a script, not a module: so the headless
 * path is bundled a second time, as one CommonJS file, `headless.cjs` beside the chunks (the same
 * folder, so that the paths orca finds from `import.meta.url` — its package.json, the lazy
 * packages — are the same). bin/orca.js runs it only on a Node without that cache, and only for a
 * `-p` run (src/cli/headless-entry.ts decides, with orca's own argument parser).
 *
 * The dashboard is not in it: a `-p` run never opens it, and Ink and yoga-layout await at their top
 * level, which a script cannot. Each module dist/cli/main.js imports on demand (the dashboard,
 * the demo, the subcommands) is, in this file, one that throws; a build in which Ink or React is
 * still reachable fails.
 *
 * Nor does the script import(): a script's import() goes through vm's own loader hook, which Node 20
 * calls experimental and warns about on stderr. A built-in imported on demand (web-tree-sitter's
 * `import("module")`) is required instead, like the ones imported statically; anything else left
 * to import() fails the build.
 */
const headlessOnly = {
  name: "headless-only",
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind !== "dynamic-import") return undefined;
      if (BUILTINS.has(args.path)) return { path: withPrefix(args.path), namespace: "builtin-required" };
      if (!/[\\/]dist[\\/]cli[\\/]main\.js$/.test(args.importer)) return undefined;
      return { path: args.path, namespace: "headless-absent" };
    });
    b.onLoad({ filter: /.*/, namespace: "headless-absent" }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`orca's headless bundle has no ${args.path}: bin/orca.js runs it only for -p`)});`,
      loader: "js",
    }));
    b.onEnd(async (result) => {
      if (result.errors.length > 0) return;
      const imported = Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.kind === "dynamic-import" && i.external).map((i) => i.path));
      if (imported.length > 0) throw new Error(`headless-only: the headless bundle would import() ${imported.join(", ")}`);
      const source = await readFile(path.join(b.initialOptions.outdir, "headless.cjs"), "utf8");
      const dashboard = /^\/\/ node_modules\/(ink|react|react-reconciler|yoga-layout)\//m.exec(source);
      if (dashboard) throw new Error(`headless-only: ${dashboard[1]} is in the headless bundle`);
    });
  },
};

/** esbuild's options for the headless bundle (above) of `entry`, written as `headless.cjs` into `outdir`. */
export function headlessBundleOptions(entry, outdir) {
  const esm = bundleOptions([], outdir);
  return {
    ...esm,
    entryPoints: { headless: entry },
    splitting: false,
    format: "cjs",
    outExtension: { ".js": ".cjs" },
    // bin/headless-bundle.js passes the file's URL in: a script has no import.meta.
    define: { "import.meta.url": "__orcaImportMetaUrl" },
    banner: {},
    metafile: true,
    plugins: [headlessOnly, ...esm.plugins.filter((p) => p !== toEsmOnce), toEsmOnceIn(/^headless\.cjs$/)],
  };
}
