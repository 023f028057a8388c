import { parseArgs } from "node:util";
import { ConfigError } from "../config/errors.js";
import { permissionModeSchema, type PermissionMode } from "../config/schema.js";
import type { CliArgs, Subcommand } from "./types.js";

const SUBCOMMANDS: readonly Subcommand[] = ["agents", "tools", "mcp", "skills", "sessions", "hooks", "worktrees"];

export const HELP = `orca — a terminal multi-agent orchestrator

Usage
  orca [prompt]                 open the dashboard in the current directory (optionally starting with a prompt)
  orca -p, --print [prompt]     headless: run to completion and print the result (prompt from stdin if omitted)
  orca --demo                   the dashboard on a built-in scripted model and a sample project (no API key)
  orca agents | tools | mcp | skills | sessions | hooks
                                list what is loaded, and why something failed to load
  orca worktrees [prune]        git worktrees kept for isolated sub-agents; prune removes them

Options
  -w, --workspace DIR           the directory agents work in (default: current directory)
  -c, --config FILE             config file (default: .orca/config.yaml, ~/.config/orca/config.yaml)
  -m, --model NAME              model name (env ORCA_MODEL)
      --base-url URL            OpenAI-compatible endpoint (env OPENAI_BASE_URL); key from OPENAI_API_KEY
      --agent NAME              start with this agent instead of the coordinator
      --max-steps N             step limit per agent
      --permission-mode MODE    default | accept-edits | plan | bypass
      --yes                     headless: approve what would ask (deny rules still apply)
      --output-format FORMAT    text | json | stream-json (with -p)
      --resume [ID]             resume a session (the latest when no id)
      --continue                continue the latest session of this workspace
      --version                 print the version
  -h, --help                    this help

Exit codes: 0 done · 1 failed · 2 usage or config error · 3 step or token budget reached · 130 cancelled`;

export function parseCli(argv: string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        print: { type: "boolean", short: "p" },
        "output-format": { type: "string" },
        demo: { type: "boolean" },
        workspace: { type: "string", short: "w" },
        config: { type: "string", short: "c" },
        model: { type: "string", short: "m" },
        "base-url": { type: "string" },
        agent: { type: "string" },
        "max-steps": { type: "string" },
        "permission-mode": { type: "string" },
        yes: { type: "boolean", short: "y" },
        resume: { type: "boolean" },
        continue: { type: "boolean" },
        version: { type: "boolean", short: "v" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new ConfigError(`${(error as Error).message.split("\n")[0]} (see orca --help)`);
  }
  const { values } = parsed;
  let positionals = [...parsed.positionals];

  let subcommand: Subcommand | undefined;
  let subcommandArgs: string[] | undefined;
  if (positionals.length === 1 && (SUBCOMMANDS as readonly string[]).includes(positionals[0]!)) {
    subcommand = positionals[0] as Subcommand;
    positionals = [];
  } else if (positionals.length === 2 && positionals[0] === "worktrees") {
    subcommand = "worktrees";
    subcommandArgs = positionals.slice(1);
    positionals = [];
  }

  // `--resume ID`: parseArgs cannot express an optional value, so take the id from the positionals.
  let resume: string | true | undefined;
  if (values.resume) {
    const idIndex = argv.indexOf("--resume") + 1;
    const next = argv[idIndex];
    if (next && !next.startsWith("-") && positionals[0] === next) {
      resume = next;
      positionals.shift();
    } else {
      resume = true;
    }
  }

  const format = values["output-format"] ?? "text";
  if (format !== "text" && format !== "json" && format !== "stream-json") {
    throw new ConfigError(`--output-format must be text, json or stream-json, not "${format}"`);
  }
  let maxSteps: number | undefined;
  if (values["max-steps"] !== undefined) {
    maxSteps = Number(values["max-steps"]);
    if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new ConfigError(`--max-steps must be a positive whole number`);
  }
  let permissionMode: PermissionMode | undefined;
  if (values["permission-mode"] !== undefined) {
    const mode = permissionModeSchema.safeParse(values["permission-mode"]);
    if (!mode.success) throw new ConfigError(`--permission-mode must be one of default, accept-edits, plan, bypass`);
    permissionMode = mode.data;
  }
  if (values.demo && values.print) throw new ConfigError("--demo opens the dashboard; it cannot be combined with -p");

  return {
    prompt: positionals.length ? positionals.join(" ") : undefined,
    print: Boolean(values.print),
    outputFormat: format,
    demo: Boolean(values.demo),
    workspace: values.workspace ?? process.cwd(),
    configFile: values.config,
    model: values.model,
    baseUrl: values["base-url"],
    agent: values.agent,
    maxSteps,
    permissionMode,
    yes: Boolean(values.yes),
    resume,
    continue: Boolean(values.continue),
    version: Boolean(values.version),
    help: Boolean(values.help),
    subcommand,
    ...(subcommandArgs ? { subcommandArgs } : {}),
  };
}

/** Exit codes of §11. */
export function exitCodeFor(status: string): number {
  switch (status) {
    case "done":
    case "idle":
      return 0;
    case "max_steps":
    case "budget":
      return 3;
    case "cancelled":
      return 130;
    default:
      return 1;
  }
}
