import { parseArgs } from "node:util";
import { checkBaseUrl, describeBaseUrlProblem } from "../config/base-url.js";
import { permissionModeSchema, type PermissionMode } from "../config/schema.js";
import { closest } from "../util/edit-distance.js";
import type { SessionStatus } from "../events/types.js";
import type { CliArgs, Subcommand } from "./types.js";
import { commandUsage, OPTIONS, optionUsage, SUBCOMMANDS, TOKENIZER_OPTIONS, UsageError, type OptionSpec } from "./usage.js";

export { HELP } from "./usage.js";

/**
 * The command line, read with node:util's tokenizer (non-strict, so it never throws its own text)
 * and checked here, so every mistake is one `orca:` line in orca's words plus the usage that
 * helps. parseArgs alone cannot express `--resume [ID]` nor a value that starts with a dash.
 */

const BY_LONG = new Map(OPTIONS.map((o) => [o.name, o]));
const BY_SHORT = new Map(OPTIONS.filter((o) => o.short).map((o) => [o.short!, o]));

interface Positional {
  value: string;
  /** After `--`: always part of the prompt, never a command. */
  forced: boolean;
}

export function parseCli(argv: string[]): CliArgs {
  const { tokens } = parseArgs({ args: argv, options: TOKENIZER_OPTIONS, strict: false, allowPositionals: true, tokens: true });
  const values = new Map<string, string | true>();
  const positionals: Positional[] = [];
  let forced = false;
  let resume: string | true | undefined;

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === "option-terminator") {
      forced = true;
      continue;
    }
    if (token.kind === "positional") {
      positionals.push({ value: token.value, forced });
      continue;
    }
    const spec = BY_LONG.get(token.name);
    if (!spec || (token.rawName.startsWith("--") ? token.rawName !== `--${spec.name}` : token.rawName !== `-${spec.short}`)) {
      throw unknownOption(token.rawName);
    }
    const flag = `--${spec.name}`;
    if (spec.kind === "boolean") {
      if (token.value !== undefined) throw new UsageError(`${flag} takes no value (got "${token.value}")`, optionUsage(spec.name));
      values.set(spec.name, true);
    } else if (spec.kind === "optional") {
      // `--resume ID` or `--resume=ID`: the id is one word right after it; anything else (another
      // option, a prompt of several words, nothing) leaves it without one.
      const next = tokens[i + 1];
      if (token.value !== undefined) resume = nonEmpty(token.value, spec);
      else if (next?.kind === "positional" && next.index === token.index + 1 && /^[^\s-]\S*$/.test(next.value)) {
        resume = next.value;
        i++;
      } else resume = true;
    } else {
      values.set(spec.name, valueOf(token.value, token.inlineValue === true, spec));
    }
  }

  const str = (name: string): string | undefined => {
    const v = values.get(name);
    return typeof v === "string" ? v : undefined;
  };
  const bool = (name: string): boolean => values.get(name) === true;

  const subcommand = readSubcommand(positionals);
  // `orca worktrees prune`: the one command that takes a word after it.
  const subcommandArgs = (subcommand === "worktrees" || subcommand === "undo" || subcommand === "permissions") && positionals.length > 1 ? positionals.slice(1).map((p) => p.value) : undefined;
  const words = subcommand ? [] : positionals.map((p) => p.value);
  const prompt = words.length ? words.join(" ") : undefined;
  if (prompt !== undefined && !prompt.trim()) {
    throw new UsageError("the prompt is empty: write what orca should do", commandUsage());
  }

  const format = str("output-format") ?? "text";
  if (format !== "text" && format !== "json" && format !== "stream-json") {
    throw new UsageError(`--output-format "${format}" is not valid: use text, json or stream-json`, optionUsage("output-format"));
  }
  let maxSteps: number | undefined;
  const rawSteps = str("max-steps");
  if (rawSteps !== undefined) {
    maxSteps = /^\s*\d+\s*$/.test(rawSteps) ? Number(rawSteps) : NaN;
    if (!Number.isSafeInteger(maxSteps) || maxSteps < 1) {
      throw new UsageError(`--max-steps "${rawSteps}" is not valid: give a whole number, 1 or more`, optionUsage("max-steps"));
    }
  }
  let maxCostUsd: number | undefined;
  const rawCost = str("max-cost");
  if (rawCost !== undefined) {
    maxCostUsd = /^\s*\$?\d*\.?\d+\s*$/.test(rawCost) ? Number(rawCost.trim().replace(/^\$/, "")) : NaN;
    if (!Number.isFinite(maxCostUsd) || maxCostUsd <= 0) {
      throw new UsageError(`--max-cost "${rawCost}" is not valid: give an amount in USD above 0, e.g. 0.50`, optionUsage("max-cost"));
    }
  }
  let permissionMode: PermissionMode | undefined;
  const rawMode = str("permission-mode");
  if (rawMode !== undefined) {
    const mode = permissionModeSchema.safeParse(rawMode);
    if (!mode.success) throw new UsageError(`--permission-mode "${rawMode}" is not valid: use default, accept-edits, plan or bypass`, optionUsage("permission-mode"));
    permissionMode = mode.data;
  }
  const baseUrl = str("base-url");
  if (baseUrl !== undefined) {
    const problem = checkBaseUrl(baseUrl);
    if (problem) throw new UsageError(describeBaseUrlProblem("--base-url", baseUrl, problem), optionUsage("base-url"));
  }
  if (bool("demo") && bool("print")) throw new UsageError("--demo opens the dashboard; it cannot be combined with -p", commandUsage());
  if (bool("all") && subcommand !== "sessions") throw new UsageError("--all only applies to orca sessions", optionUsage("all"));
  if (bool("reap") && subcommand !== "sessions") throw new UsageError("--reap only applies to orca sessions", optionUsage("reap"));
  for (const name of ["project", "user"]) if (values.has(name) && subcommand !== "permissions") throw new UsageError(`--${name} only applies to orca permissions remove`, optionUsage(name));
  if (values.has("project") && values.has("user")) throw new UsageError("--project and --user: name one config file", optionUsage("user"));
  if (bool("no-continue") && resume === undefined && !bool("continue")) throw new UsageError("--no-continue only applies with --resume or --continue", optionUsage("no-continue"));
  for (const name of ["force", "checkpoint"]) if (values.has(name) && subcommand !== "undo") throw new UsageError(`--${name} only applies to orca undo`, optionUsage(name));

  return {
    prompt,
    print: bool("print"),
    outputFormat: format,
    demo: bool("demo"),
    workspace: str("workspace") ?? process.cwd(),
    configFile: str("config"),
    model: str("model"),
    baseUrl,
    agent: str("agent"),
    maxSteps,
    ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
    permissionMode,
    yes: bool("yes"),
    resume,
    continue: bool("continue"),
    ...(bool("no-continue") ? { noContinue: true } : {}),
    version: bool("version"),
    help: bool("help"),
    all: bool("all"),
    reap: bool("reap"),
    force: bool("force"),
    ...(bool("user") ? { ruleScope: "user" as const } : bool("project") ? { ruleScope: "project" as const } : {}),
    checkpoint: str("checkpoint"),
    subcommand,
    ...(subcommandArgs ? { subcommandArgs } : {}),
  };
}

