import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError } from "../../util/errors.js";
import { isInside, type Workspace } from "../workspace.js";
import { bwrapArgs } from "./bwrap-args.js";
import { expandHome, resolveUnreadable } from "./deny-read.js";
import { cachedProbeBwrap } from "./probe-cache.js";
import { removeAbandoned, SessionDir, STAND_INS, standInsInUse } from "./session-dir.js";
import { joinProtection, Placeholders, protectedPaths } from "./protected.js";
import { FilteringProxy } from "./proxy.js";
import { StandInLeases } from "./stand-in-leases.js";
import { NestedRepos, type NestedRepoReport } from "./nested-repos.js";
import { LinkWatch, type LinkRepair } from "./protected-links.js";
import type { SandboxLease } from "../../util/process-group.js";
import { unixSocketFilter } from "./seccomp.js";
import { SandboxError, type NetworkPolicy, type SandboxMode, type SandboxStatus } from "./types.js";

export interface SandboxOptions {
  /** `sandbox.enabled`: auto (on where supported), true (required: no start without it), false. */
  enabled: "auto" | boolean;
  workspace: Workspace;
  /** `sandbox.writable`: more dirs commands may write (absolute or ~/…); missing ones are skipped. */
  writable?: readonly string[];
  /** `sandbox.read_only`: more paths kept read-only inside the writable areas. */
  readOnly?: readonly string[];
  /** `sandbox.deny_read`: paths (absolute or ~/…) commands cannot read. */
  denyRead?: readonly string[];
  /** The patterns of `permissions.deny` `read_file(PATTERN)` rules, workspace-relative. */
  denyReadPatterns?: readonly string[];
  /** `sandbox.network.allow`: [] off, ["*"] the host's network, else these hosts through a proxy. */
  networkAllow?: readonly string[];
  /**
   * `sandbox.network.unix_sockets`: false refuses every socket(AF_UNIX) with a seccomp filter, so
   * no Unix socket anywhere on the host is reachable. Default true: commands may use their own,
   * and the host's usual places for them (/run, /tmp) are hidden.
   */
  unixSockets?: boolean;
  /**
   * Directories commands must see although they lie in a temp dir the sandbox replaces (skills
   * installed or cloned under /tmp: their `${SKILL_DIR}` scripts). Read-only.
   */
  visible?: readonly string[];
  /**
   * The caller removed abandoned session dirs moments ago (loadEnvironment does, before it reads
   * settings): reading the temp dir again would find nothing new and costs a start ~2–5 ms.
   */
  abandonedRemoved?: boolean;
  /** A file to keep the bwrap probe's answer in between starts (probe-cache.ts); none probes every time. */
  probeCache?: string;
}

/**
 * One command, ready to spawn: `file args…`, with `fd3` written to its fd 3 and `env` laid over its
 * own. `lease` holds the stand-ins it relies on: the spawner reports the process to it
 * (followSandbox), or calls `exited()` when it does not spawn it after all.
 */
export interface WrappedCommand {
  file: string;
  args: string[];
  fd3?: Buffer;
  env: Record<string, string>;
  lease: SandboxLease;
  /** What the check once its sandbox is gone did to repositories commands made (nested-repos.ts). */
  nestedRepos: Promise<NestedRepoReport[]>;
}

/** A read-only command relies on no stand-in. */
const NO_LEASE: SandboxLease = { spawned: () => {}, sandboxInit: () => {}, exited: () => {} };

/** How long closing waits for the sandboxes of the commands it has just stopped to be gone. */
const CLOSE_WAIT_MS = 3_000;

