import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../fixtures/harness.js";

/**
 * docs/ARCHITECTURE.md is a new contributor's map: every file it names must exist — sources, tests,
 * docs, scripts — and every folder of src/ must be on it, so the map and the house cannot drift
 * apart unseen. The shared design lives outside the repository (`../shared/DESIGN.md`): the map
 * must say so, and this test cannot require it.
 */
const DOC = "docs/ARCHITECTURE.md";
const doc = fs.readFileSync(path.join(ROOT, DOC), "utf8");
const OUTSIDE = "../shared/DESIGN.md";

const ticked = [...new Set([...doc.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!))];
const named = ticked.filter((p) => p.startsWith("src/"));
const topLevel = new Set(fs.readdirSync(ROOT).filter((e) => e !== "node_modules" && e !== "dist"));
const FILE = /\.(md|ts|tsx|js|mjs|json|yaml)$/;

/** Every path of the repository (without node_modules, dist and .git), for a file named bare. */
function allFiles(dir = ""): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) return ["node_modules", "dist", ".git"].includes(e.name) ? [] : allFiles(rel);
    return [rel];
  });
}

/** What a backticked name refers to: a repository path, a bare file name, or nothing to check. */
function referenceOf(token: string): { kind: "path" | "bare"; value: string } | null {
  if (token === OUTSIDE || token.includes("*") || token.includes("<")) return null;
  const first = token.split("/")[0]!;
  if (token.includes("/") && topLevel.has(first)) return { kind: "path", value: token.replace(/\/$/, "") };
  if (!token.includes("/") && FILE.test(token)) return { kind: "bare", value: token };
  if (token.endsWith(".md")) return { kind: "path", value: token };
  return null;
}

function folders(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => [`${dir}/${e.name}`, ...folders(`${dir}/${e.name}`)]);
}

describe("docs/ARCHITECTURE.md", () => {
  it("names only files that exist: sources, tests, docs and scripts, by path or by bare name", () => {
    const refs = ticked.map(referenceOf).filter((r): r is NonNullable<typeof r> => r !== null);
    expect(named.length).toBeGreaterThan(30);
    expect(refs.filter((r) => r.value.endsWith(".md")).length).toBeGreaterThan(5);
    const files = allFiles();
    const missing = refs.filter((r) =>
      r.kind === "path" ? !fs.existsSync(path.join(ROOT, r.value)) : !files.some((f) => f === r.value || f.endsWith(`/${r.value}`)),
    );
    expect(missing).toEqual([]);
  });

  it("its Markdown links reach files of the repository", () => {
    const links = [...doc.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/.test(t));
    const missing = links.filter((t) => !fs.existsSync(path.join(ROOT, path.dirname(DOC), t)));
    expect(missing).toEqual([]);
  });

  it("says where the shared design lives, outside the repository, and so does the lint that cites it", () => {
    expect(doc).toContain(`\`${OUTSIDE}\``);
    expect(fs.existsSync(path.join(ROOT, "DESIGN.md"))).toBe(false);
    // Only the shared design may be named outside the repository.
    expect(ticked.filter((t) => t.startsWith("../"))).toEqual([OUTSIDE]);
    const lint = fs.readFileSync(path.join(ROOT, "eslint.config.js"), "utf8");
    expect(lint).toContain(OUTSIDE);
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
