import path from "node:path";
import { removeOrphanContent } from "../sessions/content-store.js";
import { describeReaped, describeUnproven, reapSessions } from "../sessions/leftovers.js";
import { listedSessions, listSessions, sessionsDir, type SessionInfo } from "../sessions/store.js";
import { clip, oneLine } from "../util/text.js";

/**
 * `orca sessions`: the sessions a user can resume, most recently active first, one line each.
 * Runs that never got an answer (a bad key, a failed start) are left out unless `all`, and
 * marked when shown; demo sessions never appear.
 */
export function formatSessions(dataDir: string, opts: { all?: boolean } = {}, sessions: SessionInfo[] = listSessions(dataDir)): string[] {
  const shown = listedSessions(sessions, opts);
  const hidden = listedSessions(sessions, { all: true }).length - shown.length;
  const hiddenNote = hidden ? `${hidden} that never got an answer not shown (orca sessions --all lists them)` : "";
  if (!shown.length) return [`sessions: none in ${sessionsDir(dataDir)}${hiddenNote ? `; ${hiddenNote}` : ""}`];
  const lines = [`sessions in ${sessionsDir(dataDir)} (most recent first; resume with orca --resume ID):`];
  const rows = shown.map((s) => [
    s.id,
    formatTime(s.startedAt),
    s.status + (s.answered ? "" : ", no answer") + (s.resumes ? ` (resumed ${s.resumes}×)` : ""),
    s.workspace,
    clip(oneLine(s.firstPrompt), 60) || "(no prompt)",
  ]);
  const header = ["ID", "STARTED", "STATUS", "WORKSPACE", "FIRST PROMPT"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.slice(0, 200).map((r) => r[i]!.length)));
  const fmt = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  lines.push(`  ${fmt(header)}`);
  for (const r of rows) lines.push(`  ${fmt(r)}`);
  if (hiddenNote) lines.push(`(${hiddenNote})`);
  return lines;
}

/**
 * /sessions in the dashboard: this folder's sessions as `orca sessions` lists them (none that never
 * got an answer, no demo), with the one running here called what it is — its log has no end yet,
 * which a listing alone would read as a crash.
 */
export function dashboardSessions(sessions: SessionInfo[], workspace: string, liveId: string): { id: string; startedAt: number; status: string; firstPrompt: string }[] {
  return listedSessions(sessions)
    .filter((s) => path.resolve(s.workspace) === path.resolve(workspace))
    .map((s) => ({
      id: s.id,
      startedAt: s.startedAt,
      status: s.id === liveId ? "this session" : s.status + (s.resumes ? ` (resumed ${s.resumes}×)` : ""),
      firstPrompt: clip(oneLine(s.firstPrompt), 60) || "(no prompt)",
    }));
}

function formatTime(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** `orca sessions --reap`: one line for each process group ended, or one saying there was none. */
export async function reapCommand(dataDir: string): Promise<string[]> {
  const reaped = await reapSessions(listSessions(dataDir).map((s) => s.file));
  const lines = reaped.flatMap((r) => [...r.ended.map((p) => describeReaped(p, r.sessionId)), ...r.unproven.map((p) => describeUnproven(p, r.sessionId))]);
  const running = reaped.filter((r) => r.inUseBy !== undefined).length;
  if (!lines.length) lines.push("no process left running by a crashed run");
  if (running) lines.push(`(${running} session${running === 1 ? "" : "s"} in use by a running orca left alone)`);
  // A session's kept file versions go with it: those whose log was deleted are removed here.
  const orphans = removeOrphanContent(dataDir);
  if (orphans.length) lines.push(`removed the kept file versions of ${orphans.length} deleted session${orphans.length === 1 ? "" : "s"}: ${orphans.join(", ")}`);
  return lines;
}
