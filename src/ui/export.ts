import fs from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../tools/confined-fs.js";
import { Workspace } from "../tools/workspace.js";
import { writeFileAtomicSync } from "../util/atomic-write.js";
import type { AgentView, DashboardState, Entry } from "./state/types.js";

/** `/export [file]`: the conversation as Markdown, from what the dashboard holds. */

function agentMarkdown(agent: AgentView, heading: string): string[] {
  const out = [`## ${heading}`, ""];
  if (agent.dropped) out.push(`_(${agent.dropped} older lines were dropped from the view and are not here; the session log has them)_`, "");
  let prev: Entry["kind"] | undefined;
  for (const e of agent.entries) {
    if (e.kind === "user" && prev !== "user") out.push("", "**You:**", "");
    if (e.kind !== "user" && prev === "user") out.push("");
    if (e.kind === "tool") out.push(`- \`${e.name}\` ${e.summary}${e.state === "ok" ? "" : ` — ${e.state}${e.error ? `: ${e.error}` : ""}`}`);
    else if (e.kind === "thinking") out.push(`> ${e.text}`);
    else if (e.kind === "user") out.push(`> ${e.text}`);
    else out.push(e.text);
    prev = e.kind;
  }
  return out;
}

export function conversationMarkdown(state: DashboardState, when = new Date()): string {
  const root = state.agents[state.rootAgentId];
  const out = [`# orca session ${state.session.id ?? ""}`.trimEnd(), "", `Exported ${when.toISOString().slice(0, 16).replace("T", " ")} UTC${state.session.model ? ` · model ${state.session.model}` : ""}`, ""];
  if (root) out.push(...agentMarkdown(root, "Coordinator"), "");
  for (const id of state.order) {
    const a = state.agents[id];
    if (a) out.push(...agentMarkdown(a, `Sub-agent ${a.name}${a.label ? ` [${a.label}]` : ""}${a.task ? `: ${a.task.split("\n")[0]}` : ""}`), "");
  }
  return `${out.join("\n").replace(/\n{3,}/g, "\n\n").trimEnd()}\n`;
}

export interface ExportTarget {
  file: string;
  force: boolean;
}

/** "/export", "/export notes.md", "/export --force notes.md". */
export function exportTarget(arg: string, sessionId: string): ExportTarget {
  const force = /^--force(\s+|$)/.test(arg);
  const file = (force ? arg.replace(/^--force\s*/, "") : arg).trim() || `orca-${sessionId}.md`;
  return { file, force };
}

/**
 * Writes `text` to the target: a relative name lands in the workspace (confined, no symlink
 * followed); an absolute path or ~/… the person typed is theirs to choose. Atomic either way; an
 * existing file is replaced only with --force. Returns the path written, or throws one line.
 */
export async function writeExport(workspaceRoot: string, target: ExportTarget, text: string, home = process.env.HOME): Promise<string> {
  const typed = target.file.startsWith("~/") && home ? path.join(home, target.file.slice(2)) : target.file;
  const abs = path.resolve(workspaceRoot, typed);
  if (fs.existsSync(abs) && !target.force) throw new Error(`${target.file} exists; /export --force ${target.file} replaces it`);
  const workspace = new Workspace(workspaceRoot);
  if (!path.isAbsolute(typed)) {
    // Relative: confined to the workspace like an agent's write (a symlinked folder is refused).
    await writeFileAtomic(workspace, workspace.resolve(typed), text, { createParents: true });
    return abs;
  }
  if (fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink()) throw new Error(`${target.file} is a symlink; name the file itself`);
  writeFileAtomicSync(abs, text);
  return abs;
}
