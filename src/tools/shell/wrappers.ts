/**
 * What one simple command runs. `sudo nice /bin/rm x` runs `rm x`; `echo f | xargs rm` runs
 * `rm` with more arguments; `find . -exec rm {} +` runs `rm {}`; `sh -c 'rm x'` and `eval 'rm x'`
 * run shell code that can be read again. A wrapper option this table does not know, a command
 * name only known at run time, or shell code read from a file or from input makes the reading
 * uncertain: the caller then cannot say what runs.
 */

import { WRAPPERS, type OptionSpec, type WrapperSpec } from "./wrapper-table.js";

/** One program run, with its arguments (null: a word only known at run time). */
export interface Invocation {
  argv: (string | null)[];
  /** More arguments are added at run time (xargs appends what it reads). */
  openEnded?: boolean;
}

export interface Unwrapped {
  /** The command itself, then what each wrapper runs, outermost first. */
  runs: Invocation[];
  /** Shell code it runs that can be read: `sh -c CODE`, `eval CODE`, `trap CODE SIG`, `watch CODE`. */
  scripts: string[];
  /** Why what it runs cannot be known from the text; empty when it can. */
  uncertain: string[];
}

type Words = (string | null)[];


/** How far the options go: the index of the first word after them, or a reason it cannot tell. */
function skipOptions(args: Words, spec: OptionSpec): number | string {
  let i = 0;
  while (i < args.length) {
    const a = args[i];
    if (a === null) return "an option of a wrapper is only known at run time";
    if (a === "--") return i + 1;
    if (!a.startsWith("-") || a === "-") return i;
    if (a.startsWith("--")) {
      const name = a.split("=", 1)[0]!;
      if (spec.longWithValue?.includes(name)) i += a.includes("=") ? 1 : 2;
      else if (spec.long?.includes(name)) i += 1;
      else return `unknown option ${name}`;
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(a)) {
      i++;
      continue;
    }
    let consumed = 1;
    for (let j = 1; j < a.length; j++) {
      const ch = a[j]!;
      if (spec.withValue?.includes(ch)) {
        if (j === a.length - 1) consumed = 2;
        break;
      }
      if (!spec.flags?.includes(ch)) return `unknown option -${ch}`;
    }
    i += consumed;
  }
  return i;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function skipAssignments(args: Words, from: number): number {
  let i = from;
  while (i < args.length && args[i] !== null && ASSIGNMENT.test(args[i]!)) i++;
  return i;
}

/**
 * The shell code `args` give to the wrapper's code options (`-c CODE`, `-cCODE`, `--command=CODE`,
 * `--command CODE`); "unknown" when one is only known at run time. tar's
 * `--checkpoint-action=exec=CODE` runs CODE; its other actions run nothing.
 */
function codeOf(spec: WrapperSpec, args: Words): string[] | "unknown" {
  const code = spec.code;
  if (!code) return [];
  const out: string[] = [];
  const take = (value: string | null | undefined, option: string): boolean => {
    if (value === null || value === undefined) return false;
    if (option === "--checkpoint-action") {
      if (value.startsWith("exec=")) out.push(value.slice(5));
    } else out.push(value);
    return true;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === null) continue;
    if (a.startsWith("--")) {
      const [name] = a.split("=", 1);
      if (!code.long?.includes(name!)) continue;
      if (!take(a.includes("=") ? a.slice(name!.length + 1) : args[++i], name!)) return "unknown";
      continue;
    }
    if (!a.startsWith("-") || a.length < 2) continue;
    for (let j = 1; j < a.length; j++) {
      if (!code.short?.includes(a[j]!)) continue;
      if (!take(j === a.length - 1 ? args[++i] : a.slice(j + 1), `-${a[j]}`)) return "unknown";
      break;
    }
  }
  // Old-style `tar xIf prog a.tar`: the option letters without a dash, their values after them.
  if (spec.codeOnly && args[0] && !args[0].startsWith("-") && code.short && [...code.short].some((c) => args[0]!.includes(c))) return "unknown";
  return out;
}

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "rbash"]);

