// What `npm run build` reads, and a stamp of it: the build writes the content hash of every input
// file into dist/build-stamp.json, and the tests that run the built bin compare it with the tree
// (tests/setup/build.ts), so a missing or stale dist/ is rebuilt instead of silently testing old code.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** Files and folders the build reads: the sources, the build's own scripts and configs, what it snapshots, the patched dependencies. */
export const BUILD_INPUTS = [
  "src",
  "scripts/bundle.mjs",
  "scripts/bundle-options.mjs",
  "scripts/build-stamp.mjs",
  "tsconfig.json",
  "tsconfig.build.json",
  "config.yaml",
  "skills",
  "package.json",
  "package-lock.json",
  "patches",
];

export const BUILD_STAMP = path.join("dist", "build-stamp.json");

function files(root, rel) {
  const full = path.join(root, rel);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [rel];
  return readdirSync(full, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => files(root, path.posix.join(rel, e.name)));
}

/** Every input file, workspace-relative, with the sha-1 of its content. */
export function inputHashes(root) {
  const out = {};
  for (const input of BUILD_INPUTS) for (const file of files(root, input)) out[file] = createHash("sha1").update(readFileSync(path.join(root, file))).digest("hex");
  return out;
}

/** The input files that differ between the stamp and the tree now: changed, added or removed. */
export function changedInputs(stamp, now) {
  const names = new Set([...Object.keys(stamp), ...Object.keys(now)]);
  return [...names].filter((name) => stamp[name] !== now[name]).sort();
}

/** Why dist/ does not match the tree, or null when it does. */
export function buildStaleness(root) {
  const stampFile = path.join(root, BUILD_STAMP);
  if (!existsSync(path.join(root, "dist", "bundle", "main.js")) || !existsSync(stampFile)) return "dist/ has not been built";
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, "utf8"));
  } catch {
    return `${BUILD_STAMP} is unreadable`;
  }
  const changed = changedInputs(stamp, inputHashes(root));
  if (!changed.length) return null;
  return `${changed.slice(0, 3).join(", ")}${changed.length > 3 ? ` and ${changed.length - 3} more` : ""} changed since the last build`;
}
