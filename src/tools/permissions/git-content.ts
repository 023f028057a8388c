import { execFileSync } from "node:child_process";
import path from "node:path";
import { gitBinary } from "../../util/git-binary.js";
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
    const paths = revisionPaths(word);
    // `REV:` names the whole tree (`git archive HEAD:` holds every file in it).
    if (paths.some((p) => p === "" || p === "." || p === "./")) return "all";
    if (paths.length) named.push(...paths);
    else others = true;
  }
  // A revision alone (`git show HEAD`, `git log -p`) prints whatever it changed: any tracked file.
  if (others || named.length === 0) return dashes >= 0 && named.length ? { paths: named } : "all";
  return { paths: named };
}

/**
 * The paths a `REV:path` word may name: the one git reads (past a stage `:0:`, and past the `^{…}`
 * and `@{…}` groups a colon may sit in: `HEAD^{/[:]?}:.env`), and, should git read it some other
 * way, what follows each colon. None for a word with no colon.
 */
export function revisionPaths(word: string): string[] {
  if (!word.includes(":")) return [];
  const paths = new Set<string>();
  const stage = /^:[0-3]:/.exec(word);
  if (stage) paths.add(word.slice(stage[0].length));
  else {
    const colon = pathColon(word);
    if (colon >= 0) paths.add(word.slice(colon + 1));
  }
  for (let at = word.indexOf(":"); at >= 0; at = word.indexOf(":", at + 1)) paths.add(word.slice(at + 1));
  return [...paths];
}

/** The colon ending the revision: the first one outside a `^{…}` or `@{…}` group. */
function pathColon(word: string): number {
  for (let i = 0; i < word.length; i++) {
    if ((word[i] === "^" || word[i] === "@") && word[i + 1] === "{") {
      let depth = 0;
      for (i += 1; i < word.length; i++) {
        if (word[i] === "{") depth++;
        else if (word[i] === "}" && --depth === 0) break;
      }
    } else if (word[i] === ":") return i;
  }
  return -1;
}

const historyCache = new Map<string, string[]>();

/**
 * Every path the workspace's repository has held, workspace-relative: tracked now, or in any
 * commit a ref reaches (a `.env` committed and later untracked is still in `git log -p --all`).
 * None outside a repository; null when git cannot tell, which the caller takes as a reason to ask.
 * The history is read once per state of the refs.
 */
export function trackedFiles(root: string): string[] | null {
  const binary = gitBinary();
  if (!binary) return null;
  const run = (args: string[]) => execFileSync(binary, args, { cwd: root, env: containedEnvironment(), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 256 * 1024 * 1024 });
  let tracked: string[];
  try {
    tracked = run(["ls-files", "-z"]).split("\0").filter(Boolean);
  } catch (error) {
    return /not a git repository/.test(String((error as { stderr?: unknown }).stderr)) ? [] : null;
  }
  try {
    const refs = run(["for-each-ref", "--format=%(objectname)"]) + run(["rev-parse", "--verify", "-q", "HEAD"]);
    const key = `${root}\0${refs}`;
    let history = historyCache.get(key);
    if (!history) {
      history = run(["log", "--all", "--name-only", "--format=", "-z", "--relative"]).split("\0").map((p) => p.replace(/^\n+/, "")).filter(Boolean);
      historyCache.set(key, history);
    }
    return [...new Set([...tracked, ...history])];
  } catch {
    // A repository with no commit yet has no history to read.
    return tracked;
  }
}
