// Bundles the compiled CLI into a few ESM chunks. Loading ~900 small modules (ink, react, the
// openai SDK, zod…) one by one is most of orca's start-up time; one bundle loads in a fraction.
// The MCP SDK stays external: it is loaded only when a server is configured. What only the
// dashboard uses (ink, react) sits in chunks that headless runs never import
// (tests/integration/startup-modules.test.ts checks which files a run loads).
import { readFile, rm, writeFile } from "node:fs/promises";
import { build } from "esbuild";

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

// Chunk names are content hashes: clear the old ones so the folder holds one build.
await rm("dist/bundle", { recursive: true, force: true });

await build({
  entryPoints: ["dist/cli/main.js"],
  outdir: "dist/bundle",
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
});

// The package's config.yaml, parsed once here rather than on every start of a user who has no
// config of their own (src/config/package-snapshot.ts checks it still matches the file).
const { parseConfigText } = await import("../dist/config/load.js");
const { PACKAGE_SNAPSHOT } = await import("../dist/config/package-snapshot.js");
const source = await readFile("config.yaml", "utf8");
await writeFile(PACKAGE_SNAPSHOT, JSON.stringify({ source, value: parseConfigText(source, "config.yaml") }));
