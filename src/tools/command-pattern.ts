import { broadMatch, compileCommandPattern, writesNoFile, type CommandPattern } from "./command-match.js";
import { analyseCommand, basename, type ShellAnalysis, type SimpleCommand } from "./shell/index.js";

/**
 * The read-only hint: whether a bash command only reads, so the scheduler may run it beside other
 * reads. It is a hint, never a permission on its own: a command auto-approved for it runs in a
 * read-only sandbox, where a wrong guess fails instead of writing (see permissions/engine.ts).
 *
 * It fails closed. The line must be plain (simple commands joined by ; && || |), certain, with no
 * `VAR=value` prefix and no redirect that writes a file; each command must match
 * `scheduler.read_only_commands`; and on a command that *can* write (find, git, sort, tree, rg,
 * fd) every option must be one known not to, unquoted, and not `=`-joined. Commands that run code
 * or write by nature (sed, awk, xargs, interpreters, cp…) are never read-only, whatever the list.
 */

export { wildcardToRegExp } from "./command-match.js";

/** Options known not to write or run anything, per command that has options that do. */
const SAFE_OPTIONS: Record<string, { flags: string[]; withValue: string[] }> = {
  find: {
    flags: ["-print", "-print0", "-ls", "-prune", "-quit", "-not", "-a", "-and", "-o", "-or", "-true", "-false", "-depth", "-follow", "-xdev", "-mount", "-L", "-H", "-P", "-daystart", "-noleaf", "-ignore_readdir_race", "-nowarn", "-warn", "-empty", "-executable", "-readable", "-writable", "-nouser", "-nogroup"],
    withValue: ["-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-type", "-xtype", "-maxdepth", "-mindepth", "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-newer", "-anewer", "-cnewer", "-perm", "-user", "-group", "-uid", "-gid", "-links", "-inum", "-samefile", "-printf", "-regextype", "-used", "-lname", "-ilname"],
  },
  sort: {
    flags: ["-b", "-d", "-f", "-g", "-h", "-i", "-M", "-n", "-R", "-r", "-V", "-c", "-C", "-m", "-s", "-u", "-z", "--numeric-sort", "--reverse", "--unique", "--ignore-case", "--human-numeric-sort", "--version-sort", "--stable", "--check"],
    withValue: ["-k", "-t", "--key", "--field-separator"],
  },
  tree: {
    flags: ["-a", "-d", "-l", "-f", "-x", "-i", "-q", "-N", "-Q", "-p", "-u", "-g", "-s", "-h", "-D", "-F", "-v", "-t", "-c", "-U", "-r", "-C", "-n", "-J", "-X", "--noreport", "--du", "--dirsfirst", "--prune", "--gitignore"],
    withValue: ["-L", "-P", "-I", "--filelimit"],
  },
  rg: {
    flags: ["-n", "-N", "-i", "-S", "-s", "-w", "-x", "-v", "-c", "-l", "-L", "-F", "-u", "-uu", "-uuu", "-.", "-H", "-I", "-o", "-p", "-0", "-U", "--hidden", "--no-ignore", "--files", "--type-list", "--no-heading", "--heading", "--json", "--vimgrep", "--count", "--files-with-matches", "--files-without-match", "--null", "--trim", "--line-number", "--no-line-number", "--ignore-case", "--smart-case", "--case-sensitive", "--word-regexp", "--fixed-strings", "--invert-match", "--only-matching", "--follow", "--multiline", "--no-messages", "--stats", "--count-matches"],
    withValue: ["-e", "-g", "-t", "-T", "-A", "-B", "-C", "-m", "-d", "-M", "--glob", "--type", "--type-not", "--max-count", "--max-depth", "--sort", "--sortr", "--context", "--after-context", "--before-context", "--regexp", "--max-columns"],
  },
  fd: {
    flags: ["-H", "-I", "-u", "-s", "-i", "-g", "-F", "-a", "-l", "-L", "-p", "-0", "--hidden", "--no-ignore", "--case-sensitive", "--ignore-case", "--glob", "--fixed-strings", "--absolute-path", "--list-details", "--follow", "--full-path", "--print0"],
    withValue: ["-d", "-t", "-e", "-E", "-S", "--max-depth", "--min-depth", "--type", "--extension", "--exclude", "--size", "--max-results", "--changed-within", "--changed-before", "--owner"],
  },
};

