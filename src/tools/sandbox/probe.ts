import { execFile, spawn } from "node:child_process";
import { isolationArgs } from "./bwrap-args.js";
import { unixSocketFilter } from "./seccomp.js";

export interface ProbeResult {
  ok: boolean;
  /** Why not, in one line. */
  reason?: string;
  version?: string;
  disableUserns: boolean;
}

/**
 * Whether bubblewrap can run a sandbox here, found by running one: `bwrap` may be installed yet
 * unable to create namespaces (a container without privileges, user namespaces switched off by
 * sysctl or AppArmor). The probe uses the namespaces and filter every command will use.
 */
export async function probeBwrap(opts: { seccomp: boolean }): Promise<ProbeResult> {
  if (process.platform !== "linux") {
    return { ok: false, reason: `no sandbox for ${process.platform} yet (orca sandboxes commands with bubblewrap on Linux)`, disableUserns: false };
  }
  const filter = opts.seccomp ? unixSocketFilter() : null;
  // Both at once: orca's start waits on these two child processes.
  const [version, first] = await Promise.all([bwrapVersion(), tryRun({ disableUserns: true, filter })]);
  if (!version) return { ok: false, reason: "bubblewrap (bwrap) is not installed; install it, e.g. apt-get install bubblewrap", disableUserns: false };
  let run = first;
  let disableUserns = true;
  if (!run.ok && /disable-userns/.test(run.stderr)) {
    // bwrap before 0.8: the command could make a nested namespace, but its mounts stay locked.
    disableUserns = false;
    run = await tryRun({ disableUserns: false, filter });
  }
  if (!run.ok) return { ok: false, reason: `bubblewrap cannot create a sandbox here: ${firstLine(run.stderr) || "it failed with no message"}`, disableUserns };
  return { ok: true, version, disableUserns };
}

function bwrapVersion(): Promise<string | null> {
  return new Promise((resolve) => {
    execFile("bwrap", ["--version"], { timeout: 5_000 }, (error, stdout) => resolve(error ? null : stdout.trim() || "bubblewrap"));
  });
}

function tryRun(opts: { disableUserns: boolean; filter: Buffer | null }): Promise<{ ok: boolean; stderr: string }> {
  const args = [
    ...isolationArgs({ shareNetwork: false, disableUserns: opts.disableUserns, seccomp: opts.filter !== null }),
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--",
    "true",
  ];
  return new Promise((resolve) => {
    const child = spawn("bwrap", args, { stdio: ["ignore", "ignore", "pipe", opts.filter ? "pipe" : "ignore"] });
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const fd3 = child.stdio[3];
    if (opts.filter && fd3 && "end" in fd3) {
      fd3.on("error", () => {});
      fd3.end(opts.filter);
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ ok: false, stderr: error.message });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, stderr });
    });
  });
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0]?.replace(/^bwrap: /, "") ?? "";
}
