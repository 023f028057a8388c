import fs from "node:fs";
import path from "node:path";
import type { InputOf, OrcaEvent, Usage } from "../events/types.js";
import { MAX_FILE_BYTES, type ContentSource } from "../sessions/content-store.js";
import { isInside } from "../tools/workspace.js";
import { ChangeSetBuilder, type AgentChangeSet, type FileChange } from "./change-set.js";
import { ActivityLedger, type AgentActivity } from "./commands.js";
import { evidenceFlags, type EvidenceFlag } from "./evidence.js";
import { fileDiff, type FileDiff, type Version } from "./file-diff.js";
import type { TestRun } from "./test-runners.js";
import { clip } from "../util/text.js";

/**
 * An agent's report: its change set (files with diffs) and its evidence (commands, tests, flags),
 * with its task, steps, tokens and cost — what `--output-format json` carries as `report`, what
 * `change_set` summarises, and what the delegate result tells the coordinator.
 */

export interface ReportFile {
  path: string;
  status: FileChange["status"];
  /** Unified diff from the version before the agent's first change to the file now. */
  diff: string;
  added: number;
  removed: number;
  /** Why there is no diff although it changed (binary, a version not kept). */
  note?: string;
}

export interface ReportCommand {
  command: string;
  exit: number | null;
  ms: number;
  tests?: TestRun;
  verify?: true;
}

export interface AgentReport {
  id: string;
  /** Its stable short name: the coordinator's label, else its id (`explorer-1`). */
  label: string;
  name: string;
  parentId?: string;
  task: string;
  status: string;
  steps: number;
  ms?: number;
  files: ReportFile[];
  commands: ReportCommand[];
  flags: EvidenceFlag[];
  usage: Omit<Usage, "cost">;
  cost?: number;
}

export interface ReportSources {
  /** The session's content store: the versions before each change. */
  contents: ContentSource;
  /** The main workspace root: where "now" is read for a merged or shared change. */
  workspaceRoot: string;
}

/** Keeps an agent's change set and activity current from the events, as the log has them. */
export class EvidenceLedger {
  private readonly changes = new ChangeSetBuilder();
  private readonly activity = new ActivityLedger();

  ingest(event: OrcaEvent): void {
    this.changes.add(event);
    this.activity.ingest(event);
  }

  /** One agent's report now; undefined for an agent the log never started. */
  report(agentId: string, sources: ReportSources): AgentReport | undefined {
    const activity = this.activity.get(agentId);
    const changeSet = this.changes.agent(agentId);
    if (!activity || !changeSet) return undefined;
    return agentReport(activity, changeSet, sources);
  }

  /** Every agent's report, in start order (the coordinator first). */
  reports(sources: ReportSources): AgentReport[] {
    return this.changes
      .run()
      .agents.map((changeSet) => {
        const activity = this.activity.get(changeSet.agentId);
        return activity ? agentReport(activity, changeSet, sources) : undefined;
      })
      .filter((r): r is AgentReport => r !== undefined);
  }
}

export function agentReport(activity: AgentActivity, changeSet: AgentChangeSet, sources: ReportSources): AgentReport {
  const files = changeSet.files.map((f) => reportFile(f, sources));
  const { cost, ...usage } = activity.usage;
  return {
    id: activity.id,
    label: changeSet.label ?? activity.label ?? activity.id,
    name: activity.name,
    ...(activity.parentId ? { parentId: activity.parentId } : {}),
    task: changeSet.task || activity.task,
    status: activity.status,
    steps: activity.steps,
    ...(activity.startedAt !== undefined && activity.finishedAt !== undefined ? { ms: activity.finishedAt - activity.startedAt } : {}),
    files,
    commands: activity.commands.map((c) => ({ command: c.command, exit: c.exit, ms: c.ms, ...(c.tests ? { tests: c.tests } : {}), ...(c.verify ? { verify: true as const } : {}) })),
    flags: evidenceFlags(activity, files),
    usage,
    ...(cost !== undefined ? { cost } : {}),
  };
}

function reportFile(change: FileChange, sources: ReportSources): ReportFile {
  const root = change.worktree ?? sources.workspaceRoot;
  const diff = fileDiff(change, sources.contents, readNow(root, change.path));
  return { path: change.path, status: change.status, diff: diff.text, ...lineCounts(diff), ...(diff.binary ? { note: "binary" } : diff.unavailable ? { note: diff.unavailable } : {}) };
}

/**
 * The file now, read as a file tool would: never through a symlink or out of the workspace (a
 * command may have swapped the changed file for a link to a secret, or to /dev/zero), never a
 * FIFO (its open would wait for a writer and hold the process) or a file larger than the store
 * keeps. Such a file has no "now" to diff against; a missing one is deleted.
 */
function readNow(root: string, relative: string): Version {
  const file = path.resolve(root, relative);
  let fd: number;
  try {
    const folder = fs.realpathSync(path.dirname(file));
    // A path in an additional dir is named absolute: the log's own, checked when it was written.
    if (!path.isAbsolute(relative) && !isInside(fs.realpathSync(root), folder)) return "not-kept";
    fd = fs.openSync(path.join(folder, path.basename(file)), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : "not-kept";
  }
  try {
    const stat = fs.fstatSync(fd);
    return stat.isFile() && stat.size <= MAX_FILE_BYTES ? fs.readFileSync(fd) : "not-kept";
  } catch {
    return "not-kept";
  } finally {
    fs.closeSync(fd);
  }
}

function lineCounts(diff: FileDiff): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const hunk of diff.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
    }
  }
  return { added, removed };
}

const SUMMARY_CHARS = 500;

/**
 * The `change_set` event of a report: its summary, without the diffs. The task and commands are
 * clipped: both are whole elsewhere in the log, and a summary line as long as a pasted prompt would
 * push the run's answer out of the tail that `orca sessions` reads.
 */
export function changeSetEvent(report: AgentReport): InputOf<"change_set"> {
  return {
    type: "change_set",
    agentId: report.id,
    ...(report.parentId ? { parentId: report.parentId } : {}),
    label: report.label,
    task: clip(report.task, SUMMARY_CHARS),
    status: report.status,
    steps: report.steps,
    files: report.files.map((f) => ({ path: f.path, status: f.status, added: f.added, removed: f.removed })),
    commands: report.commands.map((c) => ({ ...c, command: clip(c.command, SUMMARY_CHARS) })),
    flags: report.flags,
    usage: { ...report.usage, ...(report.cost !== undefined ? { cost: report.cost } : {}) },
  };
}

/** Every agent's report from a whole log (a headless run's end, `orca` reading a past session). */
export function reportsFromLog(events: Iterable<OrcaEvent>, sources: ReportSources): AgentReport[] {
  const ledger = new EvidenceLedger();
  for (const event of events) ledger.ingest(event);
  return ledger.reports(sources);
}
