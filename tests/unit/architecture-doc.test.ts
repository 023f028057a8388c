import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../fixtures/harness.js";

/**
 * docs/ARCHITECTURE.md is a new contributor's map: every `src/…` path it names must exist, and
 * every folder of src/ must be on it, so the map and the house cannot drift apart unseen.
 */
const doc = fs.readFileSync(path.join(ROOT, "docs/ARCHITECTURE.md"), "utf8");
const named = [...new Set([...doc.matchAll(/`(src\/[^`\s]*)`/g)].map((m) => m[1]!))];

function folders(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => [`${dir}/${e.name}`, ...folders(`${dir}/${e.name}`)]);
}

describe("docs/ARCHITECTURE.md", () => {
  it("names only paths that exist", () => {
    expect(named.length).toBeGreaterThan(30);
    const missing = named.filter((p) => !fs.existsSync(path.join(ROOT, p.replace(/\/$/, ""))));
    expect(missing).toEqual([]);
  });

  it("names every top-level folder of src/, and places each on a floor the linter knows", () => {
    const top = folders("src").filter((f) => f.split("/").length === 2);
    const unnamed = top.filter((f) => !named.some((p) => p === `${f}/` || p.startsWith(`${f}/`)));
    expect(unnamed).toEqual([]);
    const lint = fs.readFileSync(path.join(ROOT, "eslint.config.js"), "utf8");
    const floors = /const FLOORS = (\[.*\]);/.exec(lint)?.[1];
    expect(floors).toBeDefined();
    const onFloors = (JSON.parse(floors!) as string[][]).flat().map((f) => `src/${f}`);
    expect(top.filter((f) => !onFloors.includes(f))).toEqual([]);
  });
});
