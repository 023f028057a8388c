import fs from "node:fs";
import path from "node:path";

/**
 * What orca parses on every start from its own package — config.yaml (the config of everyone who
 * has none of their own), the shipped skills' and agents' front matter — is parsed once, at build time,
 * into dist/package-snapshot.json, each value beside the exact text it came from. A cold YAML
 * parse costs ~1 ms a kilobyte before the parser is compiled (~40 ms of every such start). A file
 * that no longer reads exactly as its snapshot (edited, another version) is parsed as usual, and
 * so is everything when the snapshot is missing or unreadable: the snapshot can only ever give
 * what parsing the same text gives.
 */
export const PACKAGE_SNAPSHOT = path.join("dist", "package-snapshot.json");

/** A Markdown file's front matter, split from its body. */
export interface FrontMatter {
  data: unknown;
  content: string;
  /** An agent's or skill's front matter as its schema checked it at build time (agent/definition.ts, skills/frontmatter.ts): a start then makes no schema. */
  checked?: unknown;
}

export interface PackageSnapshot {
  /**
   * config.yaml's text when the snapshot was made, what parsing it gave and, when no string in it
   * holds a `$` (so the environment cannot change it), what checking it gave (config/load.ts's
   * checkedLayer): a start with no config of its own then makes none of the config's schemas.
   */
  config: { source: string; value: unknown; checked?: unknown };
  /** Each shipped SKILL.md: its text (BOM removed), its front matter and what checking it gave. */
  skills: ({ source: string } & FrontMatter)[];
  /** Each shipped agents/*.md: its text and its front matter (~15 ms of js-yaml on a cold start). */
  agents: ({ source: string } & FrontMatter)[];
}

function readSnapshot(packageDir: string): Partial<PackageSnapshot> {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(path.join(packageDir, PACKAGE_SNAPSHOT), "utf8"));
    return value && typeof value === "object" ? (value as Partial<PackageSnapshot>) : {};
  } catch {
    return {};
  }
}

/** The package's config.yaml parsed (and checked, if it could be) if the snapshot was made from `text`; else undefined. */
export function packageConfigSnapshot(packageDir: string, text: string): { value: unknown; checked?: unknown } | undefined {
  const config = readSnapshot(packageDir).config;
  return config?.source === text ? { value: config.value, checked: config.checked } : undefined;
}

/** The shipped skills' front matter, by the text of their SKILL.md. */
export function packageSkillsSnapshot(packageDir: string): ReadonlyMap<string, FrontMatter> {
  return byText(readSnapshot(packageDir).skills);
}

/** The shipped agent definitions' front matter, by the text of their file. */
export function packageAgentsSnapshot(packageDir: string): ReadonlyMap<string, FrontMatter> {
  return byText(readSnapshot(packageDir).agents);
}

function byText(files: unknown): ReadonlyMap<string, FrontMatter> {
  return new Map(Array.isArray(files) ? (files as PackageSnapshot["skills"]).map((s) => [s.source, { data: s.data, content: s.content, ...(s.checked !== undefined ? { checked: s.checked } : {}) }]) : []);
}
