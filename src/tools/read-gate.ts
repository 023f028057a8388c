import path from "node:path";
import { namedPaths } from "./permissions/protected-paths.js";
import type { AnyTool } from "./tool.js";
import type { Workspace } from "./workspace.js";

/**
 * The engine's half of a `read_file(PATTERN)` deny rule for every tool, built-in or MCP: a call
 * whose declared reads name a hidden file is refused before it runs, whichever tool it is, so a
 * tool does not have to remember the rule. A built-in declares what it reads (`Tool.reads`); an
 * MCP tool declares nothing, so every path its arguments name counts as read (a move, a copy or an
 * edit of a hidden file gives its content away as surely as a read).
 */

/** The workspace-relative paths whose content this call may hand back (outside the workspace: left out). */
export function declaredReads(tool: AnyTool, args: unknown, workspace: Workspace): string[] {
  if (tool.reads) return tool.reads(args, workspace).flatMap((p) => relativeInside(workspace, p));
  return tool.jsonSchema ? namedPaths(args, workspace) : [];
}

/** The first declared read a deny rule hides, with the rule, or null when the call may read all of them. */
export function hiddenRead(tool: AnyTool, args: unknown, workspace: Workspace, readDenied: (relative: string) => string | undefined): { path: string; rule: string } | null {
  for (const p of declaredReads(tool, args, workspace)) {
    const rule = readDenied(p);
    if (rule) return { path: p, rule };
  }
  return null;
}

function relativeInside(workspace: Workspace, p: string): string[] {
  let real: string;
  try {
    real = workspace.resolve(p);
  } catch {
    return [];
  }
  const rel = path.relative(workspace.root, real);
  return rel.startsWith("..") || path.isAbsolute(rel) ? [] : [rel || "."];
}
