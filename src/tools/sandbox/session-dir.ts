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
  try {
    fs.chmodSync(path.join(dir, "blank-dir"), 0o700);
  } catch {
    // already gone
  }
  fs.rmSync(dir, { recursive: true, force: true });
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
