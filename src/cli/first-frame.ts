import { parseArgs } from "node:util";
import { paintEarlyFrame } from "../ui/early-frame.js";
import { OPTIONS, SUBCOMMANDS, TOKENIZER_OPTIONS } from "./usage.js";

/** The model `orca --demo` runs when the command line names none. */
export const DEMO_MODEL = "orca-demo";

const KNOWN = new Set(OPTIONS.map((o) => o.name));

/**
 * The bundle's second entry. bin/orca.js loads it before the rest of orca when the command line
 * says `--demo`: the dashboard's first frame is drawn as soon as Ink can draw it, from what the
 * command line alone says, while the runtime behind it (the model's client, the config and its
 * schemas, the scripted server, the session) loads and starts; runDashboard then draws on it
 * (src/ui/early-frame-slot.ts). Only a command line that certainly opens the demo's dashboard
 * gets one — read with the same tokenizer and option table as args.ts: in a terminal, no help,
 * version or subcommand, no unknown option. If orca still ends without the dashboard (a value
 * args.ts refuses, a failed start), main gives the terminal back before it says why.
 */
export function paintFirstFrame(argv: string[], stdin: NodeJS.ReadStream = process.stdin, stdout: NodeJS.WriteStream = process.stdout): void {
  if (!stdin.isTTY || !stdout.isTTY) return;
  const { tokens } = parseArgs({ args: argv, options: TOKENIZER_OPTIONS, strict: false, allowPositionals: true, tokens: true });
  let demo = false;
  let model: string | undefined;
  let first = true;
  for (const token of tokens) {
    if (token.kind === "option-terminator") break;
    if (token.kind === "positional") {
      if (first && (SUBCOMMANDS as readonly string[]).includes(token.value)) return;
      first = false;
      continue;
    }
    if (!KNOWN.has(token.name) || token.name === "help" || token.name === "version") return;
    if (token.name === "demo") demo = true;
    if (token.name === "model") model = token.value;
  }
  if (demo) paintEarlyFrame({ stdin, stdout, demo: true, model: model || DEMO_MODEL });
}
