import type { AgentDefinition } from "../agent/definition.js";

export interface PromptContext {
  workspaceRoot: string;
  /** Set when the agent works in its own git worktree instead of the main workspace. */
  worktree?: { branch: string; mainRoot: string };
  agentId: string;
  /** The parent agent's name for sub-agents. */
  parentName?: string;
  /** Sub-agents this agent may delegate to (empty when it cannot delegate). */
  delegates: AgentDefinition[];
  skillsIndex: string;
  preloadedSkills: string;
  /** The project instructions section (config/instructions.ts), or "" when this agent goes without. */
  instructions?: string;
}

/** The system prompt an agent starts with: its definition's body plus what it needs to know here. */
export function buildSystemPrompt(definition: AgentDefinition, ctx: PromptContext): string {
  const parts = [definition.prompt.trim()];
  const env = [
    "# Environment",
    `- Workspace: ${ctx.workspaceRoot} (every relative path is taken from here; paths outside it are refused)`,
    `- Date: ${new Date().toISOString().slice(0, 10)}`,
    `- Platform: ${process.platform}`,
    `- You are agent ${ctx.agentId} (${definition.name}).`,
  ];
  if (ctx.worktree) {
    env.push(
      `- Isolation: this workspace is your own git worktree (branch ${ctx.worktree.branch}), a copy of ${ctx.worktree.mainRoot} ` +
        "with its uncommitted changes. Other agents do not see your edits until you finish: orca then commits them and merges them " +
        "into the main tree (a conflict is reported, not resolved). Do not commit, push or switch branches yourself.",
    );
  }
  if (ctx.parentName) {
    env.push(
      `- You were started by ${ctx.parentName} with one task. You cannot see its conversation and it cannot see yours: ` +
        "your final message is the only thing it receives, so make it complete on its own.",
    );
  }
  parts.push(env.join("\n"));
  if (ctx.delegates.length) {
    parts.push(
      [
        "# Sub-agents you can delegate to (tool `delegate`)",
        ...ctx.delegates.map((d) => `- ${d.name}: ${d.description}${d.isolation === "worktree" ? " (works in its own git worktree, merged back when done)" : ""}`),
        "",
        "`delegate` with `background: true` returns at once; the sub-agent's result then reaches you as a message when it ends, " +
          "and your turn stays open until every background sub-agent has ended. `agent_status` shows your sub-agents, " +
          "`wait_agents` joins background ones, `message_agent` steers a running one.",
      ].join("\n"),
    );
  }
  if (ctx.instructions) parts.push(ctx.instructions);
  if (ctx.skillsIndex) parts.push(ctx.skillsIndex);
  if (ctx.preloadedSkills) parts.push(ctx.preloadedSkills);
  return parts.join("\n\n");
}
