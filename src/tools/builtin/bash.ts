import { z } from "zod";
import { isReadOnlyCommand } from "../command-pattern.js";
import { fail, ok, type Tool, type ToolResult } from "../tool.js";
import { truncateHeadTail } from "../truncate.js";
import type { TokenCounter } from "../../util/token-counter.js";
import { HeadTailBuffer } from "./output.js";
import { errorMessage } from "./paths.js";
import { shellExitCode, terminateGroup, whenFinished } from "./process-group.js";
import { spawnChecked, type ShellManager } from "./shells.js";

export interface BashOptions {
  shells: ShellManager;
  bashTimeoutMs: number;
  maxOutputTokens: number;
  /** Measures output against maxOutputTokens. */
  tokens: TokenCounter;
  readOnlyCommands: string[];
}

// The longest a single foreground command may be given, unless the configured default is longer.
const MAX_TIMEOUT_MS = 600_000;

function paramsFor(opts: BashOptions) {
  const maxTimeout = Math.max(MAX_TIMEOUT_MS, opts.bashTimeoutMs);
  return z.object({
    command: z.string().min(1).describe("The shell command to run with bash, in the workspace root."),
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .max(maxTimeout)
      .optional()
      .describe(`Kill the command after this many milliseconds. Default ${opts.bashTimeoutMs}, at most ${maxTimeout}.`),
    run_in_background: z
      .boolean()
      .optional()
      .describe("Start the command and return at once with a shell id; read its output with bash_output, stop it with bash_kill. Use for servers and watchers."),
    description: z.string().optional().describe("A few words on what the command does, shown to the user."),
  });
}
export type BashArgs = z.infer<ReturnType<typeof paramsFor>>;

export function bashTool(opts: BashOptions): Tool<BashArgs> {
  const readOnly = (command: string) => isReadOnlyCommand(command, opts.readOnlyCommands);
  return {
    name: "bash",
    description:
      "Run a shell command with bash in the workspace root and return its combined stdout and stderr with the exit code. Input is not available (stdin is empty), so use non-interactive flags. Processes the command leaves running are stopped when it ends; use run_in_background for long-running ones.",
    params: paramsFor(opts),
    readOnly: (args) => readOnly(args.command),
    access: (args, ws) => (readOnly(args.command) ? { reads: [ws.root], writes: [] } : "exclusive"),
    permissionSubject: (args) => ({ kind: "command", value: args.command }),
    async execute(args, ctx) {
      if (ctx.signal.aborted) return fail("bash: cancelled", "Error: bash: cancelled before the command started");
      const cwd = ctx.workspace.root;
      if (args.run_in_background) {
        try {
          const { id, pid } = await opts.shells.start(args.command, cwd);
          return ok(
            `Started ${id} in the background (pid ${pid}). Read its output with bash_output {"shell_id": "${id}"}; stop it with bash_kill.`,
            { shellId: id, pid },
          );
        } catch (err) {
          return fail(`bash: could not start bash: ${errorMessage(err)}`);
        }
      }
      return runForeground(args.command, cwd, args.timeout_ms ?? opts.bashTimeoutMs, ctx.signal, opts);
    },
  };
}

async function runForeground(
  command: string,
  cwd: string,
  timeoutMs: number,
  signal: AbortSignal,
  opts: BashOptions,
): Promise<ToolResult> {
  let child;
  try {
    child = await spawnChecked(command, cwd);
  } catch (err) {
    return fail(`bash: could not start bash: ${errorMessage(err)}`);
  }
  const pid = child.pid as number;
  const untrack = opts.shells.trackForeground(pid);
  const output = new HeadTailBuffer();
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => output.push(chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => output.push(chunk));

  let stopReason: "timeout" | "cancelled" | null = null;
  let stopping: Promise<void> = Promise.resolve();
  const stop = (reason: "timeout" | "cancelled") => {
    if (stopReason) return;
    stopReason = reason;
    stopping = terminateGroup(pid, opts.shells.killGraceMs);
  };
  const timer = setTimeout(() => stop("timeout"), timeoutMs);
  const onAbort = () => stop("cancelled");
  signal.addEventListener("abort", onAbort, { once: true });

  const exit = await whenFinished(child, opts.shells.killGraceMs);
  clearTimeout(timer);
  signal.removeEventListener("abort", onAbort);
  // Returning before the group is gone would hand back control while it still runs.
  await stopping;
  untrack();

  const text = output.text();
  const body = text === "" ? "(no output)" : truncateHeadTail(text, opts.maxOutputTokens, opts.tokens).text.replace(/\n$/, "");
  const code = shellExitCode(exit);
  const meta = { exitCode: code, pid };
  if (stopReason === "timeout") {
    const error = `bash: command timed out after ${timeoutMs} ms and was killed`;
    return { ok: false, error, content: `${body}\n[killed after timeout of ${timeoutMs} ms]`, meta };
  }
  if (stopReason === "cancelled") {
    return { ok: false, error: "bash: cancelled", content: `${body}\n[cancelled]`, meta };
  }
  // A failing command is information (a red test run), not a tool failure: the code says it.
  return ok(`${body}\n[exit code: ${code}]`, meta);
}
