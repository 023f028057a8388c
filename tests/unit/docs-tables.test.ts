import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { blockOf, DOC_TABLES, ROOT } from "../../scripts/docs-tables.js";

/**
 * Each list the docs show (tools, slash commands, keys, `orca --help`, events) is written from the
 * table in the code by scripts/docs-tables.ts; a doc that drifted from its table fails here, and
 * `npm run docs:tables` rewrites it.
 */
describe("generated doc tables", () => {
  for (const table of DOC_TABLES) {
    it(`${table.file} (${table.name}) equals what its table in the code generates`, () => {
      const text = fs.readFileSync(path.join(ROOT, table.file), "utf8");
      expect(blockOf(text, table.name), `run npm run docs:tables`).toBe(table.render());
    });
  }

  it("the keys table holds every keymap row and the commands table every slash command", () => {
    const dashboard = fs.readFileSync(path.join(ROOT, "docs/dashboard.md"), "utf8");
    expect(blockOf(dashboard, "commands")).toContain("| `/resume <id>` |");
    expect(blockOf(dashboard, "keys")).toContain("| Permission dialog | y | allow this call once |");
  });
});

/** `[text](target)` links of a Markdown file that point into the repository (not http, not mailto). */
function localLinks(file: string): { target: string; anchor?: string }[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8").replace(/```[\s\S]*?```/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^[a-z]+:/.test(t))
    .map((t) => {
      const [rel, anchor] = t.split("#") as [string, string | undefined];
      return { target: rel ? path.posix.normalize(path.posix.join(path.posix.dirname(file), rel)) : file, anchor };
    });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchors(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8").replace(/```[\s\S]*?```/g, "");
  return [...text.matchAll(/^#+ (.*)$/gm)].map((m) =>
    m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, "")
      .replace(/ /g, "-"),
  );
}

describe("README.md as the front door", () => {
  const docs = fs.readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);

  it("is at most 300 lines", () => {
    expect(fs.readFileSync(path.join(ROOT, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(300);
  });

  it("links every page of docs/", () => {
    const linked = new Set(localLinks("README.md").map((l) => l.target));
    expect(docs.filter((d) => !linked.has(d))).toEqual([]);
  });

  it("every link of README.md and docs/ reaches a file, and a heading when it names one", () => {
    const broken: string[] = [];
    for (const file of ["README.md", ...docs]) {
      for (const { target, anchor } of localLinks(file)) {
        if (!fs.existsSync(path.join(ROOT, target))) broken.push(`${file} → ${target}`);
        else if (anchor && target.endsWith(".md") && !anchors(target).includes(anchor)) broken.push(`${file} → ${target}#${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
