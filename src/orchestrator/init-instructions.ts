import fs from "node:fs";
import path from "node:path";
import { readRegularFile } from "../config/safe-read.js";

/**
 * `/init`: a starting AGENTS.md from a scan of the project — its name, languages, top folders
 * and the commands its manifests declare — for the person to edit. Never overwrites: an existing
 * AGENTS.md (or a link by that name) is left alone.
 */

export type InitResult = { written: string; text: string } | { exists: string };

const SKIPPED_DIRS = new Set(["node_modules", "dist", "build", "out", "target", "vendor", "coverage", "__pycache__", "venv"]);
const MAX_FILES = 20_000;
const LANGUAGES: Record<string, string> = {
  ".ts": "TypeScript", ".tsx": "TypeScript", ".mts": "TypeScript", ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript", ".jsx": "JavaScript",
  ".py": "Python", ".go": "Go", ".rs": "Rust", ".java": "Java", ".kt": "Kotlin", ".rb": "Ruby", ".php": "PHP", ".cs": "C#", ".c": "C", ".h": "C",
  ".cpp": "C++", ".cc": "C++", ".hpp": "C++", ".swift": "Swift", ".scala": "Scala", ".sh": "Shell", ".lua": "Lua", ".ex": "Elixir", ".exs": "Elixir", ".zig": "Zig",
};

export function writeStartingInstructions(workspaceRoot: string): InitResult {
  const target = path.join(workspaceRoot, "AGENTS.md");
  const text = startingInstructions(workspaceRoot);
  try {
    // wx: created here or not at all; an existing file, folder or link by that name is never replaced or followed.
    fs.writeFileSync(target, text, { flag: "wx", mode: 0o644 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return { exists: target };
    throw error;
  }
  return { written: target, text };
}

/** The text /init writes for the project at `root`. */
export function startingInstructions(root: string): string {
  const scan = scanProject(root);
  const pkg = readJson(path.join(root, "package.json"));
  const name = (typeof pkg?.name === "string" && pkg.name) || path.basename(root);
  const description = typeof pkg?.description === "string" ? pkg.description : readmeSummary(root);
  const languages = [...scan.languages].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([lang, n]) => `${lang} (${n} files)`);
  const commands = projectCommands(root, pkg);
  return [
    `# ${name}`,
    "",
    "Instructions for coding agents working here (orca, Codex, Claude Code and others read this file).",
    "Written by `/init` from a scan of the project: check it, then add what a newcomer must know.",
    "",
    "## Project",
    ...(description ? [`- ${description}`] : []),
    ...(languages.length ? [`- Languages: ${languages.join(", ")}`] : []),
    ...(scan.dirs.length ? [`- Top-level folders: ${scan.dirs.map((d) => `\`${d}/\``).join(", ")}`] : []),
    "",
    "## Commands",
    ...(commands.length ? commands.map(([what, cmd]) => `- ${what}: \`${cmd}\``) : ["- (none found: add how to build, test and lint)"]),
    "",
    "## Conventions",
    "- Follow the style of the surrounding code; keep changes small and focused.",
    ...(commands.some(([what]) => what === "Test") ? ["- Run the tests before you call a change done."] : []),
    "",
  ].join("\n");
}

function scanProject(root: string): { languages: Map<string, number>; dirs: string[] } {
  const languages = new Map<string, number>();
  const dirs: string[] = [];
  let seen = 0;
  const walk = (dir: string, depth: number): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (seen >= MAX_FILES) return;
      if (entry.name.startsWith(".")) continue;
      // Links are not followed: the scan stays in the project.
      if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) {
        if (depth === 0) dirs.push(entry.name);
        if (depth < 8) walk(path.join(dir, entry.name), depth + 1);
      } else if (entry.isFile()) {
        seen++;
        const lang = LANGUAGES[path.extname(entry.name).toLowerCase()];
        if (lang) languages.set(lang, (languages.get(lang) ?? 0) + 1);
      }
    }
  };
  walk(root, 0);
  return { languages, dirs };
}

function projectCommands(root: string, pkg: Record<string, unknown> | null): [string, string][] {
  const has = (file: string) => fs.existsSync(path.join(root, file));
  const commands: [string, string][] = [];
  if (pkg) {
    const runner = has("pnpm-lock.yaml") ? "pnpm" : has("yarn.lock") ? "yarn" : has("bun.lockb") || has("bun.lock") ? "bun" : "npm";
    commands.push(["Install", runner === "npm" ? (has("package-lock.json") ? "npm ci" : "npm install") : `${runner} install`]);
    const scripts = pkg.scripts && typeof pkg.scripts === "object" ? (pkg.scripts as Record<string, unknown>) : {};
    for (const [script, what] of [["build", "Build"], ["test", "Test"], ["lint", "Lint"], ["typecheck", "Typecheck"], ["format", "Format"], ["dev", "Develop"]] as const) {
      if (typeof scripts[script] === "string") commands.push([what, script === "test" && runner === "npm" ? "npm test" : `${runner} run ${script}`]);
    }
  }
  if (has("Cargo.toml")) commands.push(["Build", "cargo build"], ["Test", "cargo test"], ["Lint", "cargo clippy"]);
  if (has("go.mod")) commands.push(["Build", "go build ./..."], ["Test", "go test ./..."], ["Lint", "go vet ./..."]);
  if (has("pyproject.toml") || has("requirements.txt")) commands.push(["Test", "pytest"]);
  if (has("Makefile") && !commands.length) {
    const targets = [...readText(path.join(root, "Makefile")).matchAll(/^([a-z][\w-]*):/gm)].map((m) => m[1]!).filter((t) => t !== "all");
    for (const t of targets.slice(0, 6)) commands.push([t, `make ${t}`]);
  }
  return commands;
}

/** The README's first paragraph of prose, one line, or "". */
function readmeSummary(root: string): string {
  const text = readText(path.join(root, "README.md"));
  const paragraph = text.split(/\n\s*\n/).map((p) => p.trim()).find((p) => p && !/^[#<![|`>-]/.test(p));
  return paragraph ? paragraph.replace(/\s+/g, " ").slice(0, 300) : "";
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    const data: unknown = JSON.parse(readText(file));
    return data && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A project file's text; "" for a link (it could bring text from outside the project into AGENTS.md, and so into prompts), a FIFO or device, a large file or none. */
function readText(file: string): string {
  const read = readRegularFile(file, { maxBytes: 1_000_000 });
  return read.ok ? read.text : "";
}
