import { applyPatch, formatPatch, reversePatch, structuredPatch, type StructuredPatch, type StructuredPatchHunk } from "diff";
import type { ContentSource } from "../sessions/content-store.js";
import type { FileChange, FileStatus } from "./change-set.js";

/**
 * Diffs of a change set's files, computed on demand (DESIGN §14) with jsdiff: from the version
 * before the first change (read from the content store) to the file now (or the version the log
 * last recorded). Hunks are numbered in order, so a review can accept or reject them one by one.
 */

/** Lines of context around a change, as git shows it. */
const CONTEXT = 3;
/** A NUL in the first bytes marks a file as binary, as git decides. */
const BINARY_PROBE = 8000;

export interface DiffHunk {
  /** Its position in the file's diff, from 0. */
  index: number;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** The hunk's lines with their ' ', '-', '+' or '\' prefix. */
  lines: string[];
}

export interface FileDiff {
  path: string;
  status: FileStatus;
  /** The unified diff ("" when there is none to show: binary, or a version not kept). */
  text: string;
  hunks: DiffHunk[];
  binary: boolean;
  /** Why there is no diff although the file changed: a version was not kept (too large, store full). */
  unavailable?: string;
}

/** A version of a file as a diff reads it: bytes, absent (null), or not kept. */
export type Version = Buffer | null | "not-kept";

/** The version with `hash` from the store (null hash: no file). */
export function versionOf(hash: string | null, contents: ContentSource): Version {
  if (hash === null) return null;
  return contents.read(hash) ?? "not-kept";
}

/**
 * The diff of one file from `before` to `after`. `label` names it in the headers; `status` is the
 * change's (a file recreated by a restore keeps its status from the change set).
 */
export function diffVersions(label: string, status: FileStatus, before: Version, after: Version): FileDiff {
  const base = { path: label, status };
  if (before === "not-kept" || after === "not-kept") {
    const which = before === "not-kept" ? "the version before" : "the version after";
    return { ...base, text: "", hunks: [], binary: false, unavailable: `${which} was not kept (larger than the store keeps, or the store was full)` };
  }
  if (isBinary(before) || isBinary(after)) return { ...base, text: "", hunks: [], binary: true };
  const patch = patchOf(label, before, after);
  if (!patch) return { ...base, text: "", hunks: [], binary: false, unavailable: TOO_LARGE };
  return { ...base, text: patch.hunks.length ? formatPatch(patch, { includeIndex: false, includeUnderline: false, includeFileHeaders: true }) : "", hunks: patch.hunks.map(toHunk), binary: false };
}

/** A change set's file diffed from its first version to `now` (the file on disk); without `now`, to its recorded last version. */
export function fileDiff(change: FileChange, contents: ContentSource, now?: Version): FileDiff {
  return diffVersions(change.path, change.status, versionOf(change.before, contents), now === undefined ? versionOf(change.after, contents) : now);
}

/**
 * `now` with the hunks numbered `reject` (of the diff from `before` to `now`) undone: exactly those
 * lines go back to what `before` had, every other change stays. Null when a hunk no longer applies.
 */
export function withoutHunks(label: string, before: string, now: string, reject: readonly number[]): string | null {
  const patch = patchOf(label, Buffer.from(before), Buffer.from(now));
  if (!patch) return null;
  const wanted = new Set(reject);
  const hunks = patch.hunks.filter((_, i) => wanted.has(i));
  if (hunks.length !== wanted.size) return null;
  if (hunks.length === 0) return now;
  const undone = applyPatch(now, reversePatch({ ...patch, hunks }));
  return undone === false ? null : undone;
}

/**
 * Myers' diff costs lines × edits: a 4 MiB file rewritten whole took minutes and held a headless
 * run's exit (its report diffs every changed file). Past these bounds the change is listed, not diffed.
 */
const MAX_DIFF_BYTES = 1024 * 1024;
const MAX_EDIT_LENGTH = 4000;
const TOO_LARGE = `too large to diff here (over ${MAX_DIFF_BYTES >> 20} MiB, or over ${MAX_EDIT_LENGTH} changed lines)`;

/** The patch from `before` to `after`, or undefined when it would cost too much to compute. */
function patchOf(label: string, before: Buffer | null, after: Buffer | null): StructuredPatch | undefined {
  if ((before?.length ?? 0) > MAX_DIFF_BYTES || (after?.length ?? 0) > MAX_DIFF_BYTES) return undefined;
  const oldName = before === null ? "/dev/null" : `a/${label}`;
  const newName = after === null ? "/dev/null" : `b/${label}`;
  return structuredPatch(oldName, newName, before?.toString("utf8") ?? "", after?.toString("utf8") ?? "", undefined, undefined, { context: CONTEXT, maxEditLength: MAX_EDIT_LENGTH });
}

function toHunk(h: StructuredPatchHunk, index: number): DiffHunk {
  return { index, oldStart: h.oldStart, oldLines: h.oldLines, newStart: h.newStart, newLines: h.newLines, lines: h.lines };
}

export function isBinary(data: Buffer | null): boolean {
  return data !== null && data.subarray(0, BINARY_PROBE).includes(0);
}
