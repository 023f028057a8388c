import fs from "node:fs";

/**
 * Reading a file a project put there, before anyone has trusted it: the trust survey, `/init`'s
 * scan and the instructions loader. A link named like the file, a FIFO or a device must not hang
 * or flood orca, so: opened without following the last component and without blocking, read
 * only when the descriptor is a regular file, never more than `maxBytes`.
 */

export type SafeRead = { ok: true; text: string } | { ok: false; reason: string; bytes?: number };

const FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/**
 * `file`'s text. With `real` (a path realpath already resolved and checked), the opened file must
 * be that very one: a folder above it swapped for a link after the check is caught here, where
 * O_NOFOLLOW alone guards only the last component.
 */
export function readRegularFile(file: string, opts: { maxBytes: number; real?: boolean }): SafeRead {
  const before = opts.real ? lstatOrNull(file) : null;
  let fd: number;
  try {
    fd = fs.openSync(file, FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === "ELOOP" ? "a link (not followed)" : code === "ENOENT" ? "not found" : `cannot read: ${code ?? String(error)}` };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { ok: false, reason: "not a regular file" };
    if (opts.real && !sameFile(fd, file, stat, before)) return { ok: false, reason: "changed while it was read (a folder above it was replaced)" };
    if (stat.size > opts.maxBytes) return { ok: false, reason: `${stat.size} bytes, over ${opts.maxBytes}`, bytes: stat.size };
    // The size is a hint (a /proc file says 0): the read itself stops at the cap.
    const buffer = Buffer.alloc(opts.maxBytes + 1);
    let length = 0;
    for (let n; length < buffer.length && (n = fs.readSync(fd, buffer, length, buffer.length - length, null)) > 0; ) length += n;
    if (length > opts.maxBytes) return { ok: false, reason: `over ${opts.maxBytes} bytes`, bytes: length };
    return { ok: true, text: buffer.toString("utf8", 0, length) };
  } finally {
    fs.closeSync(fd);
  }
}

/** Settings files are small; a larger one is not what it claims to be. */
export const MAX_SETTING_BYTES = 1_000_000;

/**
 * A settings file (config.yaml, .mcp.json, a Claude Code settings.json): links followed, as they
 * always were, to a regular file of at most `maxBytes`. The trust survey and the loaders read
 * through it alike, so the survey describes exactly what would load.
 */
export function readSettingFile(file: string, maxBytes = MAX_SETTING_BYTES): SafeRead {
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === "ENOENT" || code === "ENOTDIR" ? "not found" : (code ?? String(error)) };
  }
  return readRegularFile(real, { maxBytes, real: true });
}

/** Whether the open descriptor is the file at the real path `file`: by its kernel path where /proc has it, else by device and inode. */
function sameFile(fd: number, file: string, stat: fs.Stats, before: fs.Stats | null): boolean {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
  } catch {
    return before !== null && before.dev === stat.dev && before.ino === stat.ino;
  }
}

function lstatOrNull(file: string): fs.Stats | null {
  try {
    return fs.lstatSync(file);
  } catch {
    return null;
  }
}
