import type { ChildProcess } from "node:child_process";
import { childEnv } from "../child-env.js";
import { Sandbox, SandboxError, type SandboxMode, type SandboxRequest } from "../sandbox/index.js";
import type { SpawnSpec } from "../../util/process-group.js";
import { namespaceEmptied, plainBash, spawnInGroup } from "./process-group.js";

export interface Launched {
  child: ChildProcess;
  pid: number;
  /** How it runs: in which sandbox, or `none`. */
  sandbox: SandboxMode | "none";
  /** For whenFinished: true once nothing of a sandboxed command is left (undefined outside one). */
  emptied?: () => boolean;
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
    if (mode === "none") spec = plainBash(command, cwd, this.env);
    else {
      // The command's own workspace (cwd) is its writable root: an isolated agent's worktree.
      const wrapped = await this.sandbox.wrap(command, mode, cwd);
      spec = { file: wrapped.file, args: wrapped.args, cwd, env: { ...this.env, ...wrapped.env }, fd3: wrapped.fd3, infoFd: true };
    }
    const child = await spawnChecked(spec);
    const launched: Launched = { child, pid: child.pid as number, sandbox: mode };
    if (spec.infoFd) {
      const initPid = readInitPid(child);
      launched.emptied = () => initPid.value !== null && namespaceEmptied(initPid.value);
    }
    return launched;
  }
}

/** Spawns in its own group; rejects with the spawn error (no bash, no bwrap, bad cwd). */
function spawnChecked(spec: SpawnSpec): Promise<ChildProcess> {
  const child = spawnInGroup(spec);
  if (child.pid !== undefined) {
    // A later 'error' (a failed signal) must not become an uncaught exception.
    child.on("error", () => {});
    return Promise.resolve(child);
  }
  return new Promise((_, reject) => {
    child.once("error", (err) => reject(err));
  });
}

/** bwrap's --info-fd report on fd 4: the host pid of the sandbox's init, once written. */
function readInitPid(child: ChildProcess): { value: number | null } {
  const out: { value: number | null } = { value: null };
  const info = child.stdio[4];
  if (!info || !("setEncoding" in info)) return out;
  let text = "";
  info.on("error", () => {});
  info.setEncoding("utf8").on("data", (chunk: string) => {
    text += chunk;
    const pid = Number(/"child-pid":\s*(\d+)/.exec(text)?.[1]);
    if (pid > 0) out.value = pid;
  });
  return out;
}
