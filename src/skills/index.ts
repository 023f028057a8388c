export { mapAllowedTools } from "./allowed-tools.js";
export { createGetSkillTool, type GetSkillArgs, type GetSkillOptions } from "./get-skill.js";
export { preloadSkills, renderSkillContent, renderSkillsIndex } from "./index-prompt.js";
export { discoverSkills, skillSearchRoots, type Skill, type SkillReport, type SkillSearchOptions } from "./loader.js";
export { formatSkillReport } from "./report.js";
