import path from "node:path";
import { readLog } from "../events/log.js";
import { reportsFromLog, type AgentReport } from "../review/report.js";
import { changeSetLine, plural } from "../review/summary-text.js";
import { ContentStore } from "../sessions/content-store.js";

/**
 * A headless run's report, read back from its session log when the run has ended: every agent's
 * files with their diffs against the disk now, its commands and tests, its flags. Null without a
 * log (nothing to build it from).
 */
export function runReport(logFile: string | null, sessionId: string, workspaceRoot: string): AgentReport[] | null {
  if (!logFile) return null;
  // The content store sits beside the log: <data_dir>/sessions/<id>.content.
  const contents = ContentStore.forSession(path.dirname(path.dirname(logFile)), sessionId);
  return reportsFromLog(readLog(logFile).events, { contents, workspaceRoot });
}

/** The text format's few lines after the answer: per agent that did something, its files, tests and flags. */
export function textReport(reports: readonly AgentReport[]): string[] {
  const busy = reports.filter((r) => r.files.length || r.commands.length || r.flags.length);
  if (!busy.length) return [];
  const lines = [`orca: run report (${plural(busy.length, "agent")} with changes, commands or flags)`];
  for (const r of busy) {
    const summary = changeSetLine({ files: r.files, commands: r.commands, flags: r.flags }).text.replace(/^change set: /, "");
    lines.push(`  ${r.label}: ${summary}`);
    for (const f of r.files) lines.push(`    ${f.status} ${f.path} (+${f.added} −${f.removed})`);
    for (const flag of r.flags) lines.push(`    ⚑ unverified (${flag.rule}): ${flag.message}`);
  }
  return lines;
}
