import type { PermissionMode } from "../config/schema.js";

/** Types the cli modules share; here so that main.ts and the commands it runs do not import each other. */

export type OutputFormat = "text" | "json" | "stream-json";
export type Subcommand = "agents" | "tools" | "mcp" | "skills" | "sessions" | "hooks" | "worktrees" | "doctor" | "undo" | "permissions";

export interface CliArgs {
  prompt?: string;
  print: boolean;
  outputFormat: OutputFormat;
  demo: boolean;
  workspace: string;
  configFile?: string;
  model?: string;
  baseUrl?: string;
  agent?: string;
  maxSteps?: number;
  /** --max-cost, USD. */
  maxCostUsd?: number;
  permissionMode?: PermissionMode;
  yes: boolean;
  resume?: string | true;
  continue: boolean;
  /** --no-continue: a resumed run that stopped with sub-agents at work is reopened, not continued. */
  noContinue?: boolean;
  version: boolean;
  help: boolean;
  /** `orca sessions --all`: also the sessions that never got an answer. */
  all: boolean;
  /** `orca sessions --reap`: end what crashed runs left running. */
  reap: boolean;
  /** `orca undo --force`: restore files changed since by someone else too. */
  force: boolean;
  /** `orca permissions remove RULE --project | --user`: which config file. */
  ruleScope?: "project" | "user";
  /** `orca undo --checkpoint ID`. */
  checkpoint?: string;
  subcommand?: Subcommand;
  /** What follows the subcommand (`orca worktrees prune`). */
  subcommandArgs?: string[];
}

/** The process streams and environment, passed in so tests can run main() in-process. */
export interface MainIo {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}