/** What every command of the session shares, decided once at start-up. */
interface Setup {
  root: string;
  readOnly: readonly string[];
  denyRead: readonly string[];
  denyReadPatterns: readonly string[];
  disableUserns: boolean;
  /** orca's files for this session: the blanks mounted over unreadable paths, the proxy socket, the private tmp. */
  sessionDir: SessionDir;
  /** No host network: the host's /run and /tmp are hidden too (their sockets are local services). */
  isolated: boolean;
  tempDirs: string[];
  writable: string[];
  /** `visible` dirs that lie in a temp dir, bound back read-only over the private one. */
  visible: string[];
  filter: Buffer | null;
  network: NetworkPolicy;
  proxy: FilteringProxy | null;
}

/** Inside the sandbox's own network namespace: no clash with anything on the host. */
const PROXY_PORT = 3128;

/**
 * The OS sandbox every bash command runs in when it is available: bubblewrap with fresh user, pid,
 * ipc and network namespaces, the whole file system mounted read-only, writable areas bound back
 * in, protected and unreadable paths mounted over, and every capability dropped. See DESIGN §7.
 */
export class Sandbox {
  private readonly standIns: StandInLeases;
  private readonly nestedRepos = new NestedRepos((reports) => this.nestedListeners.forEach((listener) => listener(reports)));
  private readonly nestedListeners: Array<(reports: NestedRepoReport[]) => void> = [];
  /** The roots workspace-write commands ran in, or file tools wrote in: each gets a last check at close. */
  private readonly nestedRoots = new Set<string>();
  /** Per root: its first look (nested-repos.ts), taken before any write of the session can land there. */
  private readonly firstLooks = new Map<string, Promise<void>>();
  /** The links on the way to protected paths, which no mount can keep (protected-links.ts); per root, recorded at its first command. */
  private readonly links = new LinkWatch((repairs) => this.linkListeners.forEach((listener) => listener(repairs)));
  private readonly linksRecorded = new Set<string>();
  private readonly linkListeners: Array<(repairs: LinkRepair[]) => void> = [];
  /** No more commands. */
  private closed = false;
  /** The stand-ins and the session's files are dealt with. */
  private finished = false;

  private constructor(
    readonly status: SandboxStatus,
    private readonly setup: Setup | null,
  ) {
    const own = setup?.sessionDir;
    const ownPath = (): string | undefined => own?.path ?? undefined;
    this.standIns = new StandInLeases(
      new Placeholders(own ? () => (own.path ? path.join(own.path, STAND_INS) : null) : null, () => standInsInUse(os.tmpdir(), ownPath())),
    );
  }

  /** A sandbox that is not there, with the reason (tests, other platforms, `enabled: false`). */
  static unavailable(reason: string): Sandbox {
    return new Sandbox({ available: false, reason, network: "off" }, null);
  }

