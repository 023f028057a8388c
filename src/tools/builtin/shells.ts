import type { SandboxMode, SandboxRequest } from "../sandbox/index.js";
import type { ProcessRecorder } from "../../events/processes.js";
import { CommandLauncher } from "./launch.js";
import { UnreadBuffer } from "./output.js";
import { KILL_GRACE_MS, shellExitCode, signalGroup, terminateGroup, whenFinished } from "./process-group.js";

export type ShellStatus = "running" | "exited" | "killed";

export interface ShellRead {
  id: string;
  command: string;
  status: ShellStatus;
  /** Known only once the process has ended; null while running. */
  exitCode: number | null;
  /** Output since the previous read. */
  output: string;
  /** Characters of unread output dropped because the buffer was full. */
  dropped: number;
}

export interface ShellManagerOptions {
  /** Unread output kept per shell, in characters. */
  maxBufferChars?: number;
  killGraceMs?: number;
  /** How commands are started: the sandbox and the environment. Default: no sandbox, no model key. */
  launcher?: CommandLauncher;
  /** Told of every process group started and of its end (the session log records them). */
  recorder?: ProcessRecorder;
}

interface Shell {
  id: string;
  command: string;
  pid: number;
  status: ShellStatus;
  exitCode: number | null;
  killRequested: boolean;
  buffer: UnreadBuffer;
  finished: Promise<void>;
}

/**
 * Owns every shell process orca starts: background shells (by id, `shell_1`…) and, for the time
 * they run, foreground ones — so that `killAll` at exit leaves nothing behind.
 */
export class ShellManager {
  private readonly shells = new Map<string, Shell>();
  private readonly foreground = new Set<number>();
  private nextId = 1;
  private readonly maxBufferChars: number;
  readonly killGraceMs: number;
  readonly launcher: CommandLauncher;
  private readonly recorder: ProcessRecorder | undefined;

  constructor(options: ShellManagerOptions = {}) {
    this.recorder = options.recorder;
    this.maxBufferChars = options.maxBufferChars ?? 1024 * 1024;
    this.killGraceMs = options.killGraceMs ?? KILL_GRACE_MS;
    this.launcher = options.launcher ?? new CommandLauncher();
  }

  /**
   * Starts `command` in the background, sandboxed as `request` asks (see CommandLauncher).
   * Rejects when the shell cannot be spawned or the sandbox asked for is not there.
   */
  async start(command: string, cwd: string, request?: SandboxRequest, agentId?: string): Promise<{ id: string; pid: number; sandbox: SandboxMode | "none" }> {
    const { child, pid, sandbox, emptied } = await this.launcher.launch(command, cwd, request);
    this.recorder?.started({ pgid: pid, kind: "background", command, agentId });
    const shell: Shell = {
      id: `shell_${this.nextId++}`,
      command,
      pid,
      status: "running",
      exitCode: null,
      killRequested: false,
      buffer: new UnreadBuffer(this.maxBufferChars),
      finished: Promise.resolve(),
    };
    const append = (chunk: string) => shell.buffer.push(chunk);
    child.stdout?.setEncoding("utf8").on("data", append);
    child.stderr?.setEncoding("utf8").on("data", append);
    shell.finished = whenFinished(child, this.killGraceMs, emptied).then((exit) => {
      shell.exitCode = shellExitCode(exit);
      shell.status = shell.killRequested ? "killed" : "exited";
      this.recorder?.ended(pid);
    });
    this.shells.set(shell.id, shell);
    return { id: shell.id, pid, sandbox };
  }

  /** Status and the output since the previous read; undefined for an unknown id. */
  read(id: string): ShellRead | undefined {
    const shell = this.shells.get(id);
    if (!shell) return undefined;
    const { text, dropped } = shell.buffer.take();
    return {
      id,
      command: shell.command,
      status: shell.status,
      exitCode: shell.status === "running" ? null : shell.exitCode,
      output: text,
      dropped,
    };
  }

  /**
   * Stops a running shell's whole process group (SIGTERM, SIGKILL after the grace period) and
   * waits until it is gone. Returns the status before the kill, or undefined for an unknown id.
   */
  async kill(id: string): Promise<ShellStatus | undefined> {
    const shell = this.shells.get(id);
    if (!shell) return undefined;
    const before = shell.status;
    if (before !== "running") return before;
    shell.killRequested = true;
    await terminateGroup(shell.pid, this.killGraceMs);
    await shell.finished;
    return before;
  }

  ids(): string[] {
    return [...this.shells.keys()];
  }

  running(): string[] {
    return [...this.shells.values()].filter((s) => s.status === "running").map((s) => s.id);
  }

  /**
   * Registers a foreground process group for `killAll` (and the session log) right after it was
   * started; call the returned function once it is gone.
   */
  trackForeground(pgid: number, command: string, agentId?: string): () => void {
    this.foreground.add(pgid);
    this.recorder?.started({ pgid, kind: "bash", command, agentId });
    return () => {
      this.foreground.delete(pgid);
      this.recorder?.ended(pgid);
    };
  }

  /** Stops every live shell, background and foreground, and waits until they are gone. */
  async killAll(): Promise<void> {
    const background = this.running().map((id) => this.kill(id));
    const foreground = [...this.foreground].map((pgid) => terminateGroup(pgid, this.killGraceMs));
    await Promise.all([...background, ...foreground]);
  }

  /** Stops every shell, then takes down what the sandbox set up (placeholders, proxy, its files). */
  async close(): Promise<void> {
    await this.killAll();
    await this.launcher.sandbox.close();
  }

  /** For a process 'exit' handler, where nothing asynchronous runs: SIGKILL every live group. */
  killAllSync(): void {
    for (const shell of this.shells.values()) {
      if (shell.status !== "running") continue;
      shell.killRequested = true;
      signalGroup(shell.pid, "SIGKILL");
    }
    for (const pgid of this.foreground) signalGroup(pgid, "SIGKILL");
    this.launcher.sandbox.closeSync();
  }
}
