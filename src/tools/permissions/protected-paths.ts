import path from "node:path";
import { isInside, type Workspace } from "../workspace.js";

/**
 * Paths whose content makes something run later, outside any sandbox: git's config and hooks,
 * orca's and other agents' settings, MCP server commands, editors' tasks. A write to one always
 * asks (every mode but bypass; an allow rule does not cover it, only an "always" for that very
 * path does). The sandbox keeps the same paths read-only for commands (sandbox/protected.ts).
 */
const PROTECTED: readonly { name: string; why: string }[] = [
  { name: ".git", why: "can make git run commands (config, hooks)" },
  { name: ".orca", why: "holds orca's config, agents and skills" },
  { name: ".mcp.json", why: "names MCP server commands orca starts" },
  { name: ".claude", why: "holds Claude Code settings and hooks" },
  { name: ".agents", why: "holds agent skills" },
  { name: ".vscode", why: "holds editor tasks and settings that can run commands" },
  { name: ".idea", why: "holds IDE run configurations" },
];

/** The protected names, `.git` aside: the sandbox keeps them read-only in every writable root (sandbox/protected.ts). */
export const PROTECTED_NAMES: readonly string[] = PROTECTED.map((p) => p.name).filter((n) => n !== ".git");

/** At the workspace root only: a shell or git reads them when the workspace is a home directory. */
export const PROTECTED_AT_ROOT = [".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile", ".zshenv", ".gitconfig", ".gitmodules"];

/**
 * Why writing `relative` (workspace-relative, symlinks resolved) must ask, or null. Any path
 * segment counts, so a nested repository's `.git/hooks` is protected too.
 */
export function protectedReason(relative: string, workspace?: Workspace): string | null {
  // One of orca's own folders inside a workspace that holds them (a home directory). Not one that
  // holds the workspace itself: an isolated agent's worktree lives in the data dir.
  if (workspace) {
    const absolute = path.resolve(workspace.root, relative);
    const own = workspace.guarded.find((g) => isInside(g.path, absolute) && !isInside(g.path, workspace.root));
    if (own) return `protected path: ${relative} — ${own.what}`;
  }
  // A path in an additional dir is named absolute: it is judged from that dir, as the sandbox does.
  if (workspace && path.isAbsolute(relative)) {
    const dir = workspace.additionalDirs.find((d) => isInside(d, relative));
    const inDir = dir ? protectedReason(path.relative(dir, relative) || ".")?.replace(`: ${path.relative(dir, relative)}`, `: ${relative}`) : null;
    if (inDir) return inDir;
  }
  // Compared without case: on a case-insensitive file system (macOS) `.GIT/config` is `.git/config`.
  const segments = relative
    .split(/[\\/]+/)
    .filter((s) => s && s !== ".")
    .map((s) => s.toLowerCase());
  if (segments.length === 0 || segments[0] === "..") return null;
  for (const { name, why } of PROTECTED) {
    if (segments.includes(name)) return `protected path: ${relative} — ${name} ${why}`;
  }
  if (segments.length === 1 && PROTECTED_AT_ROOT.includes(segments[0]!)) return `protected path: ${relative} — the shell or git reads it`;
  return null;
}

/** Argument names MCP file tools use for the paths they write (filesystem, git, editors' servers). */
const PATH_KEYS = new Set(["path", "paths", "file", "files", "file_path", "filepath", "filePath", "filename", "destination", "dest", "target", "source", "new_path", "old_path", "directory", "dir", "uri"]);

/**
 * The workspace paths an MCP tool's arguments name, workspace-relative: string values (or lists
 * of them, or objects one level down, as in `edits[].path`) under a path-like key, taken from the
 * workspace root when relative, `file://` URIs included. Paths outside the workspace are left out
 * here; outsidePaths() lists them.
 */
export function namedPaths(args: unknown, workspace: Workspace): string[] {
  const out = new Set<string>();
  for (const p of pathArguments(args)) {
    let real: string;
    try {
      real = workspace.resolve(p);
    } catch {
      continue;
    }
    const rel = path.relative(workspace.root, real);
    if (!rel.startsWith("..") && !path.isAbsolute(rel)) out.add(rel || ".");
  }
  return [...out];
}

/**
 * The paths an MCP tool's arguments name that land outside the workspace and its additional
 * dirs (after `..` and symlinks): a server's own hints cannot vouch for what it does there.
 */
export function outsidePaths(args: unknown, workspace: Workspace): string[] {
  const out = new Set<string>();
  for (const p of pathArguments(args)) {
    try {
      workspace.resolve(p);
    } catch {
      out.add(p);
    }
  }
  return [...out];
}

/** String values under a path-like key, `file://` URIs decoded; the workspace judges them. */
function pathArguments(args: unknown): string[] {
  const out: string[] = [];
  const add = (value: unknown) => {
    if (typeof value !== "string" || !value) return;
    if (!value.startsWith("file://")) return void out.push(value);
    try {
      out.push(decodeURIComponent(new URL(value).pathname));
    } catch {
      // not a URI a file system could open
    }
  };
  const visit = (value: unknown, depth: number) => {
    if (!value || typeof value !== "object" || depth > 2) return;
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (PATH_KEYS.has(key)) {
        if (Array.isArray(v)) v.forEach(add);
        else add(v);
      } else if (Array.isArray(v)) v.forEach((item) => visit(item, depth + 1));
      else if (v && typeof v === "object") visit(v, depth + 1);
    }
  };
  visit(args, 0);
  return out;
}
