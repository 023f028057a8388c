import { openConfinedIfExists } from "./confined-fs.js";
import type { Workspace } from "./workspace.js";

/**
 * The unified diff a file-changing call would make, for the permission dialog. Each tool that
 * changes files computes its own preview from these helpers (Tool.preview).
 */

/** Files above this size get no preview: a dialog cannot show them and diffing them is not cheap. */
export const PREVIEW_MAX_BYTES = 256 * 1024;
const PREVIEW_MAX_LINES = 400;

/**
 * The previewable text at `relativePath` and its label: `before` is null for a missing file and
 * "too-big" for one the dialog cannot show.
 */
export async function readForPreview(workspace: Workspace, relativePath: string): Promise<{ before: string | null | "too-big"; label: string }> {
  const absolute = workspace.resolve(relativePath);
  return { before: await readSmall(workspace, absolute), label: workspace.relative(absolute) };
}

/** Read without following a symlink: a link swapped in after the check shows no preview, not its target. */
async function readSmall(workspace: Workspace, file: string): Promise<string | null | "too-big"> {
  let handle;
  try {
    handle = await openConfinedIfExists(workspace, file);
  } catch {
    return "too-big";
  }
  if (!handle) return null;
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > PREVIEW_MAX_BYTES) return "too-big";
    return await handle.readFile("utf8");
  } catch {
    return "too-big";
  } finally {
    await handle.close();
  }
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * One-hunk unified diff: the common head and tail are trimmed and the middle shown as removed and
 * added lines with three lines of context. Not minimal inside the hunk, but exact and linear, which
 * is what a confirmation dialog needs.
 */
export function unifiedDiff(before: string, after: string, label: string, created = false): string {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const header = [created ? "--- /dev/null" : `--- a/${label}`, `+++ b/${label}`];
  if (head === a.length && head === b.length) return header.join("\n") + "\n";
  const context = 3;
  const start = Math.max(0, head - context);
  const aEnd = a.length - tail;
  const bEnd = b.length - tail;
  const trailing = Math.min(tail, context);
  const aCount = aEnd + trailing - start;
  const bCount = bEnd + trailing - start;
  const range = (from: number, count: number): string => `${count === 0 ? from : from + 1},${count}`;
  const body = [
    ...a.slice(start, head).map((l) => ` ${l}`),
    ...a.slice(head, aEnd).map((l) => `-${l}`),
    ...b.slice(head, bEnd).map((l) => `+${l}`),
    ...a.slice(aEnd, aEnd + trailing).map((l) => ` ${l}`),
  ];
  const shown = body.length > PREVIEW_MAX_LINES ? [...body.slice(0, PREVIEW_MAX_LINES), `… ${body.length - PREVIEW_MAX_LINES} more lines`] : body;
  return [...header, `@@ -${range(start, aCount)} +${range(start, bCount)} @@`, ...shown].join("\n") + "\n";
}
