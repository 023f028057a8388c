// Bundles the compiled CLI into a few ESM chunks. Loading ~900 small modules (ink, react, the
// openai SDK, zod…) one by one is most of orca's start-up time; one bundle loads in a fraction.
// The MCP SDK stays external: it is loaded only when a server is configured.
import { build } from "esbuild";

await build({
  entryPoints: ["dist/cli/main.js"],
  outdir: "dist/bundle",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["@modelcontextprotocol/sdk", "react-devtools-core"],
  // Bundled CommonJS dependencies call require(); give ESM chunks one.
  banner: { js: "import { createRequire as __orcaRequire } from 'node:module'; const require = __orcaRequire(import.meta.url);" },
  logLevel: "error",
});
