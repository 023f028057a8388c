import matter from "gray-matter";
import YAML from "yaml";
import { z } from "zod";
import { builtOnUse } from "../util/built-on-use.js";
import type { FrontMatter } from "../util/package-snapshot.js";
import { mapAllowedTools, splitAllowedTools } from "./allowed-tools.js";

/** The fields of a SKILL.md once validated (paths and origin are added by the loader). */
export interface SkillFrontmatter {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  /** Already mapped to orca permission rules (see allowed-tools.ts). */
  allowedTools: string[];
  metadata: Record<string, string>;
  body: string;
}

export type ParsedSkill = { ok: true; skill: SkillFrontmatter } | { ok: false; reason: string };

/**
 * YAML is read with the failsafe schema: every scalar stays the string the author wrote, so
 * `version: 1.0` in metadata is "1.0" (not the number 1) and a date is not turned into a Date.
 * Every field of the Agent Skills format is a string, a list or a map, so nothing is lost.
 */
const yamlEngine = (text: string): object => (YAML.parse(text, { schema: "failsafe" }) ?? {}) as object;

const chars = (s: string): number => [...s].length;

/**
 * Built on first use (util/built-on-use.ts): a start that reads no SKILL.md but the package's own,
 * checked at build time, needs none of these schemas.
 */
const frontmatterSchema = builtOnUse(() => {
  const requiredString = z.string({
    error: (issue) => (issue.input === undefined ? "is required" : "must be a string"),
  });

  /** An optional string field; an empty value (`license:`) counts as absent. */
  const optionalString = z
    .string({ error: "must be a string" })
    .optional()
    .transform((s) => (s && s.trim() ? s : undefined));

  return z.object({
    name: requiredString
      .refine((s) => s.length > 0, "is required")
      .refine((s) => chars(s) <= 64, "must be at most 64 characters")
      .refine((s) => /^[a-z0-9-]*$/.test(s), "may hold only lowercase letters, digits and hyphens")
      .refine((s) => !s.startsWith("-") && !s.endsWith("-"), "must not start or end with a hyphen")
      .refine((s) => !s.includes("--"), "must not contain a double hyphen"),
    description: requiredString
      .refine((s) => s.trim().length > 0, "is required")
      .refine((s) => chars(s) <= 1024, "must be at most 1024 characters"),
    license: optionalString,
    compatibility: optionalString.refine((s) => s === undefined || chars(s) <= 500, "must be at most 500 characters"),
    "allowed-tools": z
      .union([z.string(), z.array(z.string())], { error: "must be a space-delimited string or a list of strings" })
      .optional(),
    metadata: z
      .record(z.string(), z.string({ error: "must be a string" }), { error: "must be a map of string keys to string values" })
      .optional(),
    // Other fields (Claude Code's `model`, `user-invocable`…) are ignored, not refused, so skills
    // written for other agents still load.
  });
});

const NO_FRONTMATTER = "no YAML frontmatter: SKILL.md must start with a --- block holding name and description";

/** A SKILL.md's text without its byte-order mark: what its front matter is read from. */
export const skillSource = (text: string): string => text.replace(/^\uFEFF/, "");

/** Splits a SKILL.md (as skillSource gives it) into its front matter and body; throws on invalid YAML. */
export function readSkillFrontMatter(source: string): FrontMatter {
  // Passing options also turns off gray-matter's cache, which hands back a shared object.
  const file = matter(source, { engines: { yaml: yamlEngine } });
  return { data: file.data, content: file.content };
}

type CheckedSkillFrontMatter = z.output<typeof frontmatterSchema>;

/** A SKILL.md's front matter checked, or why it is refused: what the build stores for the package's own skills. */
export function checkedSkillFrontMatter(data: unknown): { checked: CheckedSkillFrontMatter } | { reason: string } {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return { reason: "frontmatter must be a YAML map of fields (name, description, …)" };
  }
  // Parsed once a file: zod's compiled fast path would cost more to build than it saves (config/load.ts).
  const parsed = frontmatterSchema.safeParse(data, { jitless: true });
  if (parsed.success) return { checked: parsed.data };
  const issue = parsed.error.issues[0];
  const field = issue.path.map(String).join(".") || "frontmatter";
  const value = (data as Record<string, unknown>)[String(issue.path[0])];
  const shown = typeof value === "string" && value.length <= 80 && field === "name" ? ` "${value}"` : "";
  return { reason: `${field}${shown} ${issue.message}` };
}

/**
 * Parses and validates the text of a SKILL.md found in the folder named `folderName`. `known`
 * holds front matter already read from the same text (the package's own skills, at build time).
 */
export function parseSkillFile(text: string, folderName: string, known?: ReadonlyMap<string, FrontMatter>): ParsedSkill {
  const source = skillSource(text);
  if (!/^---[ \t]*\r?\n/.test(source)) return { ok: false, reason: NO_FRONTMATTER };

  let file: FrontMatter;
  try {
    file = known?.get(source) ?? readSkillFrontMatter(source);
  } catch (err) {
    const message = err instanceof Error ? err.message.split("\n")[0] : String(err);
    return { ok: false, reason: `frontmatter is not valid YAML: ${message}` };
  }
  const check = file.checked !== undefined ? { checked: file.checked as CheckedSkillFrontMatter } : checkedSkillFrontMatter(file.data);
  if ("reason" in check) return { ok: false, reason: check.reason };
  const fm = check.checked;
  if (fm.name !== folderName) {
    return { ok: false, reason: `name "${fm.name}" does not match its folder name "${folderName}"` };
  }

  const rawTools = fm["allowed-tools"];
  const toolList = rawTools === undefined ? [] : typeof rawTools === "string" ? splitAllowedTools(rawTools) : rawTools;
  return {
    ok: true,
    skill: {
      name: fm.name,
      description: fm.description.trim(),
      ...(fm.license !== undefined && { license: fm.license }),
      ...(fm.compatibility !== undefined && { compatibility: fm.compatibility }),
      allowedTools: mapAllowedTools(toolList),
      metadata: fm.metadata ?? {},
      body: file.content.trim(),
    },
  };
}
