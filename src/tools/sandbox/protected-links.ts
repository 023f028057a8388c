import fs from "node:fs";
import path from "node:path";
import type { InputOf } from "../../events/types.js";

/**
 * The symbolic links on the way to a protected path that a sandboxed command could replace.
 *
 * The sandbox keeps protected paths read-only (orca's compile cache and config, `.claude/`, a git
 * dir…) and pins every folder above them, so none can be renamed away (protected.ts). A link cannot
 * be pinned: bwrap's mounts follow it to its target, and the link is only an entry of a writable
 * folder. In a workspace that is the home with `~/.cache -> ~/real-cache` (or a dotfiles manager's
 * `~/.config/orca -> ~/dotfiles/orca`), `rm ~/.cache && mkdir -p ~/.cache/orca/compile-cache` plants
 * what the next start runs as the user, outside any sandbox. Nothing at that start can tell the
 * planted folder from the user's: the link is gone. So the session that let the command run
 * remembers each such link before any command runs, and after each command (and at close, once
 * every shell has been stopped) puts it back when it was replaced, moving what stood there aside.
 */
export interface WatchedLink {
  /** The link itself (its folder a real path). */
  path: string;
  /** What it holds, as readlink(2) gives it: put back byte for byte. */
  target: string;
}

/** What a check found and did for one link. */
export interface LinkRepair {
  link: string;
  target: string;
  /** Where what had taken the link's place was moved; empty when nothing was there. */
  movedTo: string;
  /** Set when the link could not be put back: why. The user should look before the next start. */
  failed?: string;
}

/** Links followed before giving up: the kernel's own limit. */
const MAX_HOPS = 40;

/**
 * The links on the way to `p` (absolute) whose folder `isWritable` says a command can write, in
 * order; links in folders no command can write need nothing. A part of the path that is missing
 * ends the walk: mkdir makes folders, not links.
 */
export function linksOnTheWay(p: string, isWritable: (dir: string) => boolean): WatchedLink[] {
  const out: WatchedLink[] = [];
  const rest = path.resolve(p).split(path.sep).filter(Boolean);
  let dir = path.parse(path.resolve(p)).root;
  let hops = 0;
  while (rest.length) {
    const name = rest.shift()!;
    if (name === ".") continue;
    if (name === "..") {
      dir = path.dirname(dir);
      continue;
    }
    const next = path.join(dir, name);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(next);
    } catch {
      break;
    }
    if (!stat.isSymbolicLink()) {
      dir = next;
      continue;
    }
    if (++hops > MAX_HOPS) break;
    let target: string;
    try {
      target = fs.readlinkSync(next);
    } catch {
      break;
    }
    if (isWritable(dir)) out.push({ path: next, target });
    rest.unshift(...target.split(path.sep).filter(Boolean));
    if (path.isAbsolute(target)) dir = path.parse(target).root;
  }
  return out;
}

/** The links a session watches: recorded before its first command; checked before and after each, and at close. */
export class LinkWatch {
  private readonly links = new Map<string, WatchedLink>();

  /** `report` hears of each check's repairs, when there are any. */
  constructor(private readonly report: (repairs: LinkRepair[]) => void = () => {}) {}

  /** Adds the links on the way to each of `paths`; a link already watched keeps what it was first. */
  record(paths: readonly string[], isWritable: (dir: string) => boolean): void {
    for (const p of paths) for (const link of linksOnTheWay(p, isWritable)) if (!this.links.has(link.path)) this.links.set(link.path, link);
  }

  /**
   * Puts back every watched link a command replaced (removed, or something else in its place: a
   * folder, a file, another link), moving what is there now aside to `<link>.orca-replaced-<time>`.
   * Synchronous: it runs in a process 'exit' handler too. Each repair is in the answer.
   */
  restore(now: Date = new Date()): LinkRepair[] {
    const repairs: LinkRepair[] = [];
    for (const link of this.links.values()) {
      const repair = restoreLink(link, now);
      if (repair) repairs.push(repair);
    }
    try {
      if (repairs.length) this.report(repairs);
    } catch {
      // A reporter that throws (a closed log) must not stop a command's end or the close: the links are back.
    }
    return repairs;
  }
}

/** One link: null while it is still the user's (a link holding the same target). */
export function restoreLink(link: WatchedLink, now: Date = new Date()): LinkRepair | null {
  let present = true;
  try {
    if (fs.lstatSync(link.path).isSymbolicLink() && fs.readlinkSync(link.path) === link.target) return null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return { link: link.path, target: link.target, movedTo: "", failed: (error as Error).message };
    present = false;
  }
  let movedTo = "";
  try {
    if (present) {
      movedTo = asideName(link.path, now);
      // A rename, not a removal: what is there is kept for the user to look at, and a rename never
      // follows a link inside it.
      fs.renameSync(link.path, movedTo);
    }
    fs.symlinkSync(link.target, link.path);
    return { link: link.path, target: link.target, movedTo };
  } catch (error) {
    return { link: link.path, target: link.target, movedTo, failed: (error as Error).message };
  }
}

/** `<link>.orca-replaced-<time>`, with a counter when that name is taken. */
function asideName(link: string, now: Date): string {
  const base = `${link}.orca-replaced-${now.toISOString().replace(/[:.]/g, "-")}`;
  for (let n = 0; ; n++) {
    const name = n ? `${base}-${n}` : base;
    try {
      fs.lstatSync(name);
    } catch {
      return name;
    }
  }
}

/** The event of one repair, told to the user (the dashboard and the headless stderr). */
export function linkRestoredEvent(repair: LinkRepair, agentId: string): InputOf<"protected_link_restored"> {
  return { type: "protected_link_restored", agentId, path: repair.link, target: repair.target, movedTo: repair.movedTo, ...(repair.failed ? { failed: repair.failed } : {}) };
}
