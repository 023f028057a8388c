import os from "node:os";
import { parseArgs } from "node:util";
import { mayHaveProjectSettings } from "../config/project-setting-sources.js";
import { OPTIONS, SUBCOMMANDS, TOKENIZER_OPTIONS } from "./usage.js";

/** The model `orca --demo` runs when the command line names none. */
export const DEMO_MODEL = "orca-demo";

const KNOWN = new Set(OPTIONS.map((o) => o.name));

/**
 * The bundle's second entry. bin/orca.js loads it before the rest of orca, in a terminal: the dashboard's first
 * frame is drawn as soon as Ink can draw it, from what the command line alone says, while the
 * runtime behind it (the model's client, the config and its schemas, the session) loads and
 * starts; runDashboard then draws on it (src/ui/early-frame-slot.ts). Only a command line that
 * certainly opens the dashboard straight away gets one — read with the same tokenizer and option
 * table as args.ts: in a terminal, no help, version or subcommand, no unknown option; `--demo`, or
 * plain `orca` with nothing drawn before the dashboard: no -p, no --resume / --continue (their
 * picker, their "resuming" line, a recorded workspace to decide trust for), and a workspace with
 * no project settings at all, so the trust prompt cannot show (one that has some gets no early
 * frame even when trusted: the trust list's place needs the config loaded). If orca still ends
 * without the dashboard (a value args.ts refuses, a failed start), main gives the terminal back
 * before it says why; if the trust prompt shows after all, it is given back before the prompt.
 */
export async function paintFirstFrame(
  argv: string[],
  stdin: NodeJS.ReadStream = process.stdin,
  stdout: NodeJS.WriteStream = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  if (!stdin.isTTY || !stdout.isTTY) return;
  const { tokens } = parseArgs({ args: argv, options: TOKENIZER_OPTIONS, strict: false, allowPositionals: true, tokens: true });
  let demo = false;
  let model: string | undefined;
  let workspace = ".";
  let configFile: string | undefined;
  let first = true;
  let plain = true;
  for (const token of tokens) {
    if (token.kind === "option-terminator") break;
    if (token.kind === "positional") {
      if (first && (SUBCOMMANDS as readonly string[]).includes(token.value)) return;
      first = false;
      continue;
    }
    if (!KNOWN.has(token.name) || token.name === "help" || token.name === "version") return;
    if (token.name === "print" || token.name === "resume" || token.name === "continue") plain = false;
    if (token.name === "demo") demo = true;
    if (token.name === "model") model = token.value;
    if (token.name === "workspace") workspace = token.value ?? workspace;
    if (token.name === "config") configFile = token.value;
  }
  if (!demo && (!plain || mayAskTrust(workspace, configFile, env))) return;
  // Ink and React load only here, for a frame that will be drawn: `orca sessions` in a terminal does without them.
  const { paintEarlyFrame } = await import("../ui/early-frame.js");
  paintEarlyFrame({ stdin, stdout, demo, model: demo ? model || DEMO_MODEL : model || undefined });
}

/** Whether interactive orca may ask about trust in `workspace` (src/cli/interactive.ts decideTrust); a folder it cannot look into may. */
function mayAskTrust(workspace: string, configFile: string | undefined, env: NodeJS.ProcessEnv): boolean {
  try {
    return mayHaveProjectSettings(workspace, { configFile, home: env.HOME ?? os.homedir() });
  } catch {
    return true;
  }
}
