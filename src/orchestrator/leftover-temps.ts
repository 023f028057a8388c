import path from "node:path";
import type { OrcaEvent } from "../events/types.js";
import { lockCrashedSessions, tempsInLog, tempsNamedBy, type NamedTemps } from "../sessions/leftover-temps.js";
import { removeLeftoverTemp } from "../tools/confined-fs.js";
import { Workspace } from "../tools/workspace.js";

/**
 * At start: removes the temporary files crashed writes left (sessions/leftover-temps.ts) — those
 * of the session being resumed (its events, already read) and those of every crashed session in
 * the data dir. Returns how many were removed.
 */
export async function removeLeftoverTemps(dataDir: string, resumed?: readonly OrcaEvent[]): Promise<number> {
  let removed = resumed ? await removeNamed(tempsNamedBy(resumed)) : 0;
  for (const { file, lock } of lockCrashedSessions(dataDir)) {
    try {
      removed += await removeNamed(tempsInLog(file));
    } finally {
      // Nothing else of the session was touched: a resume or `orca sessions --reap` still finds its leftovers.
      lock.release();
    }
  }
  return removed;
}

async function removeNamed({ workspace, temps }: NamedTemps): Promise<number> {
  if (!workspace || !temps.length) return 0;
  // A temporary file outside the root was in one of the session's additional folders: its own folder is the root there.
  const root = new Workspace(workspace);
  const ws = new Workspace(workspace, temps.filter((t) => !root.contains(t)).map((t) => path.dirname(t)));
  let removed = 0;
  for (const temp of temps) if (await removeLeftoverTemp(ws, temp)) removed++;
  return removed;
}
