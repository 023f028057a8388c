import fs from "node:fs";
import path from "node:path";
import { splitAllowedTools } from "./allowed-tools.js";
import { readSkillFrontMatter, skillSource } from "./frontmatter.js";

/**
 * Custom slash commands: Markdown prompts in `.orca/commands/*.md` and `.claude/commands/*.md`
 * (the workspace's, loaded only when the folder is trusted, as its other settings are) and in
 * `~/.config/orca/commands/` and `~/.claude/commands/` (the user's). Front matter as Claude Code
 * reads it: description, argument-hint, allowed-tools, model. `$ARGUMENTS` and `$1…$9` are
 * replaced by what follows the command.
 */
export interface CustomCommand {
  name: string;
  description: string;
  argumentHint: string;
  /** Shown, never applied: a command file does not widen what the person's permission rules allow. */
  allowedTools: string[];
  /** The model this command's turn runs on (the session's model comes back after it). */
  model?: string;
  body: string;
  file: string;
  origin: "project" | "user";
}

export interface LoadedCommands {
  commands: CustomCommand[];
  /** One line each: a file that could not be used, and why. */
  skipped: string[];
}

export const COMMAND_DIRS = [".orca/commands", ".claude/commands"] as const;

const NAME = /^[A-Za-z][\w-]*$/;
const MAX_BYTES = 64 * 1024;

export function commandDirs(workspace: string, home: string | undefined, trusted: boolean): { dir: string; origin: CustomCommand["origin"] }[] {
  const project = trusted ? COMMAND_DIRS.map((d) => ({ dir: path.join(workspace, d), origin: "project" as const })) : [];
  const user = home ? [path.join(home, ".config/orca/commands"), path.join(home, ".claude/commands")].map((dir) => ({ dir, origin: "user" as const })) : [];
  return [...project, ...user];
}

/**
 * The commands of every folder, the first of a name winning (the workspace's before the user's,
 * `.orca` before `.claude`); `reserved` (the built-in commands) are never shadowed.
 */
export function loadCommands(dirs: readonly { dir: string; origin: CustomCommand["origin"] }[], reserved: readonly string[]): LoadedCommands {
  const commands: CustomCommand[] = [];
  const skipped: string[] = [];
  for (const { dir, origin } of dirs) {
    let names: string[];
    try {
      names = fs.readdirSync(dir).filter((n) => n.endsWith(".md")).sort();
    } catch {
      continue;
    }
    for (const entry of names) {
      const file = path.join(dir, entry);
      const name = entry.slice(0, -3).toLowerCase();
      if (!NAME.test(name)) {
        skipped.push(`${file}: "${entry}" is not a command name (letters, digits, - and _)`);
        continue;
      }
      if (reserved.includes(name)) {
        skipped.push(`${file}: /${name} is a built-in command`);
        continue;
      }
      if (commands.some((c) => c.name === name)) continue;
      const parsed = readCommand(file);
      if ("error" in parsed) skipped.push(`${file}: ${parsed.error}`);
      else commands.push({ ...parsed, name, file, origin });
    }
  }
  return { commands, skipped };
}

function readCommand(file: string): Omit<CustomCommand, "name" | "file" | "origin"> | { error: string } {
  let text: string;
  try {
    // lstat: a symlink in a project's folder could point anywhere on the machine.
    const stat = fs.lstatSync(file);
    if (!stat.isFile()) return { error: "not a regular file" };
    if (stat.size > MAX_BYTES) return { error: `${stat.size} bytes, more than ${MAX_BYTES}` };
    text = skillSource(fs.readFileSync(file, "utf8"));
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  let data: Record<string, unknown> = {};
  let body = text;
  if (/^---[ \t]*\r?\n/.test(text)) {
    try {
      const fm = readSkillFrontMatter(text);
      if (typeof fm.data === "object" && fm.data !== null && !Array.isArray(fm.data)) data = fm.data as Record<string, unknown>;
      body = fm.content;
    } catch (error) {
      return { error: `front matter is not valid YAML: ${(error instanceof Error ? error.message : String(error)).split("\n")[0]}` };
    }
  }
  const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v.trim() : undefined);
  const tools = data["allowed-tools"];
  const allowedTools = Array.isArray(tools) ? tools.filter((t): t is string => typeof t === "string") : splitAllowedTools(str(tools) ?? "");
  body = body.trim();
  return {
    description: str(data.description) ?? body.split("\n")[0]!.slice(0, 80),
    argumentHint: str(data["argument-hint"]) ?? "",
    allowedTools,
    ...(str(data.model) ? { model: str(data.model) } : {}),
    body,
  };
}

/** Splits arguments as a shell would for $1…$9: spaces separate, quotes group. */
export function splitArguments(args: string): string[] {
  const out: string[] = [];
  for (const m of args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/** The prompt a command sends: `$ARGUMENTS`, then `$1`…`$9`, replaced; arguments a body never names are appended. */
export function expandCommand(command: Pick<CustomCommand, "body">, args: string): string {
  const positional = splitArguments(args);
  const names = /\$ARGUMENTS|\$[1-9]/.test(command.body);
  const body = command.body.replace(/\$ARGUMENTS|\$([1-9])/g, (token, n: string | undefined) => (n ? (positional[Number(n) - 1] ?? "") : args));
  return names || !args ? body : `${body}\n\nARGUMENTS: ${args}`;
}
