import fs from "node:fs";
import path from "node:path";
import { openConfinedForRead } from "./confined-fs.js";
import { errorMessage, looksBinary } from "./builtin/paths.js";
import type { Workspace } from "./workspace.js";

/**
 * The files a person names with `@path` in the dashboard: read under the same confinement as
 * read_file (inside the workspace, no symlink followed, `read_file(PATTERN)` deny rules hold), so
 * a mention can never show the model what an agent's read_file would be refused.
 */

/** Bigger than this, a file is not pasted into a prompt: the model reads it with read_file instead. */
export const MAX_ATTACH_BYTES = 256 * 1024;

export type Attached = { ok: true; path: string; text: string } | { ok: false; error: string };

export interface AttachDeps {
  workspace: Workspace;
  /** The deny rule hiding a workspace-relative path from read_file, if any. */
  readDenied(relative: string): string | undefined;
}

export async function readAttachment(deps: AttachDeps, given: string): Promise<Attached> {
  const { workspace } = deps;
  let abs: string;
  try {
    abs = workspace.resolve(given);
  } catch (error) {
    return { ok: false, error: `@${given}: ${errorMessage(error)}` };
  }
  const relative = workspace.relative(abs);
  // Both spellings are judged: the rule may name the path as typed or as it resolved.
  const rule = deps.readDenied(relative) ?? deps.readDenied(given);
  if (rule) return { ok: false, error: `@${given}: hidden by the deny rule ${rule}` };
  let handle;
  try {
    handle = await openConfinedForRead(workspace, abs);
    const stat = await handle.stat();
    if (!stat.isFile()) return { ok: false, error: `@${given}: not a regular file` };
    if (stat.size > MAX_ATTACH_BYTES) return { ok: false, error: `@${given}: ${stat.size} bytes, more than ${MAX_ATTACH_BYTES} can be attached; ask the agent to read it` };
    const data = await handle.readFile();
    if (looksBinary(data)) return { ok: false, error: `@${given}: a binary file; only text files can be attached` };
    return { ok: true, path: relative, text: data.toString("utf8") };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, error: `@${given}: ${code === "ENOENT" ? "no such file" : errorMessage(error)}` };
  } finally {
    await handle?.close();
  }
}

const SKIPPED = new Set([".git", "node_modules"]);
const CONTROL_CHAR = /[\u0000-\u001F\u007F-\u009F]/;

/**
 * What `@typed` completes to: the entries of the folder `typed` names whose names start with what
 * follows its last slash — folders end in `/`. Symlinks, denied files and anything outside the
 * workspace are not offered.
 */
export function mentionCandidates(deps: AttachDeps, typed: string, max = 50): string[] {
  const slash = typed.lastIndexOf("/");
  const folder = slash < 0 ? "" : typed.slice(0, slash + 1);
  const start = typed.slice(slash + 1);
  let dir: string;
  try {
    dir = deps.workspace.resolve(folder || ".");
  } catch {
    return [];
  }
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!e.name.startsWith(start) || SKIPPED.has(e.name)) continue;
    // A control character in a name is an escape sequence waiting for a terminal, or a line break in
    // the prompt: such a file is not offered (it can still be read by an agent's tools).
    if (CONTROL_CHAR.test(e.name)) continue;
    // A dot entry only when a dot was typed, as a shell completes.
    if (e.name.startsWith(".") && !start.startsWith(".")) continue;
    if (!e.isFile() && !e.isDirectory()) continue;
    const relative = path.relative(deps.workspace.root, path.join(dir, e.name)).split(path.sep).join("/");
    if (e.isFile() && deps.readDenied(relative)) continue;
    out.push(`${folder}${e.name}${e.isDirectory() ? "/" : ""}`);
    if (out.length >= max) break;
  }
  return out;
}
