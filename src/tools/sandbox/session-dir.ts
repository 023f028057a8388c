import fs from "node:fs";
import path from "node:path";
import { readManifest, remove as removeStandIn } from "./protected.js";
import { pidExists } from "../../util/proc.js";

/**
 * A session's own directory under the temp dir: its owner's pid, the blanks mounted over what must
 * not be read, the private /tmp of its commands, the proxy socket, and the manifest of its
 * stand-ins. Other sessions read it to know which stand-ins are still in use.
 */

export const SESSION_PREFIX = "orca-sandbox-";
const OWNER = "owner.pid";
export const STAND_INS = "stand-ins.json";

/** The session dirs of this user's orca processes, with whether their owner still runs. */
function sessionDirs(tmpDir: string): Array<{ dir: string; running: boolean }> {
  let entries: string[];
  try {
    entries = fs.readdirSync(tmpDir).filter((e) => e.startsWith(SESSION_PREFIX));
  } catch {
    return [];
  }
  const out: Array<{ dir: string; running: boolean }> = [];
  for (const entry of entries) {
    const dir = path.join(tmpDir, entry);
    try {
      if (fs.lstatSync(dir).uid !== process.getuid?.()) continue;
      const owner = Number(fs.readFileSync(path.join(dir, OWNER), "utf8"));
      // No owner yet: a session dir being made right now.
      if (Number.isInteger(owner) && owner > 0) out.push({ dir, running: pidExists(owner) });
    } catch {
      // not ours, or not finished being made
    }
  }
  return out;
}

/** The stand-ins other running orca sessions have listed: not to be removed from under them. */
export function standInsInUse(tmpDir: string, ownDir?: string): Set<string> {
  const paths = new Set<string>();
  for (const { dir, running } of sessionDirs(tmpDir)) {
    if (!running || dir === ownDir) continue;
    for (const p of readManifest(path.join(dir, STAND_INS))) paths.add(p.path);
  }
  return paths;
}

/**
 * Cleans up after orca processes that died without doing it themselves: their stand-ins in the
 * workspace (an empty .mcp.json directory would otherwise stay, and warn at every start) and their
 * session dirs.
 */
export function removeAbandoned(tmpDir: string): void {
  const dead = sessionDirs(tmpDir).filter((s) => !s.running);
  if (!dead.length) return;
  const inUse = standInsInUse(tmpDir);
  for (const { dir } of dead) {
    for (const p of readManifest(path.join(dir, STAND_INS))) if (!inUse.has(p.path)) removeStandIn(p);
    removeSessionDir(dir);
  }
}

export function removeSessionDir(dir: string): void {
  if (!removeFlat(dir)) removeTree(dir);
}

/**
 * The usual end of a session dir: files and empty directories only (its commands' /tmp left
 * empty), removed entry by entry, the owner's pid last so that a crash half-way leaves a dir the
 * sweep still recognises. Node's recursive rm first loads and compiles its own module, ~1–3 ms on
 * the way out of every run. False when anything is left (a non-empty /tmp): removeTree then.
 */
function removeFlat(dir: string): boolean {
  try {
    const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => Number(a.name === OWNER) - Number(b.name === OWNER));
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) fs.rmdirSync(full);
      else fs.unlinkSync(full);
    }
    fs.rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

function removeTree(dir: string): void {
  try {
    fs.chmodSync(path.join(dir, "blank-dir"), 0o700);
  } catch {
    // already gone
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * This process's session dir, made when a command first needs it (or at open, for a proxy's
 * socket): a run that runs no command makes none and has none to remove on its way out, where
 * removing its few entries took 1–4 ms of every run's exit on a busy disk.
 */
export class SessionDir {
  private made: string | null = null;

  constructor(private readonly tmpDir: string) {}

  /** Its path if it was made. */
  get path(): string | null {
    return this.made;
  }

  /** Its path, made now if it was not. */
  ensure(): string {
    return (this.made ??= makeSessionDir(this.tmpDir));
  }

  /** Removes it if it was made. */
  remove(): void {
    if (this.made) removeSessionDir(this.made);
  }
}

/** Makes this process's session dir: owner first, so no other session takes it for abandoned. */
export function makeSessionDir(tmpDir: string): string {
  const dir = fs.mkdtempSync(path.join(tmpDir, SESSION_PREFIX));
  fs.writeFileSync(path.join(dir, OWNER), String(process.pid));
  fs.writeFileSync(path.join(dir, "blank"), "", { mode: 0o000 });
  fs.mkdirSync(path.join(dir, "blank-dir"), { mode: 0o000 });
  fs.mkdirSync(path.join(dir, "tmp"), { mode: 0o700 });
  return dir;
}
