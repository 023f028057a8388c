import { z } from "zod";
import { madeOnFirstCall } from "../../util/built-on-use.js";
import { readOnlyHint } from "../command-pattern.js";
import { fail, ok, type Tool, type ToolContext, type ToolResult } from "../tool.js";
import { truncateHeadTail } from "../truncate.js";
import type { TokenCounter } from "../../util/token-counter.js";
import { HeadTailBuffer } from "./output.js";
import { nestedRepoNotes, type SandboxMode } from "../sandbox/index.js";
import { PermissionDenied } from "../../util/errors.js";
import { errorMessage } from "./paths.js";
import { shellExitCode, terminateGroup, whenFinished } from "./process-group.js";
import type { ShellManager } from "./shells.js";

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
  const base = z.object({
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
    dangerously_disable_sandbox: z
      .boolean()
      .optional()
      .describe(
        "Run this command outside the sandbox (network, writes outside the workspace). Only after it failed because of the sandbox; the user is always asked, and a headless run refuses it.",
      ),
  });
  // Offered only where there is a sandbox to leave (elsewhere every command runs outside one).
  return opts.shells.launcher.sandbox.available ? base : (base.omit({ dangerously_disable_sandbox: true }) as unknown as typeof base);
}
export type BashArgs = z.infer<ReturnType<typeof paramsFor>>;

export function bashTool(opts: BashOptions): Tool<BashArgs> {
  const readOnly = readOnlyHint(opts.readOnlyCommands);
  const sandbox = opts.shells.launcher.sandbox;
  const params = madeOnFirstCall(() => paramsFor(opts));
  return {
    name: "bash",
    description:
      "Run a shell command with bash in the workspace root and return its combined stdout and stderr with the exit code. Input is not available (stdin is empty), so use non-interactive flags. Processes the command leaves running are stopped when it ends; use run_in_background for long-running ones." +
      (sandbox.available ? ` ${sandboxNote(sandbox.status.network)}` : ""),
    get params() {
      return params();
    },
    // What paramsFor reads of opts: the kept schema must be one made with the same.
    schemaVariant: JSON.stringify([opts.bashTimeoutMs, sandbox.available]),
    readOnly: (args) => readOnly(args.command),
    // A command that may write waits for writes and other commands, never for readers (DESIGN §14).
    access: (args, ws) => (readOnly(args.command) ? { reads: [ws.root], writes: [] } : { reads: [], writes: [ws.root, ...ws.additionalDirs], command: true }),
    permissionSubject: (args) => ({ kind: "command", value: args.command, ...(args.dangerously_disable_sandbox ? { unsandboxed: true } : {}) }),
    async execute(args, ctx) {
      if (ctx.signal.aborted) return fail("bash: cancelled", "Error: bash: cancelled before the command started", "cancelled");
      const cwd = ctx.workspace.root;
      if (args.run_in_background) {
        try {
          const { id, pid, sandbox: mode } = await opts.shells.start(args.command, cwd, ctx.sandbox, ctx.agentId);
          // A sandboxed shell has a pid namespace of its own: its host pid means nothing to other commands.
          const where = mode === "none" ? `pid ${pid}` : "in the sandbox";
          return ok(
            `Started ${id} in the background (${where}). Read its output with bash_output {"shell_id": "${id}"}; stop it with bash_kill.`,
            { shellId: id, pid, ...sandboxMeta(mode) },
          );
        } catch (err) {
          return startFailure(err);
        }
      }
      return runForeground(args.command, cwd, args.timeout_ms ?? opts.bashTimeoutMs, ctx, opts);
    },
  };
}

/**
 * A command the person typed (`!command` in the dashboard): the same launcher, sandbox, output
 * cap and timeout as an agent's foreground bash call, with no permission check — it is their own.
 */
export function runPersonCommand(command: string, cwd: string, sandbox: SandboxMode | undefined, signal: AbortSignal, agentId: string, opts: BashOptions): Promise<ToolResult> {
  return runForeground(command, cwd, opts.bashTimeoutMs, { signal, sandbox, agentId }, opts);
}

