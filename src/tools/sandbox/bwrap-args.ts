import type { Unreadable } from "./deny-read.js";
import type { SandboxMode } from "./types.js";

/** Everything one bwrap invocation needs, decided beforehand: this module only spells it out. */
export interface BwrapPlan {
  mode: SandboxMode;
  workspace: string;
  /** Writable besides the workspace and temp dirs (permissions.additional_dirs, sandbox.writable). */
  writable: string[];
  /** The system temp dirs (/tmp, $TMPDIR): replaced by `privateTmp`, or left as they are when it is null. */
  tempDirs: string[];
  /**
   * The session's own temp dir, mounted on every temp dir path: the commands of a session share it,
   * and the host's /tmp — where other programs keep their sockets (X11, tmux, ssh-agent) — is out
   * of sight. Read-only mode gets an empty one per command instead. Null: the host's, writable.
   */
  privateTmp: string | null;
  /** Dirs inside the temp dirs that stay in sight, read-only (skills under /tmp). */
  visible: string[];
  /** Mount an empty /run over the host's: where system and user services keep their sockets. */
  hideRun: boolean;
  pins: string[];
  readOnly: string[];
  unreadable: Unreadable;
  /** A mode-000 file and directory mounted over what must not be read. */
  blank: { file: string; dir: string };
  /** orca's own files for this session (blanks, the proxy socket): read-only to commands. */
  sessionDir: string;
  /** Keep the host's network (allow: ["*"]). */
  shareNetwork: boolean;
  /** Pass a seccomp filter on fd 3. */
  seccomp: boolean;
  /** bwrap knows --disable-userns (0.8+). */
  disableUserns: boolean;
}

/** The namespaces and privileges every sandboxed command runs with; the probe uses the same. */
export function isolationArgs(opts: { shareNetwork: boolean; disableUserns: boolean; seccomp: boolean }): string[] {
  return [
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    ...(opts.shareNetwork ? [] : ["--unshare-net"]),
    // bwrap run by root keeps every capability in its namespace unless told: with them a command
    // could mount, unmount or remount its way out of the read-only view.
    "--cap-drop",
    "ALL",
    ...(opts.disableUserns ? ["--disable-userns"] : []),
    // No --new-session: the command must stay in the process group orca signals on cancel. It
    // has no terminal to inject keystrokes into anyway: orca starts it in a new session.
    "--die-with-parent",
    ...(opts.seccomp ? ["--seccomp", "3"] : []),
  ];
}

/**
 * bwrap's arguments up to and including `--`; the command to run follows. Mounts are made in
 * order, a later one over an earlier: the workspace and writable dirs come after the temp dirs
 * (a workspace under /tmp shows through the private one), protected and hidden paths come last.
 */
export function bwrapArgs(plan: BwrapPlan): string[] {
  // fd 4 gets the host pid of the sandbox's init: once it has ended, so has everything inside.
  const args = [...isolationArgs(plan), "--info-fd", "4", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  if (plan.hideRun) args.push("--tmpfs", "/run");
  const areas = [plan.workspace, ...plan.writable];
  if (plan.mode === "workspace-write") {
    for (const dir of plan.tempDirs) args.push("--bind", plan.privateTmp ?? dir, dir);
    for (const dir of plan.visible) args.push("--ro-bind", dir, dir);
    for (const dir of areas) args.push("--bind", dir, dir);
    for (const dir of plan.pins) args.push("--bind", dir, dir);
    for (const p of plan.readOnly) args.push("--ro-bind", p, p);
  } else {
    for (const dir of plan.tempDirs) args.push("--tmpfs", dir);
    for (const dir of plan.visible) args.push("--ro-bind", dir, dir);
    for (const dir of areas) args.push("--ro-bind", dir, dir);
  }
  args.push("--ro-bind", plan.sessionDir, plan.sessionDir);
  for (const file of plan.unreadable.files) args.push("--ro-bind", plan.blank.file, file);
  for (const dir of plan.unreadable.dirs) args.push("--ro-bind", plan.blank.dir, dir);
  args.push("--chdir", plan.workspace, "--");
  return args;
}
