// Bundles the compiled CLI into a few ESM chunks. Loading ~900 small modules (ink, react, the
// openai SDK, zod…) one by one is most of orca's start-up time; one bundle loads in a fraction.
// The MCP SDK stays external: it is loaded only when a server is configured. What only the
// dashboard uses (ink, react) sits in chunks that headless runs never import
// (tests/integration/startup-modules.test.ts checks which files a run loads).
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
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

// What every start would parse from the package itself (config.yaml, the shipped skills' front
// matter), parsed once here; src/util/package-snapshot.ts uses a value only while its file still
// reads exactly as it did.
const { parseConfigText } = await import("../dist/config/load.js");
const { readSkillFrontMatter, skillSource } = await import("../dist/skills/frontmatter.js");
const { PACKAGE_SNAPSHOT } = await import("../dist/util/package-snapshot.js");
const configText = await readFile("config.yaml", "utf8");
const skills = [];
for (const entry of await readdir("skills", { withFileTypes: true })) {
  if (!entry.isDirectory()) continue;
  const source = skillSource(await readFile(path.join("skills", entry.name, "SKILL.md"), "utf8"));
  skills.push({ source, ...readSkillFrontMatter(source) });
}
await writeFile(PACKAGE_SNAPSHOT, JSON.stringify({ config: { source: configText, value: parseConfigText(configText, "config.yaml") }, skills }));
