import fsp from "node:fs/promises";
import path from "node:path";
import type { FileTouch, InputOf } from "../events/types.js";
import { MAX_FILE_BYTES, type ContentKeeper } from "../sessions/content-store.js";
import { contentHash, hashFile } from "./file-version.js";
import type { Change } from "./version-messages.js";

/** What one agent knows of one file: the version it last saw (read versions, versions.ts). */
export interface Seen {
  hash: string;
  /** Set when the agent changed a version it had not seen whole; `over` is the change it missed. */
  partial?: { over?: Change };
}

/**
 * What an agent knows after changing a file from `before` to `after`: the new version whole if it
 * knew `before` whole, else only its own change (and the change it missed, for the message).
 */
export function afterChange(seen: Seen | undefined, before: string, after: string, lastChange: Change | undefined): Seen {
  if (seen && !seen.partial && seen.hash === before) return { hash: after };
  if (!seen) return { hash: after, partial: {} };
  if (seen.hash !== before) return { hash: after, partial: { over: lastChange } };
  return { hash: after, partial: seen.partial };
}

/**
 * The file_changed events of a command's changes (the scan after it found them: `touches`), each
 * with the file's version when the command started (`baseline`, absolute path → hash), so a change
 * set can diff and undo what a command did as it does a write_file (DESIGN §14).
 */
export function commandChanges(
  call: { agentId: string; parentId?: string; callId: string },
  root: string,
  baseline: ReadonlyMap<string, string> | undefined,
  touches: readonly FileTouch[],
): InputOf<"file_changed">[] {
  const events: InputOf<"file_changed">[] = [];
  for (const t of touches) {
    if (t.change !== "bash") continue;
    const before = baseline?.get(path.resolve(root, t.path)) ?? null;
    if (before !== t.hash) events.push({ type: "file_changed", agentId: call.agentId, parentId: call.parentId, callId: call.callId, tool: "bash", path: t.path, before, after: t.hash });
  }
  return events;
}

/**
 * A known file's hash, found changed by its stat: a version that differs from `prior` is kept in
 * the content store, since a later change of it is diffed from it and restored to it.
 */
export async function hashKeeping(abs: string, size: number, prior: string, contents: ContentKeeper): Promise<string> {
  if (size > MAX_FILE_BYTES) return hashFile(abs, size);
  const data = await fsp.readFile(abs);
  const hash = contentHash(data);
  if (hash !== prior) contents.keep(data, hash);
  return hash;
}
