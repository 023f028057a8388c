import type { ChildProcess } from "node:child_process";
import { childEnv } from "../child-env.js";
import { Sandbox, SandboxError, type NestedRepoReport, type SandboxMode, type SandboxRequest } from "../sandbox/index.js";
import { followSandbox, type SpawnSpec } from "../../util/process-group.js";
import { namespaceEmptied, plainBash, spawnInGroup } from "./process-group.js";

export interface Launched {
  child: ChildProcess;
  pid: number;
  /** How it runs: in which sandbox, or `none`. */
  sandbox: SandboxMode | "none";
  /** For whenFinished: true once nothing of a sandboxed command is left (undefined outside one). */
  emptied?: () => boolean;
  /** A workspace-write sandbox's check of the repositories commands made, once it is gone (Sandbox.checkNestedRepos). */
  nestedRepos?: Promise<NestedRepoReport[]>;
}

/**
 * Starts shell commands — foreground and background alike — in their own process group, inside
 * the sandbox unless the request says otherwise, with an environment that holds no model key.
 */
export class CommandLauncher {
  constructor(
    readonly sandbox: Sandbox = Sandbox.unavailable("not configured"),
    readonly env: NodeJS.ProcessEnv = childEnv(process.env),
  ) {}

  /**
   * How a request is honoured. Unset: the sandbox when there is one. A sandbox asked for where
   * there is none is refused rather than run outside: plan mode must never write.
   */
  modeFor(request: SandboxRequest | undefined): SandboxMode | "none" {
    if (request === "none") return "none";
    if (this.sandbox.available) return request ?? "workspace-write";
    if (request === undefined) return "none";
    throw new SandboxError(`this command must run in a ${request} sandbox, and there is none: ${this.sandbox.status.reason ?? "unavailable"}`);
  }

  /** Rejects with a SandboxError (no sandbox, a path that cannot be protected) or the spawn error. */
  async launch(command: string, cwd: string, request?: SandboxRequest): Promise<Launched> {
    const mode = this.modeFor(request);
    let spec: SpawnSpec;
    let nestedRepos: Promise<NestedRepoReport[]> | undefined;
    if (mode === "none") spec = plainBash(command, cwd, this.env);
    else {
      // The command's own workspace (cwd) is its writable root: an isolated agent's worktree.
      const wrapped = await this.sandbox.wrap(command, mode, cwd);
      nestedRepos = wrapped.nestedRepos;
      spec = { file: wrapped.file, args: wrapped.args, cwd, env: { ...this.env, ...wrapped.env }, fd3: wrapped.fd3, infoFd: true, lease: wrapped.lease };
    }
    let child: ChildProcess;
    try {
      child = spawnInGroup(spec);
    } catch (error) {
      spec.lease?.exited();
      throw error;
    }
    const sandboxed = followSandbox(child, spec);
    await spawned(child);
    const launched: Launched = { child, pid: child.pid as number, sandbox: mode, nestedRepos };
    if (spec.infoFd) launched.emptied = () => sandboxed.initPid !== null && namespaceEmptied(sandboxed.initPid);
    return launched;
  }
}

/** Resolves once `child` runs; rejects with the spawn error (no bash, no bwrap, bad cwd). */
function spawned(child: ChildProcess): Promise<void> {
  if (child.pid !== undefined) {
    // A later 'error' (a failed signal) must not become an uncaught exception.
    child.on("error", () => {});
    return Promise.resolve();
  }
  return new Promise((_, reject) => {
    child.once("error", (err) => reject(err));
  });
}
