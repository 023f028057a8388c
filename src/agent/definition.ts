import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import matter from "gray-matter";
import picomatch from "picomatch";
import { z } from "zod";
import { builtOnUse } from "../util/built-on-use.js";
import { agentFileNames } from "../config/setting-files.js";
import type { FrontMatter } from "../util/package-snapshot.js";
import { errorLine } from "../util/text.js";
import type { AccountLimits } from "./budget-tree.js";

export interface AgentDefinition {
  name: string;
  description: string;
  /** Tool names and globs (`mcp__fs__*`); `["*"]` means every tool. */
  tools: string[];
  /**
   * "inherit" (the configured model), a model name (on the configured model's provider), or
   * "provider/model" (a provider from config.yaml's `providers`). Resolved by model/providers.ts.
   */
  model: string;
  maxSteps?: number;
  /** `budget:` — what this agent may spend in a run (its sub-agents included), cut to what its parent has left. */
  budget?: AccountLimits;
  skills: string[];
  /**
   * "worktree": as a sub-agent it works in its own git worktree, merged back into the main tree
   * when it ends done (orchestrator/worktree-run.ts). "none": it shares the workspace.
   */
  isolation: "none" | "worktree";
  /** Whether the project instructions (AGENTS.md…) join its system prompt; unset: the config decides (`instructions.subagents` for sub-agents). */
  instructions?: boolean;
  /**
   * Commands orca runs, in the command sandbox, when the agent ends done (`verify:` in the front
   * matter): their exit codes and test counts join its change set as evidence.
   */
  verify: string[];
  /**
   * `can_message:` whom message_agent may reach: `parent`, `siblings`, `children` and agent
   * definition names (orchestrator/agent-messages.ts); unset: parent, siblings and children.
   */
  canMessage?: string[];
  /** `ask`: an isolated agent's merge waits for a person's acceptance; unset: config's agents.review. */
  review?: "ask" | "auto";
  /** The body: the agent's system prompt. */
  prompt: string;
  file: string;
}

export interface AgentReport {
  definitions: Map<string, AgentDefinition>;
  shadowed: { name: string; file: string; keptFile: string }[];
  failed: { file: string; reason: string }[];
}

// Made on first use: the package's own agents were checked at build time (checkedFrontMatter).
const frontmatterSchema = builtOnUse(() => z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "lowercase letters, digits, - and _"),
  description: z.string().min(1),
  tools: z.union([z.array(z.string()), z.string()]).optional(),
  model: z
    .string()
    .regex(/^[^\s/][^\s]*$/, "inherit, a model name, or provider/model")
    .refine((spec) => !spec.endsWith("/"), "no model name after the provider")
    .default("inherit"),
  max_steps: z.number().int().positive().optional(),
  skills: z.array(z.string()).default([]),
  budget: z
    .strictObject({
      max_cost_usd: z.number().positive().optional(),
      max_tokens: z.number().int().positive().optional(),
      max_steps: z.number().int().positive().optional(),
    })
    .optional(),
  isolation: z.enum(["none", "worktree"], { error: "none or worktree" }).default("none"),
  instructions: z.boolean().optional(),
  verify: z.union([z.string().min(1).transform((c) => [c]), z.array(z.string().min(1))]).default([]),
  review: z.enum(["ask", "auto"], { error: "ask or auto" }).optional(),
  can_message: z.union([z.string().transform((s) => s.split(/[\s,]+/).filter(Boolean)), z.array(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "parent, siblings, children or agent names"))]).optional(),
}));
type CheckedFrontMatter = z.output<typeof frontmatterSchema>;

/** An agent file's front matter checked, or why it is refused: what the build stores for the package's own agents. */
export function checkedFrontMatter(data: unknown): { checked: CheckedFrontMatter } | { reason: string } {
  // Parsed once a file: zod's compiled fast path would cost more to build than it saves (config/load.ts).
  const fm = frontmatterSchema.safeParse(data, { jitless: true });
  if (fm.success) return { checked: fm.data };
  const issue = fm.error.issues[0]!;
  const where = issue.path.join(".") || "frontmatter";
  const message = issue.code === "unrecognized_keys" ? `unknown key ${issue.keys.join(", ")}` : issue.message;
  return { reason: `${where}: ${message}` };
}

export function agentSearchDirs(opts: { workspace: string; home?: string; packageDir: string }): string[] {
  const home = opts.home ?? os.homedir();
  return [
    path.join(opts.workspace, ".orca", "agents"),
    path.join(home, ".config", "orca", "agents"),
    path.join(opts.packageDir, "agents"),
  ];
}

/**
 * Loads every agents/*.md of the search dirs; the first definition of a name wins. `known`: front
 * matter already parsed, by a file's exact text (the package's own agents, parsed at build time).
 */
export function loadAgentDefinitions(dirs: string[], known: ReadonlyMap<string, FrontMatter> = new Map()): AgentReport {
  const report: AgentReport = { definitions: new Map(), shadowed: [], failed: [] };
  for (const dir of dirs) {
    // The trust survey lists the same files (config/setting-files.ts); a missing dir lists none.
    for (const name of agentFileNames(dir)) {
      const file = path.join(dir, name);
      const result = parseAgentFile(file, known);
      if ("reason" in result) {
        report.failed.push({ file, reason: result.reason });
        continue;
      }
      const existing = report.definitions.get(result.name);
      if (existing) report.shadowed.push({ name: result.name, file, keptFile: existing.file });
      else report.definitions.set(result.name, result);
    }
  }
  return report;
}

