import { execFile } from "node:child_process";
import { gitBinary } from "../util/git-binary.js";
import { containedEnvironment, type RepoPaths } from "../util/git-env.js";

/**
 * git as a child process, the one way orca talks to a repository (DESIGN §14). Nothing a
 * sandboxed command or a cloned repository can write may make these calls run code: every call
 * gets the environment and config of git-env.ts (no system or global config, no hooks, fsmonitor,
 * pager, editor, credential helper, ssh, network or submodule recursion), and a call on a
 * repository orca has checked (`repo`) also gets that repository's filter, diff and merge
 * drivers switched off by name, with its git dir, common dir and work tree given outright
 * rather than read from files an agent could rewrite.
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
  /** Added to the contained environment (GIT_INDEX_FILE for a private index, an author). */
  env?: Record<string, string>;
  signal?: AbortSignal;
  /** The checked repository the call is about (see openRepo): its dirs and its drivers switched off. */
  repo?: RepoPaths;
}

/** orca's commits (a snapshot, an agent's work) carry its own name, not the user's. */
export const ORCA_AUTHOR: Record<string, string> = {
  GIT_AUTHOR_NAME: "orca",
  GIT_AUTHOR_EMAIL: "orca@localhost",
  GIT_COMMITTER_NAME: "orca",
  GIT_COMMITTER_EMAIL: "orca@localhost",
};

export interface GitRun {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Runs git and returns its exit code and output, whatever the code; rejects only if git cannot run. */
export function gitRun(args: string[], opts: GitOptions, input?: Buffer | string): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    const binary = gitBinary();
    if (!binary) {
      reject(new GitError(`git ${args[0]}: no git found on PATH outside the areas commands can write`, null, ""));
      return;
    }
    const child = execFile(
      binary,
      args,
      { cwd: opts.cwd, env: containedEnvironment(opts.repo, opts.env), signal: opts.signal, encoding: "buffer", maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error && typeof (error as NodeJS.ErrnoException).code === "number" ? ((error as unknown as { code: number }).code) : error ? null : 0;
        if (error && code === null) {
          reject(error.name === "AbortError" ? error : new GitError(`git ${args[0]}: ${error.message.split("\n")[0]}`, null, stderr.toString("utf8")));
          return;
        }
        resolve({ code: code ?? 0, stdout, stderr: stderr.toString("utf8") });
      },
    );
    // git may exit before reading all of it (an error): that is reported by its exit code.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(input ?? "");
  });
}

/** Runs git; its stdout as text (trailing newline removed), or a GitError with git's first error line. */
export async function git(args: string[], opts: GitOptions, input?: Buffer | string): Promise<string> {
  const run = await gitRun(args, opts, input);
  if (run.code !== 0) throw failure(args, run);
  return run.stdout.toString("utf8").replace(/\n$/, "");
}

/** Like git(), but the raw bytes of stdout (file contents). */
export async function gitBytes(args: string[], opts: GitOptions, input?: Buffer | string): Promise<Buffer> {
  const run = await gitRun(args, opts, input);
  if (run.code !== 0) throw failure(args, run);
  return run.stdout;
}

function failure(args: string[], run: GitRun): GitError {
  const line = run.stderr.split("\n").find((l) => l.trim()) ?? `exit code ${run.code}`;
  return new GitError(`git ${args.filter((a) => !a.startsWith("-")).slice(0, 2).join(" ")}: ${line.replace(/^(fatal|error): /, "")}`, run.code, run.stderr);
}
