import { dataDir, loadConfig } from "../config/load.js";
import { EventBus } from "../events/bus.js";
import { readLog, SessionLog } from "../events/log.js";
import { ChangeSetBuilder } from "../review/change-set.js";
import { rewindPlan, sessionPlan, undoPlan, type RestorePlan } from "../review/plans.js";
import { restoreFiles } from "../review/restore.js";
import { ContentStore } from "../sessions/content-store.js";
import { findSession } from "../sessions/store.js";
import { Workspace } from "../tools/workspace.js";
import { ConfigError, SessionInUse } from "../util/errors.js";
import type { CliArgs, MainIo } from "./types.js";
import { commandUsage, UsageError } from "./usage.js";

/**
 * `orca undo SESSION [--agent ID] [--checkpoint ID] [--force]`: puts back the files a session (one
 * agent of it, or everything after one checkpoint) changed, from the session's content store —
 * not git: it works outside repositories and leaves the user's git state alone. A file changed
 * since (by another agent, or outside orca) is listed and skipped unless --force. The restores are
 * appended to the session's log, so its change sets (and a later undo) see them.
 * Exit 0 when every file was restored, 1 when some were skipped.
 */
export async function undoCommand(args: CliArgs, io: MainIo, packageDir: string): Promise<number> {
  const id = args.subcommandArgs?.[0];
  if (!id) throw new UsageError("orca undo needs a session id (orca sessions lists them)", commandUsage());
  const { config } = loadConfig({ workspace: args.workspace, configFile: args.configFile, env: io.env, packageDir });
  const dir = dataDir(config);
  const found = findSession(dir, id);
  if ("error" in found) throw new ConfigError(found.error);
  const { events, skipped: damaged } = readLog(found.file);
  if (damaged.length) io.stderr.write(`orca: warning: ${damaged.length} line${damaged.length === 1 ? "" : "s"} of the session log could not be read; their changes are not undone\n`);
  const builder = new ChangeSetBuilder();
  for (const e of events) builder.add(e);
  const plan = planOf(builder, args);
  const out = (line: string) => io.stdout.write(`${line}\n`);
  if (plan.items.length === 0 && plan.skipped.length === 0) {
    out(`orca undo: nothing to undo in session ${found.id}${args.agent ? ` for ${args.agent}` : ""}`);
    return 0;
  }
  let log: SessionLog;
  try {
    log = new SessionLog(found.file);
  } catch (error) {
    if (error instanceof SessionInUse) throw new ConfigError(`session ${found.id} is open in orca (pid ${error.pid}): use /rewind there, or end it first`);
    throw error;
  }
  const rootId = builder.run().agents.find((a) => a.parentId === undefined)?.agentId ?? "main";
  // The session's own config names the dirs it could write besides its workspace (additional_dirs):
  // what an agent changed there is restored too, through the same confined walk and protected paths.
  const extra = loadConfig({ workspace: found.workspace, configFile: args.configFile, env: io.env, packageDir }).config.permissions.additional_dirs;
  try {
    const bus = new EventBus(found.id);
    log.record(bus, (failure) => io.stderr.write(`orca: warning: ${failure.message}\n`));
    const result = await restoreFiles(plan.items, {
      workspace: new Workspace(found.workspace, extra),
      contents: ContentStore.forSession(dir, found.id),
      force: args.force,
      emit: bus.emit,
      agentId: rootId,
      tool: "undo",
    });
    for (const p of result.restored) out(`restored ${p}`);
    for (const p of result.already) out(`already  ${p}: it is as it was`);
    const skipped = [...plan.skipped, ...result.skipped];
    for (const s of skipped) out(`skipped  ${s.path}: ${s.why}`);
    const forceable = result.skipped.filter((s) => s.changedSince).length;
    out(`orca undo: ${result.restored.length} restored, ${skipped.length} skipped${forceable ? ` (${forceable} changed since: --force restores them)` : ""}`);
    return skipped.length ? 1 : 0;
  } finally {
    log.close();
  }
}

function planOf(builder: ChangeSetBuilder, args: CliArgs): RestorePlan {
  if (args.agent !== undefined && args.checkpoint !== undefined) throw new UsageError("orca undo: give --agent or --checkpoint, not both", commandUsage());
  if (args.checkpoint !== undefined) {
    const plan = rewindPlan(builder, args.checkpoint);
    if (plan) return plan;
    const known = builder.checkpointList().map((c) => `${c.id} (${c.label})`);
    throw new ConfigError(`no checkpoint "${args.checkpoint}" in this session${known.length ? `; it has: ${known.join(", ")}` : ""}`);
  }
  if (args.agent !== undefined) {
    const plan = undoPlan(builder, args.agent);
    if (plan) return plan;
    const agents = builder.run().agents.filter((a) => a.files.length).map((a) => a.agentId);
    throw new ConfigError(`no agent "${args.agent}" in this session${agents.length ? `; agents that changed files: ${agents.join(", ")}` : ""}`);
  }
  return sessionPlan(builder);
}