/**
 * A first word that is a command runs it; one that is a near miss (`sesions`) is a usage error,
 * not a prompt sent to the model. Only a prompt of one bare word is taken for a mistyped command:
 * "map the repo" is a request, not `orca mcp`.
 */
function readSubcommand(positionals: readonly Positional[]): Subcommand | undefined {
  const first = positionals[0];
  if (!first || first.forced) return undefined;
  const exact = SUBCOMMANDS.find((s) => s === first.value);
  if (exact) {
    if (exact === "worktrees" && positionals.length === 2 && positionals[1]!.value === "prune") return exact;
    if (exact === "undo" && positionals.length <= 2) return exact;
    if (exact === "permissions" && (positionals.length === 1 || (positionals.length === 3 && positionals[1]!.value === "remove"))) return exact;
    if (positionals.length > 1) {
      const words = positionals.map((p) => p.value).join(" ");
      throw new UsageError(`orca ${exact} takes no arguments (to send "${words}" as a prompt: orca -- ${words})`, commandUsage());
    }
    return exact;
  }
  if (positionals.length !== 1 || !/^[a-z][a-z_-]*$/i.test(first.value)) return undefined;
  const near = closest(first.value.toLowerCase(), SUBCOMMANDS, (s) => (s.length <= 3 ? 1 : 2));
  if (!near) return undefined;
  throw new UsageError(`unknown command "${first.value}": did you mean \`orca ${near}\`? (to send it as a prompt: orca -- ${first.value})`, commandUsage());
}

function unknownOption(raw: string): UsageError {
  const name = raw.replace(/^-+/, "").split("=")[0]!;
  const long = raw.startsWith("--") ? closest(name, OPTIONS.map((o) => o.name), () => 2) : undefined;
  const hint = long ? `: did you mean --${long}?` : "";
  return new UsageError(`unknown option ${raw}${hint}`, long ? optionUsage(long) : commandUsage());
}

/** A value option's value; a dash-led next word is taken only when it is not itself an option (`--max-steps -3`). */
function valueOf(value: string | undefined, inline: boolean, spec: OptionSpec): string {
  const flag = `--${spec.name}`;
  if (value === undefined || (!inline && value === "--")) throw new UsageError(`${flag} needs a value${spec.arg ? ` (${spec.arg})` : ""}`, optionUsage(spec.name));
  if (!inline && value.length > 1 && value.startsWith("-") && !/^-\d/.test(value)) {
    const option = value.startsWith("--") ? BY_LONG.get(value.slice(2).split("=")[0]!) : BY_SHORT.get(value[1]!);
    const why = option ? `, and "${value}" is an option` : `; write ${flag}=${value} if "${value}" is the value`;
    throw new UsageError(`${flag} needs a value${spec.arg ? ` (${spec.arg})` : ""}${why}`, optionUsage(spec.name));
  }
  return nonEmpty(value, spec);
}

function nonEmpty(value: string, spec: OptionSpec): string {
  if (!value.trim()) throw new UsageError(`--${spec.name} needs a value, not an empty one`, optionUsage(spec.name));
  return value;
}

/**
 * Exit codes of §11, by how the run ended. The statuses are the typed outcomes of the failures that
 * end a run (util/errors.ts): a BudgetExceeded (or the step limit) is 3, a Cancelled 130, any
 * other failure 1. A Record, so a new status cannot be left unmapped.
 */
const EXIT_CODES: Record<SessionStatus, number> = {
  done: 0,
  idle: 0,
  max_steps: 3,
  budget: 3,
  cancelled: 130,
  failed: 1,
  loop: 1,
};

export function exitCodeFor(status: SessionStatus): number {
  return EXIT_CODES[status];
}
