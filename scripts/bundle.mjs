// Bundles the compiled CLI into a few ESM chunks. Loading ~900 small modules (ink, react, the
// openai SDK, zod…) one by one is most of orca's start-up time; one bundle loads in a fraction.
// The MCP SDK stays external: it is loaded only when a server is configured. What only the
// dashboard uses (ink, react) sits in chunks that headless runs never import
// (tests/integration/startup-modules.test.ts checks which files a run loads).
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import path from "node:path";
import { build } from "esbuild";
import { BUILD_STAMP, inputHashes } from "./build-stamp.mjs";
import { bundleOptions, headlessBundleOptions } from "./bundle-options.mjs";

// Chunk names are content hashes: clear the old ones so the folder holds one build.
await rm("dist/bundle", { recursive: true, force: true });

// The built-in tools' parameter schemas for the default config, made from the sources being
// bundled and compiled into the bundle (src/tools/prebuilt-schemas.ts says why and how they are keyed).
const { checkedLayer, parseConfigText } = await import("../dist/config/load.js");
const { configSchema } = await import("../dist/config/schema.js");
const { prebuiltSchemaForms } = await import("../dist/orchestrator/tool-schema-forms.js");
const configText = await readFile("config.yaml", "utf8");
const defaults = configSchema.parse({});
const schemas = prebuiltSchemaForms({ bashTimeoutMs: defaults.tools.bash_timeout, maxOutputTokens: defaults.tools.max_output_tokens, readOnlyCommands: defaults.scheduler.read_only_commands });
// first-frame.js: what bin/orca.js loads before main.js to draw the dashboard's first frame early (src/cli/first-frame.ts).
const options = bundleOptions(["dist/cli/main.js", "dist/cli/first-frame.js"], "dist/bundle");
await build({ ...options, define: { ...options.define, ORCA_PREBUILT_TOOL_SCHEMAS: JSON.stringify(schemas) } });
// The same headless path as one script, for Node 20 (scripts/bundle-options.mjs says why).
const headless = headlessBundleOptions("dist/cli/headless-entry.js", "dist/bundle");
await build({ ...headless, define: { ...headless.define, ORCA_PREBUILT_TOOL_SCHEMAS: JSON.stringify(schemas) } });
// Its first line names its content: the key its compiled code is kept under (bin/headless-bundle.js).
// npm gives every file of a package the same time, so an upgrade's file could match the last one's time and size.
const headlessFile = path.join("dist", "bundle", "headless.cjs");
const headlessText = await readFile(headlessFile, "utf8");
await writeFile(headlessFile, `// orca-headless ${createHash("sha256").update(headlessText).digest("hex")}\n${headlessText}`);

// What every start would parse from the package itself (config.yaml, the shipped skills' front
// matter), parsed once here; src/util/package-snapshot.ts uses a value only while its file still
// reads exactly as it did.
const { checkedSkillFrontMatter, readSkillFrontMatter, skillSource } = await import("../dist/skills/frontmatter.js");
const { default: matter } = await import("gray-matter");
const { PACKAGE_SNAPSHOT } = await import("../dist/util/package-snapshot.js");
const { checkedFrontMatter } = await import("../dist/agent/definition.js");
const skills = [];
for (const entry of await readdir("skills", { withFileTypes: true })) {
  if (!entry.isDirectory()) continue;
  const source = skillSource(await readFile(path.join("skills", entry.name, "SKILL.md"), "utf8"));
  const frontMatter = readSkillFrontMatter(source);
  const check = checkedSkillFrontMatter(frontMatter.data);
  if ("reason" in check) throw new Error(`skills/${entry.name}: ${check.reason}`);
  skills.push({ source, ...frontMatter, checked: check.checked });
}
// The agents' as src/agent/definition.ts parses them (gray-matter's YAML; their files have no `---js`).
const agents = [];
for (const name of (await readdir("agents")).filter((n) => n.endsWith(".md")).sort()) {
  const source = await readFile(path.join("agents", name), "utf8");
  const refuse = () => {
    throw new Error(`agents/${name}: only YAML front matter`);
  };
  const { data, content } = matter(source, { engines: { js: refuse, javascript: refuse } });
  const check = checkedFrontMatter(data);
  if ("reason" in check) throw new Error(`agents/${name}: ${check.reason}`);
  agents.push({ source, data, content, checked: check.checked });
}
// Checked too when no string in it holds a `$`: then no environment can change what checking gives.
const configValue = parseConfigText(configText, "config.yaml");
const checked = JSON.stringify(configValue).includes("$") ? {} : { checked: checkedLayer(configValue, "config.yaml", {}) };
await writeFile(PACKAGE_SNAPSHOT, JSON.stringify({ config: { source: configText, value: configValue, ...checked }, skills, agents }));

// The build's name for Node's compile cache: each build's entries go in a folder of their own, so a
// later start can remove the folders of builds no longer run (bin/compile-cache.js).
const bundled = (await readdir(path.join("dist", "bundle"))).filter((f) => f !== "build-id").sort();
const buildHash = createHash("sha256");
for (const f of bundled) buildHash.update(`${f}\0`).update(await readFile(path.join("dist", "bundle", f)));
await writeFile(path.join("dist", "bundle", "build-id"), buildHash.digest("hex").slice(0, 16));

// Last, so only a whole build is stamped: the tests compare dist/ with the tree by it (tests/setup/build.ts).
await writeFile(BUILD_STAMP, JSON.stringify(inputHashes(process.cwd())));
