import type { EmitFn } from "../events/types.js";
import type { ContentSource } from "../sessions/content-store.js";
import { readEntryConfined, removeConfined, writeFileAtomic } from "../tools/confined-fs.js";
import { protectedReason } from "../tools/permissions/protected-paths.js";
import type { Workspace } from "../tools/workspace.js";
import { contentHash } from "../util/content-hash.js";
import { errorLine } from "../util/text.js";

/**
 * Puts files back to versions from the content store: rewind to a checkpoint, undo an agent, the
 * hunks a review rejected. Each file is restored only when it is still the version the log last
 * recorded (`expected`); one changed since — by another agent, or outside orca — is listed and
 * skipped unless forced. A path comes from the log, which is a file anyone with the user's rights
 * can edit, so it is trusted no more than a model's: it must resolve inside the workspace, it may not
 * be a protected path (git's hooks and config, orca's settings: never restored, even forced), and
 * every write goes through the confined walk (tools/confined-fs.ts: no symlink followed in any
 * component, a temporary file renamed over the target). Contents are checked against their hash.
 */

export interface RestoreItem {
  /** As the log names it: workspace-relative (absolute in an additional dir). */
  path: string;
  /** The version to put back (null: the file should not exist). */
  to: string | null;
  /** The version the file must be now (null: absent); a mismatch skips it unless forced. */
  expected: string | null;
  /** Set when the log has a later change by someone else ("editor-2 [fix subtract]"): skipped unless forced. */
  changedBy?: string;
}

export interface RestoreResult {
  restored: string[];
  /** Files that were already the version wanted: nothing written. */
  already: string[];
  /** Files not restored, each with why (changed since, not kept, protected, outside, failed). */
  skipped: Array<{ path: string; why: string; changedSince?: boolean }>;
}

export interface RestoreOptions {
  workspace: Workspace;
  contents: ContentSource;
  /** Restore files changed since all the same (never a protected or outside path). */
  force?: boolean;
  /** Logs each restore (file_write before it lands, file_changed for a removal), so change sets see it. */
  emit?: EmitFn;
  /** Whose restore it is in the log: the root for rewind and undo, the reviewed agent for a rejected hunk. */
  agentId: string;
  tool: "rewind" | "undo" | "review";
}

/** Files restored at once: their syncs overlap (a plan names each path once, so none races another). */
const BATCH = 16;

export async function restoreFiles(items: readonly RestoreItem[], opts: RestoreOptions): Promise<RestoreResult> {
  const result: RestoreResult = { restored: [], already: [], skipped: [] };
  const unique = [...new Map(items.map((i) => [i.path, i])).values()];
  for (let i = 0; i < unique.length; i += BATCH) {
    const batch = unique.slice(i, i + BATCH);
    const outcomes = await Promise.all(batch.map((item) => restoreOne(item, opts)));
    outcomes.forEach((why, k) => {
      const item = batch[k]!;
      if (why === null) result.restored.push(item.path);
      else if (why === "already") result.already.push(item.path);
      else result.skipped.push({ path: item.path, ...why });
    });
  }
  return result;
}

async function restoreOne(item: RestoreItem, opts: RestoreOptions): Promise<{ why: string; changedSince?: boolean } | "already" | null> {
  const { workspace } = opts;
  let abs: string;
  try {
    abs = workspace.resolve(item.path);
  } catch (error) {
    return { why: `not restored: ${errorLine(error)}` };
  }
  // Judged on the path as resolved: a link inside the workspace may lead into .git.
  const relative = workspace.relative(abs);
  const guarded = protectedReason(relative, workspace);
  if (guarded) return { why: `not restored: ${guarded.split(" — ")[0]} (restore it by hand if you mean to)` };
  let now: string | null;
  try {
    const entry = await readEntryConfined(workspace, abs);
    if (entry.kind === "link" || entry.kind === "other") return { why: "not restored: it is not a regular file now" };
    now = entry.kind === "missing" ? null : contentHash(entry.bytes);
  } catch (error) {
    return { why: `not restored: ${errorLine(error)}` };
  }
  if (now === item.to) return "already";
  if (!opts.force) {
    if (item.changedBy) return { why: `changed since by ${item.changedBy}: not overwritten`, changedSince: true };
    if (now !== item.expected) return { why: `${now === null ? "deleted" : "changed"} since, outside orca: not overwritten`, changedSince: true };
  }
  const base = { agentId: opts.agentId, tool: opts.tool, path: relative };
  try {
    if (item.to === null) {
      await removeConfined(workspace, abs);
      opts.emit?.({ type: "file_changed", ...base, before: now, after: null });
      return null;
    }
    const bytes = opts.contents.read(item.to);
    if (!bytes) return { why: "not restored: that version was not kept (too large, or the store was full)" };
    await writeFileAtomic(workspace, abs, bytes, {
      createParents: true,
      onTemp: (temp) => opts.emit?.({ type: "file_write", ...base, before: now, after: item.to!, temp: workspace.relative(temp) }),
    });
    return null;
  } catch (error) {
    return { why: `not restored: ${errorLine(error)}` };
  }
}
