import { listSkillFiles, type BundledFiles } from "./files.js";
import type { Skill } from "./loader.js";
import { oneLine } from "../util/text.js";

/**
 * Progressive disclosure: an agent's system prompt carries only each skill's name, description and
 * location (the index); the instructions arrive when the agent calls get_skill, or up front for
 * the skills its definition preloads.
 */

const INDEX_HEADER =
  "# Skills\n\n" +
  "Skills are folders of instructions, scripts and references for specific tasks. When a task " +
  "matches a skill's description, call get_skill with its name before you start and follow what " +
  "it says; run its scripts and read its files from the folder get_skill reports.\n";


function indexEntry(skill: Skill): string {
  let entry = `\n- ${skill.name}: ${oneLine(skill.description)}\n  location: ${skill.file}\n`;
  if (skill.allowedTools.length) entry += `  allowed-tools: ${skill.allowedTools.join(", ")}\n`;
  return entry;
}

function notListed(count: number): string {
  return (
    `\n(${count} more skill${count === 1 ? "" : "s"} not listed; the index is capped by ` +
    "skills.index_max_chars. get_skill with a name that is not here answers with every skill's name.)\n"
  );
}

/**
 * The skills index for a system prompt, at most `maxChars` long: "" when there are no skills.
 * Skills keep their search order; those that do not fit are counted in a closing line.
 */
export function renderSkillsIndex(skills: Skill[], maxChars: number): string {
  if (skills.length === 0) return "";
  const entries = skills.map(indexEntry);
  const full = INDEX_HEADER + entries.join("");
  if (full.length <= maxChars) return full;

  // Room for the closing line is kept with the largest count it could show.
  const reserve = notListed(skills.length).length;
  let text = INDEX_HEADER;
  let listed = 0;
  for (const entry of entries) {
    if (text.length + entry.length + reserve > maxChars) break;
    text += entry;
    listed++;
  }
  text += notListed(skills.length - listed);
  if (text.length <= maxChars) return text;
  // A cap too small for even the header: one line that still points at get_skill.
  const line = `${skills.length} skills are available; call get_skill with any name to list them.`;
  return line.slice(0, maxChars);
}

/** What get_skill returns and what a preloaded skill adds to a prompt. */
export function renderSkillContent(skill: Skill, bundled: BundledFiles = listSkillFiles(skill.dir)): string {
  const { files, more } = bundled;
  const lines = [`Skill: ${skill.name}`, `Folder: ${skill.dir}`];
  lines.push(
    "Paths in these instructions are relative to that folder. Run scripts with bash using the full path; " +
      `read a bundled file with get_skill {"name": "${skill.name}", "file": "<path>"}.`,
  );
  if (files.length) {
    lines.push("Bundled files:");
    lines.push(...files.map((f) => `  ${f}`));
    if (more > 0) lines.push(`  … and ${more} more`);
  } else {
    lines.push("Bundled files: none");
  }
  if (skill.allowedTools.length) lines.push(`Allowed tools: ${skill.allowedTools.join(", ")}`);
  return `${lines.join("\n")}\n\n${skill.body}\n`;
}

/**
 * The text block to append to an agent's system prompt for its definition's `skills: [...]`, and
 * the names that match no skill (for the caller to report). "" when nothing was found.
 */
export function preloadSkills(names: string[], skills: Skill[]): { text: string; missing: string[] } {
  const missing: string[] = [];
  const blocks: string[] = [];
  const done = new Set<string>();
  for (const name of names) {
    if (done.has(name)) continue;
    done.add(name);
    const skill = skills.find((s) => s.name === name);
    if (!skill) {
      missing.push(name);
      continue;
    }
    blocks.push(`## ${renderSkillContent(skill)}`);
  }
  if (blocks.length === 0) return { text: "", missing };
  const text = "# Preloaded skills\n\nThese skills are already loaded for you; follow them when they apply.\n\n" + blocks.join("\n");
  return { text, missing };
}
