import fs from "node:fs";
import path from "node:path";
import { importsOf } from "./instruction-imports.js";
import { readRegularFile } from "./safe-read.js";

/**
 * Project instructions, the convention other agents' CLIs share: `AGENTS.md` (and Claude Code's
 * `CLAUDE.md`, with its `@path` imports) in the workspace and the folders above it up to the
 * repository root, plus the user's own `~/.config/orca/AGENTS.md`. Their text joins the system
 * prompt. A project's files are as untrusted as its config: every file and import must resolve,
 * symlinks followed, inside instructionBound() (the workspace, or the repository holding it); a
 * deny rule hides one as it would from a tool or command; the total is capped; an import chain
 * that comes back on itself stops there.
 */

export const INSTRUCTION_FILE_NAMES = ["AGENTS.md", "CLAUDE.md"] as const;

/** Claude Code's own limit on nested imports. */
const MAX_IMPORT_DEPTH = 5;

export interface InstructionFile {
  /** As the user knows it: relative to the workspace (`../AGENTS.md` above it), or `~/…` for the user's own. */
  name: string;
  path: string;
  source: "user" | "project";
  /** The file whose `@path` brought this one in. */
  importedBy?: string;
  /** The real path of the file found in a folder that this one is, or was imported (at any depth) from. */
  origin: string;
  chars: number;
}

export interface InstructionsReport {
  /** The prompt section, or "" when nothing was loaded. */
  text: string;
  files: InstructionFile[];
  /** Files found but not used, and why: outside the repository, denied, too large, a cycle. */
  skipped: { name: string; reason: string; origin?: string }[];
}

export interface LoadInstructionsOptions {
  workspace: string;
  home: string;
  /** False for a folder the user has not trusted: only the user's own file is read. */
  project: boolean;
  /** Why this absolute path must not be read (a `read_file` deny rule, `sandbox.deny_read`, a protected path), if it must not. */
  readDenied(absolute: string): string | undefined;
  /** The most characters all files together may add to a system prompt. */
  maxChars: number;
}

/** The user's own instructions file: beside config.yaml, where orca keeps the rest of the user's settings. */
export function userInstructionsPath(home: string): string {
  return path.join(home, ".config", "orca", "AGENTS.md");
}

/** The nearest folder at or above `dir` holding `.git` (a folder, or a worktree's file), or null. */
export function repositoryRoot(dir: string): string | null {
  for (let current = dir; ; current = path.dirname(current)) {
    if (fs.existsSync(path.join(current, ".git"))) return current;
    if (path.dirname(current) === current) return null;
  }
}

/**
 * The folder a project's instructions and their imports must stay in: the repository that holds
 * the workspace, unless that is the home folder or above it (a dotfiles repository at `~` would
 * make all of home, keys included, the project); otherwise the workspace itself. Real paths.
 */
export function instructionBound(workspace: string, home: string): string {
  const root = canonical(workspace);
  const repository = repositoryRoot(root);
  if (!repository) return root;
  const top = canonical(repository);
  return inside(top, root) && !inside(top, canonical(home)) ? top : root;
}

/** The project's instruction files that exist, outermost folder first (each folder: AGENTS.md, then CLAUDE.md), up to instructionBound(). */
export function projectInstructionFiles(workspace: string, home: string): string[] {
  const root = canonical(workspace);
  const top = instructionBound(root, home);
  const folders: string[] = [];
  for (let current = root; ; current = path.dirname(current)) {
    folders.unshift(current);
    if (current === top || path.dirname(current) === current) break;
  }
  return folders.flatMap((folder) => INSTRUCTION_FILE_NAMES.map((name) => path.join(folder, name))).filter((file) => lexists(file));
}

