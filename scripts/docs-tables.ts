/**
 * The lists the docs show — tools, slash commands, keys, `orca --help`, events — are written from the
 * tables in the code, between `<!-- name:start -->` and `<!-- name:end -->` markers, so each list
 * lives in one place. `npm run docs:tables` rewrites them; `tests/unit/docs-tables.test.ts` fails
 * when a doc and its table differ.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { HELP } from "../src/cli/usage.js";
import { eventSchema } from "../src/events/types.js";
import { bpeTokenCounter } from "../src/model/token-counter.js";
import { createControlTools } from "../src/orchestrator/control-tools.js";
import { createDelegateTool } from "../src/orchestrator/delegate.js";
import { TaskBoard } from "../src/orchestrator/task-board.js";
import { createTaskTools, OWNER_TASK_TOOLS } from "../src/orchestrator/task-tools.js";
import { createGetSkillTool } from "../src/skills/get-skill.js";
import { builtinTools, ShellManager } from "../src/tools/builtin/index.js";
import type { AnyTool } from "../src/tools/tool.js";
import { commandsMarkdown, keysMarkdown } from "../src/ui/docs.js";
import { DEFAULT_KEYMAP } from "../src/ui/keymap.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const cell = (s: string): string => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
/** A description's first sentence: what the model reads first is what the table says. */
const firstSentence = (s: string): string => /^[\s\S]*?[.!?](?=\s|$)/.exec(s)?.[0] ?? s;

/** Every tool orca itself defines, as a session registers them (MCP tools come from servers). */
export function registeredTools(): { tool: AnyTool; who: string }[] {
  const builtin = builtinTools({ shells: new ShellManager(), bashTimeoutMs: 1, maxOutputTokens: 1, readOnlyCommands: [], tokens: bpeTokenCounter() });
  const never = (): never => {
    throw new Error("docs only");
  };
  const delegating = [
    createDelegateTool({ agentNames: () => [], delegate: never }),
    ...createControlTools({ message: never, status: never, wait: never }),
  ];
  return [
    ...builtin.map((tool) => ({ tool, who: "if listed" })),
    { tool: createGetSkillTool({ skills: () => [] }), who: "if listed" },
    ...delegating.map((tool) => ({ tool, who: tool.name === "message_agent" ? "with `delegate`, or `can_message`" : "with `delegate`" })),
    ...createTaskTools({ board: new TaskBoard(never), isAgent: never }).map((tool) => ({
      tool,
      who: (OWNER_TASK_TOOLS as readonly string[]).includes(tool.name) ? "owning a task" : "with `delegate`",
    })),
  ];
}

function toolsMarkdown(): string {
  // "reads": the tool declares the files whose content it returns, so a read_file deny rule refuses it (read-gate.ts).
  const out = ["| tool | who has it | declares reads | does |", "|---|---|---|---|"];
  for (const { tool, who } of registeredTools()) out.push(`| \`${tool.name}\` | ${who} | ${tool.reads ? "declared" : ""} | ${cell(firstSentence(tool.description))} |`);
  return out.join("\n");
}

/** `orca --help` as it prints: every subcommand and option, from the table the parser reads. */
function helpMarkdown(): string {
  return ["```", HELP, "```"].join("\n");
}

/** Each event type with its fields (`?` marks an optional one: old logs may lack it). */
function eventsMarkdown(): string {
  const out = ["| event | fields (besides `ts`, `sessionId`, `agentId`, `parentId?`) |", "|---|---|"];
  for (const option of eventSchema().options) {
    const shape = option.shape as Record<string, { safeParse(v: unknown): { success: boolean } }>;
    const type = (option.shape.type as { value: string }).value;
    const fields = Object.entries(shape)
      .filter(([name]) => !["ts", "sessionId", "agentId", "parentId", "type"].includes(name))
      .map(([name, schema]) => `\`${name}${schema.safeParse(undefined).success ? "?" : ""}\``);
    out.push(`| \`${type}\` | ${fields.join(", ") || "—"} |`);
  }
  return out.join("\n");
}

export interface DocTable {
  /** The doc, relative to the repository root. */
  file: string;
  /** The marker name: `<!-- name:start -->` … `<!-- name:end -->`. */
  name: string;
  render(): string;
}

export const DOC_TABLES: readonly DocTable[] = [
  { file: "docs/dashboard.md", name: "commands", render: () => commandsMarkdown() },
  { file: "docs/dashboard.md", name: "keys", render: () => keysMarkdown(DEFAULT_KEYMAP) },
  { file: "docs/tools.md", name: "tools", render: toolsMarkdown },
  { file: "docs/cli.md", name: "help", render: helpMarkdown },
  { file: "docs/events.md", name: "events", render: eventsMarkdown },
];

const blockPattern = (name: string): RegExp => new RegExp(`(<!-- ${name}:start -->\\n)([\\s\\S]*?)\\n?(<!-- ${name}:end -->)`);

/** The text between a table's markers in a doc, or undefined when the markers are missing. */
export function blockOf(text: string, name: string): string | undefined {
  return blockPattern(name).exec(text)?.[2];
}

function withBlock(text: string, name: string, body: string): string {
  if (blockOf(text, name) === undefined) throw new Error(`no <!-- ${name}:start --> … <!-- ${name}:end --> markers`);
  return text.replace(blockPattern(name), (_, start: string, _old: string, end: string) => `${start}${body}\n${end}`);
}

function main(): void {
  const check = process.argv.includes("--check");
  const stale: string[] = [];
  for (const table of DOC_TABLES) {
    const file = path.join(ROOT, table.file);
    const text = fs.readFileSync(file, "utf8");
    const next = withBlock(text, table.name, table.render());
    if (next === text) continue;
    stale.push(`${table.file} (${table.name})`);
    if (!check) fs.writeFileSync(file, next);
  }
  if (check && stale.length) {
    console.error(`docs tables out of date: ${stale.join(", ")}; run npm run docs:tables`);
    process.exit(1);
  }
  for (const s of stale) console.log(`rewrote ${s}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