  /**
   * Finds out whether commands can be sandboxed here and prepares what they share. With
   * `enabled: true` and no sandbox, throws a ConfigError: the user asked not to run without one.
   */
  static async open(opts: SandboxOptions): Promise<Sandbox> {
    if (opts.enabled === false) return Sandbox.unavailable("turned off in the config (sandbox.enabled: false)");
    const network = networkPolicy(opts.networkAllow ?? []);
    const notes: string[] = [];
    let effective = network;
    if (network.kind === "allow-list" && !hasCommand("socat")) {
      notes.push("sandbox.network.allow needs socat, which is not installed: network stays off");
      effective = { kind: "off" };
    }
    const blockUnix = opts.unixSockets === false && effective.kind !== "full";
    if (blockUnix && effective.kind === "allow-list") notes.push("sandbox.network.unix_sockets: false cannot hold with an allow-list (the bridge to the proxy is a Unix socket)");
    const seccomp = blockUnix && effective.kind === "off";
    const probe = await cachedProbeBwrap({ seccomp }, opts.probeCache);
    if (!probe.ok) {
      if (opts.enabled === true) throw new ConfigError(`sandbox.enabled is true but ${probe.reason}`);
      return Sandbox.unavailable(probe.reason ?? "unknown");
    }
    const filter = seccomp ? unixSocketFilter() : null;
    if (seccomp && !filter) notes.push(`sandbox.network.unix_sockets: false is not supported on ${process.arch}`);
    if (!opts.abandonedRemoved) removeAbandoned(os.tmpdir());
    const sessionDir = new SessionDir(os.tmpdir());
    let proxy: FilteringProxy | null = null;
    if (effective.kind === "allow-list") proxy = await FilteringProxy.listen(path.join(sessionDir.ensure(), "proxy.sock"), effective.hosts);
    const status: SandboxStatus = { available: true, backend: probe.version, network: effective.kind, ...(notes.length ? { reason: notes.join("; ") } : {}) };
    const tempDirs = outermost([os.tmpdir(), "/tmp"].flatMap(existingRealDir));
    return new Sandbox(status, {
      root: opts.workspace.root,
      readOnly: opts.readOnly ?? [],
      denyRead: opts.denyRead ?? [],
      denyReadPatterns: opts.denyReadPatterns ?? [],
      disableUserns: probe.disableUserns,
      sessionDir,
      tempDirs,
      isolated: effective.kind !== "full",
      writable: outermost([...opts.workspace.additionalDirs, ...(opts.writable ?? []).map((p) => expandHome(p))].flatMap(existingRealDir)),
      // Strictly inside: a "skill" at /tmp itself (a skills.paths entry can point anywhere) would
      // bring back the host's whole /tmp, and the Unix sockets of tmux, X11 or ssh-agent with it.
      visible: outermost((opts.visible ?? []).flatMap(existingRealDir)).filter((d) => tempDirs.some((t) => t !== d && isInside(t, d))),
      filter,
      network: effective,
      proxy,
    });
  }

  get available(): boolean {
    return this.status.available && !this.closed;
  }

  /**
   * bwrap's command line for `command` run with bash in `mode`. Resolves the unreadable paths and
   * makes the stand-ins for missing protected paths now, so both are as they are at the start; the
   * stand-ins stay until the returned lease, and every other of the session, has ended.
   * `root` is the workspace the command works in: the session's, or an isolated sub-agent's git
   * worktree (then the main workspace is read-only to it).
   */
  async wrap(command: string, mode: SandboxMode, root: string = this.setup?.root ?? ""): Promise<WrappedCommand> {
    const setup = this.setup;
    if (!setup || !this.available) throw new SandboxError(`no sandbox: ${this.status.reason ?? "closed"}`);
    // Before any stand-in: its manifest lives in the session dir.
    const sessionDir = setup.sessionDir.ensure();
    const unreadable = await resolveUnreadable(root, setup.denyReadPatterns, setup.denyRead);
    const { roots, isWritable } = this.writableRoots(setup, root);
    // A link a background shell replaced is put back before the protection is worked out from the paths.
    if (mode === "workspace-write") this.links.restore();
    const protection =
      mode === "workspace-write"
        ? joinProtection(roots.map((dir) => protectedPaths(dir, isWritable, dir === root ? setup.readOnly : [], this.nestedRepos.preexisting(dir))))
        : { pins: [], readOnly: [], placeholders: [] };
    if (mode === "workspace-write") this.recordLinks(setup, root, isWritable, protection.readOnly);
    let lease = NO_LEASE;
    let checked: (reports: Promise<NestedRepoReport[]>) => void = () => {};
    const nestedRepos = mode === "workspace-write" ? new Promise<NestedRepoReport[]>((resolve) => (checked = resolve)) : Promise.resolve([]);
    try {
      // Once nothing of it runs, the repositories it may have made are checked (nested-repos.ts).
      if (mode === "workspace-write") this.nestedRoots.add(root);
      if (mode === "workspace-write") lease = this.standIns.acquire(protection.placeholders, () => (this.links.restore(), checked(this.checkNestedRepos(root).catch(() => []))));
    } catch (error) {
      throw new SandboxError((error as Error).message);
    }
    const args = bwrapArgs({
      mode,
      workspace: root,
      writable: setup.writable,
      tempDirs: setup.tempDirs,
      visible: setup.visible,
      privateTmp: setup.isolated ? path.join(sessionDir, "tmp") : null,
      hideRun: setup.isolated,
      pins: protection.pins,
      readOnly: protection.readOnly,
      unreadable,
      blank: { file: path.join(sessionDir, "blank"), dir: path.join(sessionDir, "blank-dir") },
      sessionDir,
      shareNetwork: setup.network.kind === "full",
      seccomp: setup.filter !== null,
      disableUserns: setup.disableUserns,
    });
    const env: Record<string, string> = {};
    // --norc: bash reads ~/.bashrc when its stdin is a socket (it takes that for rshd), and Node's
    // stdin pipes are sockets; a hook's stdin is one.
    let inner = ["bash", "--norc", "-c", command];
    if (setup.network.kind === "allow-list") {
      const url = `http://127.0.0.1:${PROXY_PORT}`;
      for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"]) env[name] = url;
      env.NO_PROXY = env.no_proxy = "";
      inner = ["bash", "--norc", "-c", BRIDGE, "orca-sandbox", path.join(sessionDir, "proxy.sock"), command];
    }
    return { file: "bwrap", args: [...args, ...inner], fd3: setup.filter ?? undefined, env, lease, nestedRepos };
  }

