import type { TokenCounter } from "../../util/token-counter.js";
import type { AnyTool } from "../tool.js";
import { bashTool } from "./bash.js";
import { bashKillTool } from "./bash-kill.js";
import { bashOutputTool } from "./bash-output.js";
import { editFileTool } from "./edit-file.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { listDirTool } from "./list-dir.js";
import { readFileTool } from "./read-file.js";
import type { ShellManager } from "./shells.js";
import { writeFileTool } from "./write-file.js";

export interface BuiltinOptions {
  shells: ShellManager;
  bashTimeoutMs: number;
  maxOutputTokens: number;
  /** Measures tool output against maxOutputTokens (the composition passes model/'s tokenizer). */
  tokens: TokenCounter;
  readOnlyCommands: string[];
}

/** The built-in tools except get_skill and delegate, which live with skills and the orchestrator. */
export function builtinTools(opts: BuiltinOptions): AnyTool[] {
  return [
    readFileTool(opts),
    writeFileTool(),
    editFileTool(),
    listDirTool(),
    globTool(),
    grepTool(opts),
    bashTool(opts),
    bashOutputTool(opts),
    bashKillTool(opts),
  ];
}

export { ShellManager } from "./shells.js";
export type { ShellManagerOptions, ShellRead, ShellStatus } from "./shells.js";
