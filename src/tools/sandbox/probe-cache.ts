import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeFileAtomicSync } from "../../util/atomic-write.js";
import { probeBwrap, type ProbeResult } from "./probe.js";

/**
 * The bwrap probe (probe.ts) runs two or three bwrap processes, on every start before the first
 * request. Its answer depends only on the bwrap binary and on what the kernel lets a user do, so a
 * successful answer is kept in a file and used again while all of that reads as it did:
 * - the bwrap that PATH finds: its real path, device, inode, size and modification time (an
 *   upgrade, a rebuild or another bwrap first on PATH probes again);
 * - the kernel (os.release(), and the uid it runs as);
 * - the switches that turn unprivileged user namespaces off without a new kernel
 *   (kernel.unprivileged_userns_clone, user.max_user_namespaces, AppArmor's restriction);
 * - whether the probe tried the seccomp filter, and this file's format.
 * Anything else — a missing, unreadable or foreign file, any field that differs — probes again.
 * Only a working sandbox is kept: a machine where bwrap fails probes at every start, so fixing it
 * needs no step of the user's. A kept answer that has gone stale in a way the key cannot see makes
 * commands fail to start in bwrap, never run outside it.
 *
 * The file decides how commands are confined, so no command may write it: it lives in orca's cache
 * folder beside the compile cache, which code-paths.ts keeps out of every writable area.
 */
const FORMAT = 1;

const USERNS_SWITCHES = ["/proc/sys/kernel/unprivileged_userns_clone", "/proc/sys/user/max_user_namespaces", "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"];

interface CachedProbe {
  key: string;
  version: string;
  disableUserns: boolean;
}

/** The first `bwrap` on PATH, as execFile would find it; null when there is none. */
export function findBwrap(pathEnv: string | undefined = process.env.PATH): string | null {
  for (const dir of (pathEnv ?? "").split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, "bwrap");
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

function readSwitch(file: string): string {
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    return "-";
  }
}

/** What the probe's answer depends on, as one string; null when there is no bwrap to key on. */
export function probeKey(opts: { seccomp: boolean }, pathEnv?: string): string | null {
  const bwrap = findBwrap(pathEnv);
  if (!bwrap) return null;
  try {
    const real = fs.realpathSync(bwrap);
    const st = fs.statSync(real);
    return JSON.stringify([FORMAT, real, st.dev, st.ino, st.size, st.mtimeMs, os.release(), process.getuid?.() ?? -1, ...USERNS_SWITCHES.map(readSwitch), opts.seccomp]);
  } catch {
    return null;
  }
}

/** A kept answer is a few hundred bytes; anything much larger is not one. */
const MAX_BYTES = 64 * 1024;

function readCache(file: string): CachedProbe | null {
  let fd: number | null = null;
  try {
    // Not through a link, and the checks below are of what is read: a link to a file of the
    // user's elsewhere (a workspace's) is not believed, and a FIFO swapped in cannot hang the start.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    const st = fs.fstatSync(fd);
    // Only the user's own file, writable by no one else.
    if (!st.isFile() || st.size > MAX_BYTES || st.uid !== (process.getuid?.() ?? st.uid) || (st.mode & 0o022) !== 0) return null;
    const value = JSON.parse(fs.readFileSync(fd, "utf8")) as Partial<CachedProbe>;
    if (typeof value.key !== "string" || typeof value.version !== "string" || typeof value.disableUserns !== "boolean") return null;
    return { key: value.key, version: value.version, disableUserns: value.disableUserns };
  } catch {
    return null;
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
}

/**
 * probeBwrap's answer, from `file` when it was kept for the same key, else from a probe (a
 * successful one is kept). Without a file, always a probe.
 */
export async function cachedProbeBwrap(opts: { seccomp: boolean }, file: string | undefined): Promise<ProbeResult> {
  if (!file || process.platform !== "linux") return probeBwrap(opts);
  const key = probeKey(opts);
  if (key) {
    const kept = readCache(file);
    if (kept?.key === key) return { ok: true, version: kept.version, disableUserns: kept.disableUserns };
  }
  const probe = await probeBwrap(opts);
  // The key is read again: a bwrap replaced while it was probed is not kept under the old one.
  if (probe.ok && probe.version && key && probeKey(opts) === key) {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      writeFileAtomicSync(file, JSON.stringify({ key, version: probe.version, disableUserns: probe.disableUserns } satisfies CachedProbe), { mode: 0o600 });
    } catch {
      // A cache folder that cannot be written only costs the next start a probe.
    }
  }
  return probe;
}