  /**
   * Checks the git repositories commands made in `root`'s writable roots since the last check and
   * takes out of them what would run code when the user runs git there. Call it once the command
   * has ended; each workspace-write sandbox's end calls it (WrappedCommand.nestedRepos). A check
   * that has not started yet is shared. What it did also goes to `onNestedRepo` listeners, once.
   */
  checkNestedRepos(root: string = this.setup?.root ?? ""): Promise<NestedRepoReport[]> {
    const setup = this.setup;
    if (!setup || this.closed) return Promise.resolve([]);
    const { roots, isWritable } = this.writableRoots(setup, root);
    return this.nestedRepos.check(roots, isWritable);
  }

  /**
   * Checks, right after a file tool wrote `written` (absolute real paths) in `root`, the repositories
   * those paths belong to (NestedRepos.checkWritten: their folders, not a walk); null for a tool
   * that cannot say where it wrote (an MCP server's), which gets the walk a command's end gets.
   * Until then the user's git in that folder would run what the agent put in its config.
   */
  afterWrite(root: string, written: readonly string[] | null): Promise<NestedRepoReport[]> {
    const setup = this.setup;
    if (!setup || this.closed) return Promise.resolve([]);
    if (written?.length === 0) return Promise.resolve([]);
    const { roots, isWritable } = this.writableRoots(setup, root);
    // The write has landed: a check that broke must not make it read as failed (the one at close still runs).
    return (written ? this.nestedRepos.checkWritten(roots, isWritable, written) : this.nestedRepos.check(roots, isWritable)).catch(() => []);
  }

  onNestedRepo(listener: (reports: NestedRepoReport[]) => void): void {
    this.nestedListeners.push(listener);
  }

  /** Told of each link on the way to a protected path that a command replaced and orca put back (or could not). */
  onLinkRestored(listener: (repairs: LinkRepair[]) => void): void {
    this.linkListeners.push(listener);
  }

  /** Before `root`'s first command: the links on the way to its protected paths, unresolved (the protection's real paths pass no link). */
  private recordLinks(setup: Setup, root: string, isWritable: (p: string) => boolean, readOnly: readonly string[]): void {
    if (!this.linksRecorded.has(root)) this.links.record([...setup.readOnly.map((p) => path.resolve(setup.root, p)), ...readOnly, path.join(root, ".git")], isWritable);
    this.linksRecorded.add(root);
  }