/** Builtins (and programs) that run code the command line does not show, or not where the table can find it. */
const OPAQUE: Record<string, (args: Words) => string | null> = {
  source: () => "source runs the commands of a file",
  ".": () => "`.` runs the commands of a file",
  alias: (args) => (args.some((a) => a === null || a.includes("=")) ? "an alias renames commands" : null),
  hash: (args) => (args.some((a) => a === null || /^-\w*p/.test(a)) ? "hash -p makes a name run another program" : null),
  enable: (args) => (args.some((a) => a === null || /^-\w*f/.test(a)) ? "enable -f loads a builtin from a library" : null),
  mapfile: (args) => (args.some((a) => a === null || /^-\w*C/.test(a)) ? "mapfile -C runs a callback" : null),
  readarray: (args) => (args.some((a) => a === null || /^-\w*C/.test(a)) ? "readarray -C runs a callback" : null),
  // setarch ARCH [options] COMMAND: its options follow a positional word, which the table's reading does not do.
  setarch: (args) => (args.length > 1 ? "setarch runs a command after its architecture and options" : null),
  sg: (args) => (args.length > 1 ? "sg runs its command through a shell" : null),
  let: (args) => (args.some((a) => a === null || /[A-Za-z_]/.test(a)) ? "arithmetic on variables can run code" : null),
};

const MAX_UNWRAP = 16;

export function basename(name: string): string {
  const i = name.lastIndexOf("/");
  return i >= 0 ? name.slice(i + 1) : name;
}

export function unwrap(argv: Words): Unwrapped {
  const out: Unwrapped = { runs: [{ argv }], scripts: [], uncertain: [] };
  const work: Invocation[] = [{ argv }];
  for (let hops = 0; work.length; hops++) {
    if (hops === MAX_UNWRAP) {
      out.uncertain.push("too many nested wrappers");
      break;
    }
    for (const next of step(work.shift()!, out)) {
      out.runs.push(next);
      work.push(next);
    }
  }
  return out;
}

/** What `inv` runs in turn, if it is a wrapper; records scripts and uncertainty on the way. */
function step(inv: Invocation, out: Unwrapped): Invocation[] {
  const [name, ...args] = inv.argv;
  if (name === undefined) return [];
  if (name === null) {
    out.uncertain.push("the command name is only known at run time");
    return [];
  }
  const base = basename(name);
  const wrapper = WRAPPERS[base];
  if (wrapper) return unwrapOne(base, wrapper, args, inv.openEnded === true, out);
  if (SHELLS.has(base)) {
    shellScript(base, args, out);
    return [];
  }
  switch (base) {
    case "eval":
      addScript(args, out, "eval");
      return [];
    case "trap": {
      const from = args[0] === "--" ? 1 : 0;
      const code = args[from];
      if (code === null) out.uncertain.push("trap's code is only known at run time");
      else if (code !== undefined && !code.startsWith("-") && args.length > from + 1) out.scripts.push(code);
      return [];
    }
    case "watch": {
      const at = skipOptions(args, { flags: "bcdeghptx", withValue: "nq", long: ["--beep", "--color", "--differences", "--errexit", "--chgexit", "--precise", "--no-title", "--exec"], longWithValue: ["--interval", "--equexit"] });
      if (typeof at === "string") out.uncertain.push(`watch: ${at}`);
      else addScript(args.slice(at), out, "watch");
      return [];
    }
    case "find":
      if (args.includes(null)) out.uncertain.push("find: an argument is only known at run time");
      return findExecs(args);
    case "git":
      return gitSubcommand(args, out);
  }
  const opaque = OPAQUE[base]?.(args);
  if (opaque) out.uncertain.push(opaque);
  return [];
}

