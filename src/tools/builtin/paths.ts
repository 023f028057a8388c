import type { Access } from "../../events/types.js";
import { fail, type PermissionSubject, type ToolResult } from "../tool.js";
import type { Workspace } from "../workspace.js";

/** Resolved absolute path, or the failure to return when the path is refused. */
export type Resolved = { path: string; error?: undefined } | { path?: undefined; error: ToolResult };

export function resolveArg(workspace: Workspace, p: string, tool: string): Resolved {
  try {
    return { path: workspace.resolve(p) };
  } catch (err) {
    return { error: fail(`${tool}: ${errorMessage(err)}`) };
  }
}

function tryResolve(workspace: Workspace, p: string): string | null {
  try {
    return workspace.resolve(p);
  } catch {
    return null;
  }
}

// A path that does not resolve touches nothing: execute refuses it before any I/O.
export function readAccess(workspace: Workspace, p: string): Access {
  const resolved = tryResolve(workspace, p);
  return { reads: resolved ? [resolved] : [], writes: [] };
}

export function writeAccess(workspace: Workspace, p: string): Access {
  const resolved = tryResolve(workspace, p);
  return { reads: [], writes: resolved ? [resolved] : [] };
}

export function pathSubject(workspace: Workspace, p: string): PermissionSubject {
  const resolved = tryResolve(workspace, p);
  return { kind: "path", value: resolved ? workspace.relative(resolved) : p };
}

/** Like git: a NUL byte in the first 8000 bytes means binary. */
export function looksBinary(data: Buffer): boolean {
  return data.subarray(0, 8000).includes(0);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A one-line failure for a filesystem error on `display` (the path as the model wrote it). */
export function fsFailure(tool: string, display: string, err: unknown): ToolResult {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return fail(`${tool}: ${display} does not exist`);
    case "EACCES":
    case "EPERM":
      return fail(`${tool}: permission denied for ${display}`);
    case "EISDIR":
      return fail(`${tool}: ${display} is a directory`);
    case "ENOTDIR":
      return fail(`${tool}: a parent of ${display} is not a directory`);
    default:
      return fail(`${tool}: ${display}: ${errorMessage(err)}`);
  }
}

export function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n} ${n === 1 ? word : pluralWord}`;
}