export function parseAgentFile(file: string, known: ReadonlyMap<string, FrontMatter> = new Map()): AgentDefinition | { reason: string } {
  let parsed: FrontMatter;
  try {
    const text = fs.readFileSync(file, "utf8");
    // gray-matter runs `---js` front matter through eval; an agent file in a cloned repo must not
    // run code, so only YAML front matter is accepted.
    if (!/^\uFEFF?---[ \t]*\r?\n/.test(text)) return { reason: "must start with YAML front matter (a --- line)" };
    // A fresh options object keeps gray-matter from serving a cached parse of equal text.
    parsed = known.get(text) ?? matter(text, { engines: { js: refuseEngine, javascript: refuseEngine } });
  } catch (error) {
    return { reason: `invalid frontmatter: ${errorLine(error)}` };
  }
  const fm = parsed.checked !== undefined ? { checked: parsed.checked as CheckedFrontMatter } : checkedFrontMatter(parsed.data);
  if ("reason" in fm) return fm;
  const prompt = parsed.content.trim();
  if (!prompt) return { reason: "the body (the system prompt) is empty" };
  const tools = typeof fm.checked.tools === "string" ? fm.checked.tools.split(/[\s,]+/).filter(Boolean) : (fm.checked.tools ?? ["*"]);
  return {
    name: fm.checked.name,
    description: fm.checked.description,
    tools,
    model: fm.checked.model,
    maxSteps: fm.checked.max_steps,
    ...(fm.checked.budget ? { budget: accountLimits(fm.checked.budget) } : {}),
    skills: fm.checked.skills,
    isolation: fm.checked.isolation,
    ...(fm.checked.instructions !== undefined ? { instructions: fm.checked.instructions } : {}),
    verify: fm.checked.verify,
    ...(fm.checked.review ? { review: fm.checked.review } : {}),
    ...(fm.checked.can_message ? { canMessage: fm.checked.can_message } : {}),
    prompt,
    file,
  };
}

/** `budget:` as written (snake_case, in an agent file or a delegate call) as an account's limits. */
export function accountLimits(budget: { max_cost_usd?: number; max_tokens?: number; max_steps?: number }): AccountLimits {
  const out: AccountLimits = {};
  if (budget.max_cost_usd !== undefined) out.maxCostUsd = budget.max_cost_usd;
  if (budget.max_tokens !== undefined) out.maxTokens = budget.max_tokens;
  if (budget.max_steps !== undefined) out.maxSteps = budget.max_steps;
  return out;
}

/** Whether `toolName` is on an agent's whitelist (names or globs). */
export function allowsTool(definition: Pick<AgentDefinition, "tools">, toolName: string): boolean {
  let answers = whitelistAnswers.get(definition.tools);
  if (!answers) {
    answers = new Map();
    whitelistAnswers.set(definition.tools, answers);
  }
  let answer = answers.get(toolName);
  if (answer === undefined) {
    answer = definition.tools.some((entry) => entry === toolName || (GLOB_SYNTAX.test(entry) && entryMatcher(entry)(toolName)));
    if (answers.size >= MAX_ANSWERS) answers.clear();
    answers.set(toolName, answer);
  }
  return answer;
}

// Asked for every tool on every step of every agent (64 sub-agents at once: ~40 tools × each entry
// of the whitelist, per request): a whitelist's answer for a tool name is kept with the whitelist,
// which is never changed once parsed, and each glob entry is compiled once. The tools' names are a
// small set, but MCP names come and go, so the answers are dropped wholesale past a bound.
const whitelistAnswers = new WeakMap<readonly string[], Map<string, boolean>>();
const matchers = new Map<string, (name: string) => boolean>();
const MAX_ANSWERS = 4096;
// An entry without glob syntax matches its own name only (the equality above): compiling each with
// picomatch was ~1–2 ms of every start, before the first request.
const GLOB_SYNTAX = /[*?[\]{}()!+@\\]/;
// A literal and one trailing `*` (the coordinator's `mcp__*`): what picomatch makes of it, without
// loading and compiling a glob before the first request (picomatch is a file of its own, loaded on
// first use: scripts/bundle-options.mjs). A bare `*` matches no empty name, nor one that starts with
// a dot or a line terminator (picomatch's regex wants a first character its `.` matches); a name
// with a `/` (no tool's) is left to picomatch, whose rules for it are its own, and so is an entry
// with a `"` (picomatch reads a quoted part as its text without the quotes).
const PREFIX_STAR = /^[^*?[\]{}()!+@\\/"]*\*$/;
const BARE_STAR_FIRST = /^[^.\n\r\u2028\u2029]/;
export function prefixStarMatcher(entry: string): ((name: string) => boolean) | undefined {
  if (!PREFIX_STAR.test(entry)) return undefined;
  const prefix = entry.slice(0, -1);
  let glob: ((name: string) => boolean) | undefined;
  return (name) => (name.includes("/") ? (glob ??= picomatch(entry))(name) : name.startsWith(prefix) && (prefix !== "" || BARE_STAR_FIRST.test(name)));
}
function entryMatcher(entry: string): (name: string) => boolean {
  let matcher = matchers.get(entry);
  if (!matcher) {
    matcher = prefixStarMatcher(entry) ?? picomatch(entry);
    matchers.set(entry, matcher);
  }
  return matcher;
}

const refuseEngine = (): never => {
  throw new Error("only YAML front matter is accepted");
};