function unwrapOne(base: string, spec: WrapperSpec, args: Words, openEnded: boolean, out: Unwrapped): Invocation[] {
  if (spec.lookup && args.some((a) => a !== null && new RegExp(`^-[A-Za-z]*[${spec.lookup}]`).test(a))) return [];
  const code = codeOf(spec, args);
  if (code === "unknown") {
    out.uncertain.push(`${base}: the code it runs is only known at run time`);
    return [];
  }
  out.scripts.push(...code);
  if (spec.codeOnly) {
    if (spec.shellByDefault && code.length === 0) out.uncertain.push(`${base} runs a shell that reads its input`);
    return [];
  }
  if (code.length) return [];
  if (base === "env" && args.some((a) => a !== null && (a === "-S" || a.startsWith("--split-string") || /^-[^-]*S/.test(a)))) {
    out.uncertain.push("env -S splits a string into a command");
    return [];
  }
  let at = skipOptions(args, spec);
  if (typeof at === "string") {
    out.uncertain.push(`${base}: ${at}`);
    return [];
  }
  if (spec.assignments) at = skipAssignments(args, at);
  at += spec.positional ?? 0;
  const rest = args.slice(at);
  const ended = openEnded || spec.openEnded === true;
  if (rest.length === 0 && spec.shellByDefault) out.uncertain.push(`${base} runs a shell that reads its input`);
  if (rest.length === 0) return spec.defaultCommand ? [{ argv: [spec.defaultCommand], openEnded: true }] : [];
  // `coproc NAME cmd…` or `coproc cmd…`: both readings.
  if (base === "coproc" && rest.length > 1) return [{ argv: rest, openEnded: ended }, { argv: rest.slice(1), openEnded: ended }];
  return [{ argv: rest, openEnded: ended }];
}

/** `sh -c CODE` reads CODE; any other shell run reads a script file or its input, unseen. */
function shellScript(base: string, args: Words, out: Unwrapped): void {
  let command = false;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === null) {
      out.uncertain.push(`${base}: an option is only known at run time`);
      return;
    }
    if (a === "--" || a === "-") {
      i++;
      break;
    }
    if (a === "--version" || a === "--help") return;
    if (a.startsWith("--")) {
      if (a === "--rcfile" || a === "--init-file") i++;
      continue;
    }
    if (!/^[-+]/.test(a) || a.length < 2) break;
    if (/^[-+][A-Za-z]*[oO]$/.test(a)) i++;
    if (a.startsWith("-") && a.includes("c")) command = true;
  }
  const operand = args[i];
  if (!command) {
    out.uncertain.push(operand === undefined ? `${base} runs the commands of its input` : `${base} runs the commands of a script file`);
    return;
  }
  if (operand === undefined) return;
  if (operand === null) out.uncertain.push(`${base} -c: the code is only known at run time`);
  else out.scripts.push(operand);
}

function addScript(args: Words, out: Unwrapped, what: string): void {
  if (args.some((a) => a === null)) out.uncertain.push(`${what}: the code is only known at run time`);
  else if (args.length) out.scripts.push(args.join(" "));
}

/** git's own options before the subcommand: `git -C x --no-pager push` is `git push` to a rule. */
function gitSubcommand(args: Words, out: Unwrapped): Invocation[] {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === null) {
      out.uncertain.push("git: an option is only known at run time");
      return [];
    }
    if (!a.startsWith("-")) break;
    // A config value can make git run anything: an alias with !, core.pager, diff.external, core.fsmonitor.
    if (a === "-c" || a.startsWith("--config-env")) {
      out.uncertain.push("git -c can make git run commands");
      return [];
    }
    if (a === "-C" || a === "--git-dir" || a === "--work-tree" || a === "--namespace" || a === "--super-prefix") i++;
  }
  return i > 0 && i < args.length ? [{ argv: ["git", ...args.slice(i)] }] : [];
}

/** The commands of find's -exec, -execdir, -ok and -okdir, up to their `;` or `+`. */
function findExecs(args: Words): Invocation[] {
  const runs: Invocation[] = [];
  for (let i = 0; i < args.length; i++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(args[i] ?? "")) continue;
    const start = i + 1;
    let end = start;
    while (end < args.length && args[end] !== ";" && args[end] !== "+") end++;
    if (end > start) runs.push({ argv: args.slice(start, end) });
    i = end;
  }
  return runs;
}