export function loadInstructions(opts: LoadInstructionsOptions): InstructionsReport {
  const workspace = path.resolve(opts.workspace);
  const report: InstructionsReport = { text: "", files: [], skipped: [] };
  const sections: string[] = [];
  let budget = opts.maxChars;
  const seen = new Set<string>();
  const nameOf = (file: string, source: "user" | "project") =>
    source === "user" ? `~/${path.relative(opts.home, file)}` : path.relative(workspace, file) || path.basename(file);

  const add = (file: string, source: "user" | "project", confine: string | null, chain: string[], importedBy?: string): void => {
    const name = nameOf(file, source);
    const origin = chain[0];
    const skip = (reason: string) => void report.skipped.push({ name, reason, ...(origin ? { origin } : {}) });
    const real = realFile(file);
    if (!real) return skip(lexists(file) ? "not a regular file" : "not found");
    if (confine && !inside(confine, real)) return skip(`resolves outside the ${confine === canonical(workspace) ? "workspace" : "repository"} (${real})`);
    if (chain.includes(real)) return skip(`import cycle (${[...chain, real].map((p) => nameOf(p, source)).join(" → ")})`);
    if (seen.has(real)) return;
    const denied = opts.readDenied(real) ?? (real !== file ? opts.readDenied(file) : undefined);
    if (denied) return skip(`hidden by the deny rule ${denied}`);
    const text = readText(real, budget);
    if (typeof text !== "string" && "reason" in text) return skip(text.reason);
    const size = typeof text === "string" ? `${text.length} characters` : `${text.bytes} bytes`;
    if (typeof text !== "string" || text.length > budget) return skip(`${size}; over what is left of instructions.max_chars (${budget} of ${opts.maxChars})`);
    seen.add(real);
    budget -= text.length;
    report.files.push({ name, path: real, source, origin: origin ?? real, chars: text.length, ...(importedBy ? { importedBy } : {}) });
    sections.push(`## ${name}${importedBy ? ` (imported by ${importedBy})` : source === "user" ? " (the user's own)" : ""}\n\n${text.trim()}`);
    if (path.basename(file) !== "CLAUDE.md" && !importedBy) return;
    if (chain.length + 1 > MAX_IMPORT_DEPTH) {
      if (importsOf(text).length) skip(`imports deeper than ${MAX_IMPORT_DEPTH} levels are not followed`);
      return;
    }
    for (const target of importsOf(text)) {
      const resolved = target.startsWith("~/") ? path.join(opts.home, target.slice(2)) : path.resolve(path.dirname(real), target);
      add(resolved, source, confine, [...chain, real], name);
    }
  };

  const own = userInstructionsPath(opts.home);
  if (lexists(own)) add(own, "user", null, []);
  if (opts.project) {
    const confine = instructionBound(workspace, opts.home);
    for (const file of projectInstructionFiles(workspace, opts.home)) add(file, "project", confine, []);
  }
  if (sections.length) {
    report.text = [
      "# Instructions from the user and the project",
      "These files (AGENTS.md, CLAUDE.md and their imports) hold the conventions of this project and the user's preferences. " +
        "Follow them where they apply to your task; the user's messages come first when they differ.",
      ...sections,
    ].join("\n\n");
  }
  return report;
}

/** The real path of a regular file, or null (missing, a folder, a dangling link). */
function realFile(file: string): string | null {
  try {
    const real = fs.realpathSync(file);
    return fs.statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

/**
 * The file's text; why not, when it holds a NUL byte or is no regular file to read; its size, unread,
 * when its bytes could not fit `maxChars` characters. `real` is already resolved and confined:
 * the read refuses a file reached any other way by the time it is opened.
 */
function readText(real: string, maxChars: number): string | { bytes: number } | { reason: string } {
  // UTF-8 takes at most 4 bytes a character: past that the file cannot fit, and is not read into memory.
  const read = readRegularFile(real, { maxBytes: maxChars * 4, real: true });
  if (!read.ok) return read.bytes !== undefined ? { bytes: read.bytes } : { reason: read.reason };
  return read.text.includes("\0") ? { reason: "not a text file" } : read.text;
}

function canonical(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function lexists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
