import path from "node:path";
import { namedPaths } from "./permissions/protected-paths.js";
import type { AnyTool } from "./tool.js";
import type { Workspace } from "./workspace.js";

/**
 * Where a call that writes wrote, for the check of the repositories it may have made right after
 * it (Sandbox.afterWrite): absolute paths; [] when there is nothing to check here (a command: its
 * sandbox's end checks; a shell's control); null when the tool cannot say (an MCP server writes
 * where it likes: the paths its arguments name, else a walk).
 */
export function writtenPaths(tool: AnyTool, args: unknown, workspace: Workspace): string[] | null {
  let access;
  try {
    access = tool.access(args, workspace);
  } catch {
    return null;
  }
  if (access === "exclusive") return null;
  if (access.command) return [];
  const files = access.writes.filter((p) => path.isAbsolute(p));
  if (!access.writes.some((p) => p.startsWith("mcp:"))) return files;
  const named = namedPaths(args, workspace).map((rel) => path.resolve(workspace.root, rel));
  return named.length ? [...files, ...named] : null;
}