export async function runForeground(
  command: string,
  cwd: string,
  timeoutMs: number,
  ctx: Pick<ToolContext, "signal" | "sandbox" | "agentId">,
  opts: BashOptions,
): Promise<ToolResult> {
  const { signal } = ctx;
  let launched;
  try {
    launched = await opts.shells.launcher.launch(command, cwd, ctx.sandbox);
  } catch (err) {
    return startFailure(err);
  }
  const { child, pid } = launched;
  const untrack = opts.shells.trackForeground(pid, command, ctx.agentId);
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

  const exit = await whenFinished(child, opts.shells.killGraceMs, launched.emptied);
  clearTimeout(timer);
  signal.removeEventListener("abort", onAbort);
  // Returning before the group is gone would hand back control while it still runs.
  await stopping;
  untrack();
  // Before the answer: a repository it made holds nothing that runs code once the user runs git there.
  const nested = (await holdingTheLoop(launched.nestedRepos)) ?? [];

  const text = output.text();
  const truncated = text === "" ? "(no output)" : truncateHeadTail(text, opts.maxOutputTokens, opts.tokens).text.replace(/\n$/, "");
  const body = truncated + sandboxHint(launched.sandbox, text) + nestedRepoNotes(nested, cwd, ctx.agentId);
  const code = shellExitCode(exit);
  const meta = { exitCode: code, pid, ...sandboxMeta(launched.sandbox) };
  if (stopReason === "timeout") {
    const error = `bash: command timed out after ${timeoutMs} ms and was killed`;
    return { ok: false, status: "timeout", error, content: `${body}\n[killed after timeout of ${timeoutMs} ms]`, meta };
  }
  if (stopReason === "cancelled") {
    return { ok: false, status: "cancelled", error: "bash: cancelled", content: `${body}\n[cancelled]`, meta };
  }
  // A failing command is information (a red test run), not a tool failure: the code says it.
  return ok(`${body}\n[exit code: ${code}]`, meta);
}

function startFailure(err: unknown): ToolResult {
  // The sandbox refusing a command is policy, not a broken tool.
  if (err instanceof PermissionDenied) return fail(`bash: not run: ${err.message}`, undefined, "denied");
  return fail(`bash: could not start bash: ${errorMessage(err)}`);
}

/** For the permission_decided event and the dashboard's tool row: how the command ran. */
function sandboxMeta(mode: SandboxMode | "none"): { sandboxed: boolean; sandbox: SandboxMode | "none" } {
  return { sandboxed: mode !== "none", sandbox: mode };
}

function sandboxNote(network: string): string {
  const net = network === "off" ? "no network" : network === "full" ? "full network" : "network only to the hosts in sandbox.network.allow, through HTTP(S)_PROXY";
  return `Commands run in a sandbox: only the workspace and /tmp (this session's own) are writable, and .git/config, .git/hooks, .orca, .mcp.json, .claude, .agents, .vscode and .idea stay read-only; each command sees only its own processes; ${net}.`;
}

/** A refusal the model could take for a broken machine: say it was the sandbox. */
function sandboxHint(mode: SandboxMode | "none", output: string): string {
  if (mode === "none") return "";
  const hints: string[] = [];
  if (/Read-only file system/.test(output)) {
    hints.push(
      mode === "read-only"
        ? "this command ran in a read-only sandbox: nothing on disk can be written"
        : "the sandbox keeps everything outside the workspace and temp dir read-only, and protected paths (.git/config, .git/hooks, .orca, .mcp.json, .claude, .agents, .vscode, .idea) too",
    );
  }
  if (/Could not resolve host|Network is unreachable|Temporary failure in name resolution|getaddrinfo E|ENETUNREACH|EAI_AGAIN/.test(output)) {
    hints.push("the sandbox has no network except the hosts in sandbox.network.allow");
  }
  return hints.length ? `\n[sandbox: ${hints.join("; ")}]` : "";
}

/**
 * The nested-repository check settles when the sandbox's lease sees it gone, and the lease looks on
 * unref'd timers (they must not hold orca open at exit). A command's answer waiting on it is the
 * run's own work: without a ref'd handle the event loop could empty meanwhile and end the run.
 */
async function holdingTheLoop<T>(pending: Promise<T> | undefined): Promise<T | undefined> {
  if (!pending) return undefined;
  const hold = setInterval(() => {}, 60_000);
  try {
    return await pending;
  } finally {
    clearInterval(hold);
  }
}
