import { z } from "zod";
import { fail, ok, type Tool } from "../tools/tool.js";
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

const params = z.object({
  name: z.string().min(1).describe("The skill's name, as listed in the skills index."),
});

const MAX_FILES = 100;

export function createGetSkillTool(opts: GetSkillOptions): Tool<{ name: string }> {
  const find = (name: string): Skill | undefined => opts.skills().find((s) => s.name === name);
  return {
    name: "get_skill",
    description:
      "Load a skill by name: returns its instructions, its folder and the files bundled with it " +
      "(scripts, references, assets). Call it when a task matches a skill in the skills index, " +
      "before you start the task.",
    params,
    readOnly: () => true,
    access: (args) => {
      const skill = find(args.name);
      return { reads: skill ? [skill.dir] : [], writes: [] };
    },
    permissionSubject: () => ({ kind: "none" }),
    async execute(args, ctx) {
      const skills = opts.skills();
      const skill = skills.find((s) => s.name === args.name);
      if (!skill) {
        const available = skills.map((s) => s.name).sort();
        const list = available.length ? `available skills: ${available.join(", ")}` : "no skills are installed";
        return fail(`unknown skill "${args.name}"; ${list}`);
      }
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
