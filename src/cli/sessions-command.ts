import { listSessions, sessionsDir, type SessionInfo } from "../sessions/store.js";
import { clip, oneLine } from "../util/text.js";

/** `orca sessions`: every logged session, most recently active first, one line each. */
export function formatSessions(dataDir: string, sessions: SessionInfo[] = listSessions(dataDir)): string[] {
  if (!sessions.length) return [`sessions: none in ${sessionsDir(dataDir)}`];
  const lines = [`sessions in ${sessionsDir(dataDir)} (most recent first; resume with orca --resume ID):`];
  const rows = sessions.map((s) => [
    s.id,
    formatTime(s.startedAt),
    s.status + (s.resumes ? ` (resumed ${s.resumes}×)` : ""),
    s.workspace,
    clip(oneLine(s.firstPrompt), 60) || "(no prompt)",
  ]);
  const header = ["ID", "STARTED", "STATUS", "WORKSPACE", "FIRST PROMPT"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.slice(0, 200).map((r) => r[i]!.length)));
  const fmt = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  lines.push(`  ${fmt(header)}`);
  for (const r of rows) lines.push(`  ${fmt(r)}`);
  return lines;
}

function formatTime(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

