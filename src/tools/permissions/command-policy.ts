import type { SandboxRequest } from "../sandbox/types.js";
import type { ShellAnalysis } from "../shell/index.js";
import type { Workspace } from "../workspace.js";
import { gitContentReads, trackedFiles } from "./git-content.js";
import { protectedReason } from "./protected-paths.js";

/**
 * What auto-approval of a bash command rests on, besides the sandbox: the command names no path
 * outside the workspace (`../x`, `/etc/x`, `~/x`, a link that leads out) and no file a
 * `read_file(PATTERN)` deny hides. A command that does is shown to a person instead, whatever it
 * would run in: the read-only sandbox stops writes, not reads.
 */

/** Outside the workspace, yet nothing to read. */
const HARMLESS_OUTSIDE = /^\/dev\/(null|stdin|stdout|stderr|fd\/\d+)$/;

export interface AutoApprovalCheck {
  workspace: Workspace;
  /** The `read_file(PATTERN)` deny rule hiding a workspace-relative path, if any. */
  readDenied(relative: string): string | undefined;
  /** Refuse words only known at run time too (`cat $F`): their paths cannot be checked. */
  knownWordsOnly: boolean;
}

/** Why the command must not run unasked, or null. */
export function autoApprovalProblem(analysis: ShellAnalysis, check: AutoApprovalCheck): string | null {
  let tracked: string[] | null | undefined;
  for (const command of analysis.commands) {
    for (const run of command.runs) {
      const reads = gitContentReads(run);
      if (reads === null) continue;
      if (reads === "all") {
        tracked ??= trackedFiles(check.workspace.root);
        if (tracked === null) return "prints content from git, whose files git cannot list here";
        for (const file of tracked) {
          const rule = check.readDenied(file);
          if (rule) return `prints content from git, where ${file} is tracked and ${rule} hides it`;
        }
        continue;
      }
      for (const p of reads.paths) {
        const problem = pathProblem(p, check);
        if (problem) return problem;
      }
    }
    const targets = command.redirects.map((r) => r.target).filter((t) => t !== null);
    for (const word of [...command.words.slice(1), ...targets]) {
      if (word.value === null) {
        if (check.knownWordsOnly) return `${word.text} is only known at run time`;
        continue;
      }
      const problem = pathProblem(optionValue(word.value), check);
      if (problem) return problem;
    }
  }
  return null;
}

/** `--file=/etc/x` names /etc/x; `-n` names nothing. */
function optionValue(word: string): string {
  if (!word.startsWith("-")) return word;
  const eq = word.indexOf("=");
  return eq > 0 ? word.slice(eq + 1) : "";
}

function pathProblem(word: string, check: AutoApprovalCheck): string | null {
  if (!word || HARMLESS_OUTSIDE.test(word)) return null;
  if (word.startsWith("~") && !word.startsWith("~/")) return `names ${word}, outside the workspace`;
  let real: string;
  try {
    real = check.workspace.resolve(word);
  } catch {
    return `names ${word}, outside the workspace`;
  }
  const relative = check.workspace.relative(real);
  const rule = check.readDenied(relative);
  return rule ? `names ${word}, which ${rule} hides` : null;
}

/** The sandbox a command runs in, given what the engine wants and what the machine has. */
export function sandboxFor(wanted: Exclude<SandboxRequest, "none">, available: boolean): SandboxRequest {
  return available ? wanted : "none";
}

/** Whether sandboxed_commands lets commands that may write run unasked in this mode. */
export function sandboxedCommandsAuto(setting: "ask" | "auto" | undefined, mode: string): boolean {
  if (mode !== "default" && mode !== "accept-edits") return false;
  return (setting ?? (mode === "accept-edits" ? "auto" : "ask")) === "auto";
}

/** A protected path (.git/, .orca/ …) the command names: it asks, as a file tool's write would. */
export function protectedProblem(analysis: ShellAnalysis, workspace: Workspace): string | null {
  for (const command of analysis.commands) {
    const targets = command.redirects.map((r) => r.target).filter((t) => t !== null);
    for (const word of [...command.words.slice(1), ...targets]) {
      if (word.value === null) continue;
      const named = optionValue(word.value);
      if (!named) continue;
      let relative: string;
      try {
        relative = workspace.relative(workspace.resolve(named));
      } catch {
        continue; // outside the workspace: autoApprovalProblem names it
      }
      const reason = protectedReason(relative, workspace);
      if (reason) return reason;
    }
  }
  return null;
}
