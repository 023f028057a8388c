import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BUILD_STAMP, buildStaleness, inputHashes } from "../../scripts/build-stamp.mjs";

/** A package tree with a source file, a shipped skill and, once built, a bin bundle and its stamp. */
function tree(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "orca-stamp-"));
  fs.mkdirSync(path.join(root, "src", "util"), { recursive: true });
  fs.mkdirSync(path.join(root, "skills", "s"), { recursive: true });
  fs.writeFileSync(path.join(root, "src", "util", "a.ts"), "export const a = 1;\n");
  fs.writeFileSync(path.join(root, "skills", "s", "SKILL.md"), "---\nname: s\n---\n");
  fs.writeFileSync(path.join(root, "config.yaml"), "model: {}\n");
  return root;
}

function build(root: string): void {
  fs.mkdirSync(path.join(root, "dist", "bundle"), { recursive: true });
  fs.writeFileSync(path.join(root, "dist", "bundle", "main.js"), "");
  fs.writeFileSync(path.join(root, BUILD_STAMP), JSON.stringify(inputHashes(root)));
}

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

describe("the build stamp (tests/setup/build.ts rebuilds dist/ when it says so)", () => {
  it("a tree never built, or built without a stamp, needs a build", () => {
    const root = tree();
    roots.push(root);
    expect(buildStaleness(root)).toBe("dist/ has not been built");
    fs.mkdirSync(path.join(root, "dist", "bundle"), { recursive: true });
    fs.writeFileSync(path.join(root, "dist", "bundle", "main.js"), "");
    expect(buildStaleness(root)).toBe("dist/ has not been built");
  });

  it("is fresh right after a build, and names what changed, was added or removed since", () => {
    const root = tree();
    roots.push(root);
    build(root);
    expect(buildStaleness(root)).toBeNull();
    fs.writeFileSync(path.join(root, "src", "util", "a.ts"), "export const a = 2;\n");
    expect(buildStaleness(root)).toBe("src/util/a.ts changed since the last build");
    build(root);
    fs.writeFileSync(path.join(root, "src", "util", "b.ts"), "");
    fs.rmSync(path.join(root, "skills", "s", "SKILL.md"));
    expect(buildStaleness(root)).toBe("skills/s/SKILL.md, src/util/b.ts changed since the last build");
  });

  it("a file touched but not changed keeps the build fresh (content, not times)", () => {
    const root = tree();
    roots.push(root);
    build(root);
    const file = path.join(root, "config.yaml");
    fs.utimesSync(file, new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
    expect(buildStaleness(root)).toBeNull();
  });
});
