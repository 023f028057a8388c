import { execFileSync } from "node:child_process";
import path from "node:path";
import { containedEnvironment } from "../../util/git-env.js";
import type { Invocation } from "../shell/wrappers.js";

/**
 * git commands that print file content out of the repository's objects, which the sandbox's
 * hiding of a file cannot reach: `git show HEAD:.env` prints a committed `.env` however well the
 * file on disk is hidden. Such a command is judged as reading the paths it names, and all tracked
 * files when it names none (DESIGN §7: a read deny hides content from every tool that reads it).
 */

/** Subcommands that always print content; `log` and friends only with a patch option. */
const CONTENT = new Set(["show", "diff", "diff-tree", "diff-index", "diff-files", "blame", "annotate", "grep", "cat-file", "archive", "range-diff", "format-patch", "difftool"]);
const WITH_PATCH = new Set(["log", "whatchanged", "reflog", "stash"]);
const PATCH_OPTION = /^(-p|--patch|-u|-U\d*|--unified(=.*)?|--word-diff(=.*)?|-L.*|--cc|--patch-with-stat|--patch-with-raw)$/;
/** git's own options that take a value in the next word. */
const GLOBAL_WITH_VALUE = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"]);

/**
 * What a git invocation reads out of the repository: `paths` it names (from `REV:path` and after
 * `--`), or `all` when it prints content without naming a path; null when it prints no content.
 */
export function gitContentReads(run: Invocation): { paths: string[] } | "all" | null {
  const argv = run.argv;
  if (!argv[0] || path.basename(argv[0]) !== "git") return null;
  let i = 1;
  while (i < argv.length && argv[i]?.startsWith("-")) i += GLOBAL_WITH_VALUE.has(argv[i]!) ? 2 : 1;
  const sub = argv[i];
  if (sub === undefined) return null;
  // A subcommand only known at run time could be any of them.
  if (sub === null) return "all";
  const rest = argv.slice(i + 1);
  if (!CONTENT.has(sub) && !(WITH_PATCH.has(sub) && (sub === "stash" ? rest.includes("show") && rest.some((w) => w !== null && PATCH_OPTION.test(w)) : rest.some((w) => w !== null && PATCH_OPTION.test(w))))) return null;
  const dashes = rest.indexOf("--");
  const named: string[] = dashes >= 0 ? rest.slice(dashes + 1).filter((w): w is string => w !== null) : [];
  const before = dashes >= 0 ? rest.slice(0, dashes) : rest;
  let others = false;
  for (const word of before) {
    if (word === null) return "all";
    if (word.startsWith("-")) continue;
    const colon = word.indexOf(":");
    if (colon >= 0) named.push(word.slice(colon + 1));
    else others = true;
  }
  // A revision alone (`git show HEAD`, `git log -p`) prints whatever it changed: any tracked file.
  if (others || named.length === 0) return dashes >= 0 && named.length ? { paths: named } : "all";
  return { paths: named };
}

/** The workspace's tracked files, workspace-relative; none outside a repository. */
export function trackedFiles(root: string): string[] {
  try {
    const out = execFileSync("git", ["ls-files", "-z"], { cwd: root, env: containedEnvironment(), encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 * 1024 * 1024 });
    return out.split("\0").filter(Boolean);
  } catch {
    return [];
  }
}
