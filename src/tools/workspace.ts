import fs from "node:fs";
import path from "node:path";
import { realpathOr } from "../util/fs.js";

export class WorkspaceError extends Error {
  override readonly name = "WorkspaceError";
}

/**
 * The directory the agents work in. Every file path a tool touches goes through `resolve`, which
 * refuses anything that lands outside the workspace (or `additionalDirs`) once `..` and symlinks
 * are resolved.
 */
/** One of orca's own folders (config/code-paths.ts): what is written there runs or is trusted later. */
export interface GuardedPath {
  path: string;
  what: string;
}

export class Workspace {
  readonly root: string;
  readonly additionalDirs: string[];
  /** orca's own folders; those inside the workspace (a home directory) are protected paths for the file tools. */
  readonly guarded: readonly GuardedPath[];

  constructor(root: string, additionalDirs: string[] = [], guarded: readonly GuardedPath[] = []) {
    this.root = realpathOr(path.resolve(root));
    this.additionalDirs = additionalDirs.map((d) => realpathOr(path.resolve(this.root, d)));
    this.guarded = guarded.map((g) => ({ path: realpathOr(path.resolve(g.path)), what: g.what }));
  }

  /**
   * Absolute, normalised path for `p` (relative paths are taken from the root). Symlinks of the
   * longest existing prefix are resolved, so a link pointing outside is caught even when the
   * final component does not exist yet.
   */
  resolve(p: string): string {
    if (typeof p !== "string" || p.length === 0) throw new WorkspaceError("path is empty");
    if (p.includes("\0")) throw new WorkspaceError("path contains a NUL byte");
    const expanded = p.startsWith("~/") ? path.join(process.env.HOME ?? "~", p.slice(2)) : p;
    const absolute = path.resolve(this.root, expanded);
    const real = realpathOfLongestExistingPrefix(absolute);
    if (!this.contains(real)) {
      throw new WorkspaceError(`path ${p} is outside the workspace ${this.root}`);
    }
    return real;
  }

  contains(absolute: string): boolean {
    return [this.root, ...this.additionalDirs].some((dir) => isInside(dir, absolute));
  }

  /** Workspace-relative display form ("." for the root); absolute when outside the root. */
  relative(absolute: string): string {
    if (!isInside(this.root, absolute)) return absolute;
    return path.relative(this.root, absolute) || ".";
  }
}

export function isInside(dir: string, target: string): boolean {
  const rel = path.relative(dir, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function realpathOfLongestExistingPrefix(absolute: string, hops = 0): string {
  const tail: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = fs.realpathSync.native(current);
      return tail.length ? path.join(real, ...tail.reverse()) : real;
    } catch {
      // A dangling symlink fails realpath but still redirects a write: follow it by hand.
      const link = readlinkOrNull(current);
      if (link !== null && hops < 40) {
        const target = path.resolve(path.dirname(current), link);
        return realpathOfLongestExistingPrefix(path.join(target, ...tail.reverse()), hops + 1);
      }
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      tail.push(path.basename(current));
      current = parent;
    }
  }
}

function readlinkOrNull(p: string): string | null {
  try {
    return fs.readlinkSync(p);
  } catch {
    return null;
  }
}