  /**
   * Awaited before any call of an agent that may write in `root` (a file tool, a command, a
   * delegation; ToolExecutor): the repositories there at the first such call are the user's, so
   * this first look comes before the agent's first write (else a bare repository written with
   * write_file would pass for the user's), and a session that writes nothing never walks the tree.
   * A root written in also gets the last check at close, whether or not a command ran there.
   */
  beforeWrite(root: string): Promise<void> {
    const setup = this.setup;
    if (!setup || this.closed) return Promise.resolve();
    this.nestedRoots.add(root);
    let look = this.firstLooks.get(root);
    if (!look) {
      const { roots } = this.writableRoots(setup, root);
      look = new Promise<void>((resolve) => setImmediate(resolve)).then(() => roots.forEach((dir) => this.nestedRepos.preexisting(dir)));
      this.firstLooks.set(root, look);
    }
    return look;
  }

  /** A workspace-write command's writable roots (the workspace or worktree, additional_dirs, sandbox.writable) and areas. */
  private writableRoots(setup: Setup, root: string): { roots: string[]; isWritable: (p: string) => boolean } {
    const writableAreas = [root, ...setup.writable, ...(setup.isolated ? [] : setup.tempDirs)];
    return { roots: [root, ...setup.writable.filter((dir) => !isInside(root, dir))], isWritable: (p) => writableAreas.some((dir) => isInside(dir, p)) };
  }

  /**
   * Removes the stand-ins, stops the proxy, deletes the session's files. The commands must have
   * been stopped: their sandboxes get a moment to be gone, and if one is not, its stand-ins and the
   * session's files are left for the next start (removeAbandoned) rather than pulled from under it.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const proxy = this.setup?.proxy;
    this.finish(await this.standIns.close(CLOSE_WAIT_MS));
    // The last look: what background shells and hooks did before they were stopped.
    this.links.restore();
    const setup = this.setup;
    if (setup) for (const root of this.nestedRoots) await this.nestedRepos.check(this.writableRoots(setup, root).roots, this.writableRoots(setup, root).isWritable).catch(() => undefined);
    await proxy?.close();
  }

  /**
   * close() for a process 'exit' handler, after the commands were SIGKILLed (also when a close()
   * was still waiting: the process ends now). The proxy dies with the process.
   */
  closeSync(): void {
    this.closed = true;
    if (!this.finished) this.finish(this.standIns.closeSync(CLOSE_WAIT_MS));
    this.links.restore();
  }

  private finish(standInsRemoved: boolean): void {
    if (this.finished) return;
    this.finished = true;
    if (this.setup && standInsRemoved) this.setup.sessionDir.remove();
  }
}

/**
 * Inside the sandbox, before the command: a local port that leads to orca's proxy on the host
 * (the sandbox has no network of its own), ready before the command may use it. $1 is the proxy's
 * socket, $2 the command.
 */
const BRIDGE = `socat TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr "UNIX-CONNECT:$1" 2>/dev/null &
for _ in $(seq 500); do grep -q ':${PROXY_PORT.toString(16).toUpperCase().padStart(4, "0")} 00000000:0000 0A' /proc/net/tcp 2>/dev/null && break; sleep 0.01; done
exec bash --norc -c "$2"`;

export function networkPolicy(allow: readonly string[]): NetworkPolicy {
  const hosts = allow.map((h) => h.trim()).filter(Boolean);
  if (hosts.includes("*")) return { kind: "full" };
  return hosts.length ? { kind: "allow-list", hosts } : { kind: "off" };
}

function existingRealDir(p: string): string[] {
  try {
    const real = fs.realpathSync.native(p);
    return fs.statSync(real).isDirectory() ? [real] : [];
  } catch {
    return [];
  }
}

/** Without the dirs inside another of the list: one bind covers them. */
function outermost(dirs: string[]): string[] {
  const unique = [...new Set(dirs)];
  return unique.filter((d) => !unique.some((o) => o !== d && isInside(o, d)));
}

function hasCommand(name: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
