import { execFile } from "node:child_process";

/**
 * git as a child process, the one way orca talks to a repository. Every call runs without the
 * user's git hooks (orca's own bookkeeping must not start a project's post-checkout scripts) and
 * without an inherited GIT_DIR / GIT_INDEX_FILE that would point it at another repository.
 */

export class GitError extends Error {
  override readonly name = "GitError";
  constructor(
    message: string,
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(message);
  }
}

export interface GitOptions {
  cwd: string;
  /** Added to the cleaned environment (GIT_INDEX_FILE for a private index, an author). */
  env?: Record<string, string>;
  signal?: AbortSignal;
}

const INHERITED_GIT_VARS = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_PREFIX"];

/** orca's commits (a snapshot, an agent's work) carry its own name, not the user's. */
export const ORCA_AUTHOR: Record<string, string> = {
  GIT_AUTHOR_NAME: "orca",
  GIT_AUTHOR_EMAIL: "orca@localhost",
  GIT_COMMITTER_NAME: "orca",
  GIT_COMMITTER_EMAIL: "orca@localhost",
};

function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: "0", ...extra };
  for (const name of INHERITED_GIT_VARS) if (!(name in extra)) delete env[name];
  return env;
}

export interface GitRun {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Runs git and returns its exit code and output, whatever the code; rejects only if git cannot run. */
export function gitRun(args: string[], opts: GitOptions): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      ["-c", "core.hooksPath=/dev/null", ...args],
      { cwd: opts.cwd, env: environment(opts.env), signal: opts.signal, encoding: "buffer", maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error && typeof (error as NodeJS.ErrnoException).code === "number" ? ((error as unknown as { code: number }).code) : error ? null : 0;
        if (error && code === null) {
          reject(error.name === "AbortError" ? error : new GitError(`git ${args[0]}: ${error.message.split("\n")[0]}`, null, stderr.toString("utf8")));
          return;
        }
        resolve({ code: code ?? 0, stdout, stderr: stderr.toString("utf8") });
      },
    );
  });
}

/** Runs git; its stdout as text (trailing newline removed), or a GitError with git's first error line. */
export async function git(args: string[], opts: GitOptions): Promise<string> {
  const run = await gitRun(args, opts);
  if (run.code !== 0) throw failure(args, run);
  return run.stdout.toString("utf8").replace(/\n$/, "");
}

/** Like git(), but the raw bytes of stdout (file contents). */
export async function gitBytes(args: string[], opts: GitOptions): Promise<Buffer> {
  const run = await gitRun(args, opts);
  if (run.code !== 0) throw failure(args, run);
  return run.stdout;
}

function failure(args: string[], run: GitRun): GitError {
  const line = run.stderr.split("\n").find((l) => l.trim()) ?? `exit code ${run.code}`;
  return new GitError(`git ${args.filter((a) => !a.startsWith("-")).slice(0, 2).join(" ")}: ${line.replace(/^(fatal|error): /, "")}`, run.code, run.stderr);
}
