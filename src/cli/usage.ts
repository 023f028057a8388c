import { ConfigError } from "../util/errors.js";
import type { Subcommand } from "./types.js";

/**
 * orca's options and usage text, in one table: `orca --help`, the parser (args.ts) and the usage
 * printed under an error all read it, so they cannot disagree.
 */

export interface OptionSpec {
  name: string;
  short?: string;
  /** "string" takes a value; "optional" may take one (`--resume [ID]`); "boolean" takes none. */
  kind: "string" | "boolean" | "optional";
  /** How the value is written in the help: `DIR`, `[ID]`. */
  arg?: string;
  help: string;
}

export const OPTIONS: readonly OptionSpec[] = [
  { name: "print", short: "p", kind: "boolean", help: "headless: run to completion and print the result" },
  { name: "output-format", kind: "string", arg: "FORMAT", help: "text | json | stream-json (with -p)" },
  { name: "demo", kind: "boolean", help: "the dashboard on a built-in scripted model and a sample project" },
  { name: "workspace", short: "w", kind: "string", arg: "DIR", help: "the directory agents work in (default: current directory)" },
  { name: "config", short: "c", kind: "string", arg: "FILE", help: "config file (default: .orca/config.yaml, ~/.config/orca/config.yaml)" },
  { name: "model", short: "m", kind: "string", arg: "NAME", help: "model name (env ORCA_MODEL)" },
  { name: "base-url", kind: "string", arg: "URL", help: "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (env OPENAI_BASE_URL)" },
  { name: "agent", kind: "string", arg: "NAME", help: "start with this agent instead of the coordinator" },
  { name: "max-steps", kind: "string", arg: "N", help: "step limit per agent (a whole number, 1 or more)" },
  { name: "max-cost", kind: "string", arg: "USD", help: "money budget of the run (budget.max_cost_usd): stops before passing it, exit 3" },
  { name: "permission-mode", kind: "string", arg: "MODE", help: "default | accept-edits | plan | bypass" },
  { name: "yes", short: "y", kind: "boolean", help: "headless: approve what would ask (deny rules still apply)" },
  { name: "resume", kind: "optional", arg: "[ID]", help: "resume a session (without an id: pick one, or the latest with -p)" },
  { name: "continue", kind: "boolean", help: "continue the latest session of this workspace" },
  { name: "no-continue", kind: "boolean", help: "with --resume/--continue: reopen a run that stopped with sub-agents at work without continuing them" },
  { name: "all", kind: "boolean", help: "orca sessions: also list sessions that never got an answer" },
  { name: "reap", kind: "boolean", help: "orca sessions: end the processes crashed runs left running" },
  { name: "checkpoint", kind: "string", arg: "ID", help: "orca undo: restore the files as they were at this checkpoint" },
  { name: "force", kind: "boolean", help: "orca undo: also restore files changed since by someone else" },
  { name: "project", kind: "boolean", help: "orca permissions remove: the rule is in this project's .orca/config.yaml (the default)" },
  { name: "user", kind: "boolean", help: "orca permissions remove: the rule is in ~/.config/orca/config.yaml" },
  { name: "version", short: "v", kind: "boolean", help: "print the version" },
  { name: "help", short: "h", kind: "boolean", help: "this help" },
];

/** The options as node:util's parseArgs reads them (its tokens; args.ts checks them). */
export const TOKENIZER_OPTIONS = Object.fromEntries(
  OPTIONS.map((o) => [o.name, { type: o.kind === "string" ? ("string" as const) : ("boolean" as const), ...(o.short ? { short: o.short } : {}) }]),
);

export const SUBCOMMANDS: readonly Subcommand[] = ["agents", "tools", "mcp", "skills", "sessions", "hooks", "worktrees", "doctor", "undo", "permissions"];

const SYNOPSIS = [
  "usage: orca [options] [prompt]            the dashboard (with a first prompt if given)",
  "       orca -p [options] [prompt]         headless; the prompt from stdin if omitted",
  "       orca --demo                        a scripted demo, no API key needed",
  `       orca ${SUBCOMMANDS.join(" | ")}`,
];

const MORE = "run `orca --help` for every option";

function optionLine(spec: OptionSpec): string {
  const flag = `${spec.short ? `-${spec.short}, ` : "    "}--${spec.name}${spec.arg ? ` ${spec.arg}` : ""}`;
  return `  ${flag.padEnd(30)}${spec.help}`;
}

export const HELP = `orca — a terminal multi-agent orchestrator

Usage
  orca [prompt]                 open the dashboard in the current directory (optionally starting with a prompt)
  orca -p, --print [prompt]     headless: run to completion and print the result (prompt from stdin if omitted)
  orca --demo                   the dashboard on a built-in scripted model and a sample project (no API key)
  orca agents | tools | mcp | skills | hooks
                                list what is loaded, and why something failed to load
  orca sessions [--all]         the sessions you can resume (--all: also those that never got an answer)
  orca sessions --reap          end the processes crashed runs left running (a resume does it too)
  orca doctor                   whether commands are sandboxed here (and why not), outside programs, Node
  orca worktrees [prune]        git worktrees kept for isolated sub-agents; prune removes them
  orca undo SESSION [--agent ID | --checkpoint ID] [--force]
                                put back the files a session (or one agent, or everything after a checkpoint) changed
  orca -- PROMPT                everything after -- is the prompt, even a word like "sessions"

Options
${OPTIONS.map(optionLine).join("\n")}

Exit codes: 0 done · 1 failed · 2 usage or config error · 3 a budget reached (steps, tokens, cost, time) · 130 cancelled`;

/** A mistake on the command line: one `orca:` line, then the usage that helps fix it (exit 2). */
export class UsageError extends ConfigError {
  constructor(
    message: string,
    readonly usage: readonly string[],
  ) {
    super(message);
  }
}

/** The usage to show under an error about one option: the synopsis line and that option. */
export function optionUsage(name: string): string[] {
  const spec = OPTIONS.find((o) => o.name === name);
  return [SYNOPSIS[0]!, ...(spec ? [optionLine(spec)] : []), MORE];
}

/** The usage to show under an error about the command or prompt. */
export function commandUsage(): string[] {
  return [...SYNOPSIS, MORE];
}
