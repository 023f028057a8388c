import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { build } from "esbuild";
import { afterEach, describe, expect, it } from "vitest";
import { bundleOptions } from "../../scripts/bundle-options.mjs";

// scripts/bundle-options.mjs keeps esbuild's ES-module view of a CommonJS module (or a built-in)
// once per module object instead of copying its exports at every importing file. Bundled with the
// bin's own options and run: what importers see must not change.
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function bundleAndRun(files: Record<string, string>): Promise<{ output: string; chunks: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "orca-to-esm-once-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const out = path.join(dir, "out");
  await build({ ...bundleOptions([path.join(dir, "entry.mjs")], out), logLevel: "silent" });
  const chunks = fs.readdirSync(out).map((f) => fs.readFileSync(path.join(out, f), "utf8")).join("\n");
  return { output: execFileSync(process.execPath, [path.join(out, "entry.js")], { encoding: "utf8" }), chunks };
}

describe("esbuild's __toESM, kept per module (to-esm-once)", () => {
  it("gives every importer the module's exports, and a module that gained exports since is seen whole", async () => {
    const { output, chunks } = await bundleAndRun({
      "m.cjs": "exports.a = 1;\nexports.grow = () => { exports.b = 2; };\n",
      "first.mjs": 'import { a, grow } from "./m.cjs";\nimport { join } from "node:path";\ngrow();\nexport const first = join(String(a), "x");\n',
      "second.mjs": 'import { a, b } from "./m.cjs";\nimport path from "node:path";\nexport const second = path.join(String(a), String(b));\n',
      "entry.mjs": 'import { first } from "./first.mjs";\nimport { second } from "./second.mjs";\nconsole.log(first, second);\n',
    });
    expect(chunks).toContain("__toESMKept");
    expect(output.trim()).toBe(`${path.join("1", "x")} ${path.join("1", "2")}`);
  });
});