const GIT_READS = new Set(["status", "diff", "log", "show", "branch", "blame", "rev-parse", "ls-files", "shortlog", "describe"]);
const GIT_SAFE = {
  flags: ["--stat", "--numstat", "--shortstat", "--name-only", "--name-status", "--oneline", "--graph", "--decorate", "--all", "--cached", "--staged", "-p", "--patch", "-s", "--no-patch", "--short", "--porcelain", "-b", "--branch", "--no-color", "--reverse", "--first-parent", "--merges", "--no-merges", "--follow", "-M", "-w", "--ignore-all-space", "--ignore-space-change", "--abbrev-commit", "--no-renames", "--summary", "--raw", "--full-diff", "-z", "--word-diff", "--minimal", "--patience", "--histogram", "--cc", "-m", "--no-ext-diff", "--no-textconv", "--exit-code", "--quiet", "-q", "--check", "--show-current", "-v", "-vv", "--verbose", "-a", "-r", "--remotes", "--list", "--show-toplevel", "--abbrev-ref", "--verify", "--git-dir", "--is-inside-work-tree", "--others", "--exclude-standard", "--modified", "--deleted", "--tags", "--long", "--always", "-e", "-l", "-t", "--", "--no-pager", "-P"],
  withValue: ["-n", "-L", "--max-count", "--author", "--since", "--until", "--grep", "-S", "-G", "--skip", "--contains", "--merged", "--no-merged", "--sort", "--diff-filter"],
};

/** Commands that write or run code by nature: no list of options makes them read-only. */
const NEVER_READ_ONLY = new Set(
  "sed awk gawk mawk nawk perl python python3 node deno bun ruby php lua xargs env sudo doas nice nohup timeout time stdbuf watch sh bash dash zsh ksh fish eval exec command builtin source . tee dd cp mv rm rmdir ln mkdir touch chmod chown chgrp install truncate shred patch tar unzip gzip gunzip zip".split(" "),
);

/** Whether `command` only reads, as far as the text can tell (false whenever unsure). */
export function isReadOnlyCommand(command: string, patterns: readonly string[]): boolean {
  return readOnlyHint(patterns)(command);
}

/**
 * isReadOnlyCommand with the patterns compiled once (the bash tool asks for every call, several
 * times), at the first question: a session makes its bash tool before its first request, which
 * asks none.
 */
export function readOnlyHint(patterns: readonly string[]): (command: string) => boolean {
  let compiled: CommandPattern[] | undefined;
  return (command) => readsOnly(analyseCommand(command), command, (compiled ??= patterns.map((p) => compileCommandPattern(p))));
}

export function readsOnly(analysis: ShellAnalysis, text: string, patterns: readonly CommandPattern[]): boolean {
  if (!analysis.plain || analysis.uncertain.length || analysis.commands.length === 0) return false;
  for (const command of analysis.commands) {
    if (command.assignments.length || !command.redirects.every(writesNoFile)) return false;
    if (command.runs.length > 1) return false;
    const single: ShellAnalysis = { commands: [command], uncertain: [], plain: true };
    if (!patterns.some((p) => broadMatch(p, commandText(command), single) === "yes")) return false;
    if (!optionsOnlyRead(command)) return false;
  }
  return text.length > 0;
}

function commandText(command: SimpleCommand): string {
  return command.words.map((w) => w.value ?? "\u0000").join(" ");
}

function optionsOnlyRead(command: SimpleCommand): boolean {
  const name = command.words[0]?.value;
  if (!name) return false;
  const base = basename(name);
  if (NEVER_READ_ONLY.has(base)) return false;
  const args = command.words.slice(1);
  if (base === "git") return gitReads(args);
  const safe = SAFE_OPTIONS[base];
  if (!safe) return true;
  return knownOptions(args, safe);
}

type Word = SimpleCommand["words"][number];

/**
 * Every option known and harmless. Fails closed on what a string reading could get wrong: a
 * quoted or escaped option (`'-exec'`), an `=`-joined one (`--output=F`), a word only known at
 * run time (it could be an option).
 */
function knownOptions(args: readonly Word[], safe: { flags: string[]; withValue: string[] }): boolean {
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w.value === null) return false;
    if (!w.value.startsWith("-") || w.value === "-") continue;
    if (w.quoted || w.value.includes("=")) return false;
    if (safe.withValue.includes(w.value)) {
      i++;
      continue;
    }
    if (safe.flags.includes(w.value)) continue;
    // `-n5`, `-U3`, `-A2`, `-10`: a short option with its number attached.
    if (/^-\d+$/.test(w.value) || safe.withValue.some((o) => /^-[A-Za-z]$/.test(o) && w.value!.startsWith(o) && /^\d+$/.test(w.value!.slice(2)))) continue;
    return false;
  }
  return true;
}

function gitReads(args: readonly Word[]): boolean {
  let i = 0;
  while (i < args.length && (args[i]!.value === "--no-pager" || args[i]!.value === "-P")) i++;
  const sub = args[i];
  if (!sub || sub.value === null || sub.quoted || !GIT_READS.has(sub.value)) return false;
  const rest = args.slice(i + 1);
  // `git branch NAME` creates a branch; only the listing forms read.
  if (sub.value === "branch" && rest.some((w) => w.value !== null && !w.value.startsWith("-"))) return false;
  return knownOptions(rest, GIT_SAFE);
}
