import type { SessionSetup } from "../orchestrator/create.js";
import type { AgentReport } from "../review/report.js";
import { changeSetLine, plural } from "../review/summary-text.js";

/**
 * A headless run's report when the run has ended: every agent's files with their diffs against the
 * disk now, its commands and tests, its flags — from the events the session's evidence followed
 * (what its log holds; a resumed session's old ones first), not read back from the log: parsing
 * and validating the whole log again cost ~10–30 ms between the last response and exit. Null
 * without a log, as the report has always been.
 */
export function runReport(started: Pick<SessionSetup, "reports" | "session">): AgentReport[] | null {
  return started.session.logFile ? started.reports() : null;
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
