import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { madeOnFirstCall } from "../util/built-on-use.js";
import { fail, ok, type Tool, type ToolResult } from "../tools/tool.js";
import { isInside } from "../tools/workspace.js";
import { listSkillFiles } from "./files.js";
import { renderSkillContent } from "./index-prompt.js";
import type { Skill } from "./loader.js";

export interface GetSkillOptions {
  /** The current skills; read on every call so a re-discovery is picked up. */
  skills: () => Skill[];
  /**
   * Fires after an agent loaded a skill, so the session can pre-approve the skill's
   * `allowedTools` (already orca rules) for that agent.
   */
  onLoaded?: (agentId: string, skill: Skill) => void;
}

const params = madeOnFirstCall(() =>
  z.object({
    name: z.string().min(1).describe("The skill's name, as listed in the skills index."),
    file: z
      .string()
      .min(1)
      .optional()
      .describe("A file bundled with the skill, relative to its folder (e.g. references/checklist.md): returns that file instead."),
  }),
);

export type GetSkillArgs = z.infer<ReturnType<typeof params>>;

const MAX_FILES = 100;
/** A bundled file larger than this is cut: references are meant to be read, not data dumps. */
const MAX_FILE_CHARS = 100_000;

/**
 * Skills often live outside the workspace (the package's or the user's folder), where the file
 * tools refuse to read; `file` lets an agent read what a skill bundles anyway, confined to that
 * skill's folder.
 */
function readBundledFile(skill: Skill, file: string): ToolResult {
  const target = path.resolve(skill.dir, file);
  let real: string;
  try {
    real = fs.realpathSync(target);
  } catch {
    return fail(`skill "${skill.name}" has no file ${file}`);
  }
  if (!isInside(fs.realpathSync(skill.dir), real)) return fail(`${file} is outside the folder of skill "${skill.name}"`);
  if (!fs.statSync(real).isFile()) return fail(`${file} in skill "${skill.name}" is not a file`);
  const buffer = fs.readFileSync(real);
  if (buffer.includes(0)) return fail(`${file} is a binary file; use it by its path: ${target}`);
  const text = buffer.toString("utf8");
  const cut = text.length > MAX_FILE_CHARS;
  const body = cut ? `${text.slice(0, MAX_FILE_CHARS)}\n… (cut at ${MAX_FILE_CHARS} characters)` : text;
  return ok(`File: ${target}\n\n${body}`, { skill: skill.name, file: target, truncated: cut });
}

export function createGetSkillTool(opts: GetSkillOptions): Tool<GetSkillArgs> {
  const find = (name: string): Skill | undefined => opts.skills().find((s) => s.name === name);
  return {
    name: "get_skill",
    description:
      "Load a skill by name: returns its instructions, its folder and the files bundled with it " +
      "(scripts, references, assets). Call it when a task matches a skill in the skills index, " +
      "before you start the task. With `file`, returns one bundled file (e.g. references/guide.md).",
    get params() {
      return params();
    },
    schemaVariant: "",
    readOnly: () => true,
    access: (args) => {
      const skill = find(args.name);
      return { reads: skill ? [skill.dir] : [], writes: [] };
    },
    permissionSubject: () => ({ kind: "none" }),
    // A skill kept in the workspace (.orca/skills) is workspace content: its deny rules hold.
    reads: (args) => {
      const skill = find(args.name);
      return skill ? [path.resolve(skill.dir, args.file ?? "SKILL.md")] : [];
    },
    async execute(args, ctx) {
      const skills = opts.skills();
      const skill = skills.find((s) => s.name === args.name);
      if (!skill) {
        const available = skills.map((s) => s.name).sort();
        const list = available.length ? `available skills: ${available.join(", ")}` : "no skills are installed";
        return fail(`unknown skill "${args.name}"; ${list}`);
      }
      if (args.file !== undefined) return readBundledFile(skill, args.file);
      const bundled = listSkillFiles(skill.dir, MAX_FILES);
      const content = renderSkillContent(skill, bundled);
      opts.onLoaded?.(ctx.agentId, skill);
      return ok(content, {
        skill: skill.name,
        dir: skill.dir,
        files: bundled.files,
        allowedTools: skill.allowedTools,
      });
    },
  };
}
