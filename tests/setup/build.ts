import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildStaleness } from "../../scripts/build-stamp.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The tests of the "built" project run dist/ (the bin, the package snapshot): a missing dist/ made
 * them fail with ERR_MODULE_NOT_FOUND, and a stale one tested old code without a word. `npm test`
 * builds first; a targeted run that needs the build gets it here, once, before any test starts.
 */
export default function ensureFreshBuild(): void {
  const why = buildStaleness(ROOT);
  if (!why) return;
  console.log(`orca tests: ${why}; running npm run build first (the bin's tests run dist/)`);
  const build = spawnSync("npm", ["run", "build"], { cwd: ROOT, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`npm run build failed, so the tests that run dist/ cannot run:\n${`${build.stdout}\n${build.stderr}`.trim().slice(-4000)}`);
  const still = buildStaleness(ROOT);
  if (still) throw new Error(`dist/ is stale even after npm run build: ${still}`);
}
