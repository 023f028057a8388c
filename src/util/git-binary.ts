import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Which `git` orca runs, and the PATH git itself gets. Looked up through the inherited PATH on
 * every call, `git` could be one a sandboxed command planted: in `<workspace>/node_modules/.bin`
 * (npm run and npx put it on PATH), in `~/.local/bin` when the workspace is the home directory, in
 * `.` — and orca would then run it unsandboxed. So git is looked up once, as an absolute path, in
 * PATH entries that are absolute and outside every area a command can write.
 */

const writableRoots = new Set<string>();
let resolved: string | null | undefined;

/**
 * Areas a sandboxed command can write (the workspace, additional dirs, sandbox.writable,
 * isolated agents' worktrees): no `git` is taken from under them. Added before orca's first git call.
 */
export function addWritableRoots(roots: readonly string[]): void {
  let added = false;
  for (const root of roots) {
    for (const form of [path.resolve(root), realpathOr(path.resolve(root))]) {
      if (!writableRoots.has(form)) {
        writableRoots.add(form);
        added = true;
      }
    }
  }
  // One found before may be inside an area only known now.
  if (added && resolved && isUnderWritable(resolved)) resolved = undefined;
}

/** The absolute path of the git orca runs; null when no PATH entry outside the writable areas has one. */
export function gitBinary(): string | null {
  if (resolved !== undefined) return resolved;
  resolved = null;
  for (const dir of safePathEntries()) {
    const candidate = path.join(dir, "git");
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (!fs.statSync(candidate).isFile() || isUnderWritable(fs.realpathSync(candidate))) continue;
    } catch {
      continue;
    }
    resolved = candidate;
    break;
  }
  return resolved;
}

/** The inherited PATH without relative entries and entries inside a writable area: git's own PATH. */
export function safePath(): string {
  return safePathEntries().join(path.delimiter);
}

function safePathEntries(): string[] {
  return (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => dir !== "" && path.isAbsolute(dir) && !isUnderWritable(path.resolve(dir)) && !isUnderWritable(realpathOr(dir)));
}

/** The cwd and temp dirs count too: a workspace is usually the cwd, and commands share /tmp. */
function isUnderWritable(target: string): boolean {
  const roots = [...writableRoots, process.cwd(), realpathOr(process.cwd()), os.tmpdir(), realpathOr(os.tmpdir()), "/tmp", "/var/tmp", "/dev/shm"].filter((root) => path.parse(root).root !== root);
  return roots.some((root) => target === root || target.startsWith(root.endsWith(path.sep) ? root : root + path.sep));
}

function realpathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}
