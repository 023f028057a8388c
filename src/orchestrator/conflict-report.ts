import { describeChange } from "../tools/version-messages.js";
import type { FileVersions } from "../tools/versions.js";

/** An agent as the user knows it: "editor-2 [fix subtract]". */
export function agentDisplayName(id: string, label?: string): string {
  return label ? `${id} [${label}]` : id;
}

const MAX_LISTED = 10;

/**
 * The lines a delegate result gets for the writes of this sub-agent run that were refused because
 * the file had changed (or was never read), so the parent can re-plan: who changed which file, and
 * whether the sub-agent got its change in afterwards. Empty when there were none.
 */
export function conflictReport(versions: FileVersions, agentId: string, from: number, now = Date.now()): string[] {
  const conflicts = versions.conflictsOf(agentId, from);
  if (conflicts.length === 0) return [];
  const unresolved = conflicts.filter((c) => !c.resolved).length;
  const lines = [
    `write conflicts: ${conflicts.length} refused (${unresolved} not written since) — the file had changed or was not read first`,
  ];
  for (const c of conflicts.slice(-MAX_LISTED)) {
    const rel = versions.workspace.relative(c.path);
    const who = c.change ? ` (${describeChange(c.change, versions.nameOf, now)})` : "";
    const why = `${c.reason === "unread" ? "not read first" : "changed since read"}${who}`;
    const state = c.resolved ? "written later by this agent" : "NOT written";
    lines.push(`  ${rel}: ${c.tool} refused, ${why}; ${state}`);
  }
  if (conflicts.length > MAX_LISTED) lines.push(`  … and ${conflicts.length - MAX_LISTED} earlier`);
  return lines;
}
