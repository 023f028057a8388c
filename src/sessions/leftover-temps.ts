import fs from "node:fs";
import path from "node:path";
import type { OrcaEvent } from "../events/types.js";
import { PidLock } from "../util/pid-lock.js";
import { sessionFileNames, sessionsDir } from "./store.js";

/**
 * Temporary files a crash left behind. A file tool logs file_write, naming its temporary file,
 * before it creates it (tools/builtin/file-writes.ts); a crash before the rename leaves that file
 * beside its target. The log names every such file, so the next start removes exactly those:
 * those of the session it resumes, and those of every session whose log lock is stale (its last
 * holder died without closing it: a crash, by definition). Only orca's exact temporary name is
 * ever removed (tools/confined-fs.ts: removeLeftoverTemp).
 */

export interface NamedTemps {
  /** The session's workspace root, which the temporary paths are relative to. */
  workspace: string;
  /** Absolute paths. */
  temps: string[];
}

/** The temporary files a session's events name. */
export function tempsNamedBy(events: readonly OrcaEvent[]): NamedTemps {
  const started = events.find((e) => e.type === "session_started");
  const workspace = started?.type === "session_started" ? started.workspace : "";
  const temps = new Set<string>();
  for (const e of events) if (e.type === "file_write" && workspace) temps.add(path.resolve(workspace, e.temp));
  return { workspace, temps: [...temps] };
}

/**
 * The same, read from a log file without parsing every event: only the first session_started and
 * the file_write lines are parsed (a crashed session's log can be long, and this runs at start).
 */
export function tempsInLog(file: string): NamedTemps {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return { workspace: "", temps: [] };
  }
  let workspace = "";
  const temps = new Set<string>();
  for (const line of text.split("\n")) {
    const wanted = workspace ? line.includes('"file_write"') : line.includes('"session_started"');
    if (!wanted) continue;
    let event: { type?: unknown; workspace?: unknown; temp?: unknown };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      continue;
    }
    if (!workspace && event.type === "session_started" && typeof event.workspace === "string") workspace = event.workspace;
    else if (workspace && event.type === "file_write" && typeof event.temp === "string") temps.add(path.resolve(workspace, event.temp));
  }
  return { workspace, temps: [...temps] };
}

/**
 * The sessions a crashed process left: each log whose lock file names a process that is gone. Each
 * comes back locked by this process (so no resume starts on it meanwhile); release it when done.
 * A lock held by a live process is left alone: that session is running.
 */
export function lockCrashedSessions(dataDir: string): { file: string; lock: PidLock }[] {
  const dir = sessionsDir(dataDir);
  const names = sessionFileNames(dataDir, ".jsonl.lock");
  const out: { file: string; lock: PidLock }[] = [];
  for (const name of names) {
    const lockFile = path.join(dir, name);
    let lock: ReturnType<typeof PidLock.acquire>;
    try {
      lock = PidLock.acquire(lockFile);
    } catch {
      continue;
    }
    if ("heldBy" in lock) continue;
    out.push({ file: lockFile.slice(0, -".lock".length), lock });
  }
  return out;
}
