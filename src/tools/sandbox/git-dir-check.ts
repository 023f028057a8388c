import fs from "node:fs";
import path from "node:path";
import { execFile } from "node:child_process";
import { gitBinary } from "../../util/git-binary.js";
import { containedEnvironment } from "../../util/git-env.js";

/**
 * Whether a git dir a sandboxed command made could run code once the user runs git in its work
 * tree (outside any sandbox), and making it unable to: its config keeps only the keys of a short
 * list that run nothing (what `git init`, `git clone`, `git config user.*` and `git remote add`
 * write), a hook is moved out of `hooks/`, and a `config.worktree` or a `hooks` or `config` that is
 * a link goes too. A list of what is allowed, not of what runs code: git gains such keys (fsmonitor
 * was one), and an `include.path` would bring in any of them. What is taken out is kept in the git
 * dir's `orca-quarantine/<time>/` (git never reads it), so nothing is lost.
 */

/** Keys (lower case; `*` a subsection) that make git run nothing and reach nothing the user did not ask for. */
const ALLOWED = new Set([
  "core.repositoryformatversion",
  "core.filemode",
  "core.bare",
  "core.logallrefupdates",
  "core.ignorecase",
  "core.precomposeunicode",
  "core.symlinks",
  "core.autocrlf",
  "core.eol",
  "core.safecrlf",
  "core.quotepath",
  "core.sharedrepository",
  "core.abbrev",
  "core.sparsecheckout",
  "core.sparsecheckoutcone",
  "extensions.objectformat",
  "extensions.refstorage",
  "user.name",
  "user.email",
  "init.defaultbranch",
  "remote.*.url",
  "remote.*.pushurl",
  "remote.*.fetch",
  "remote.*.push",
  "remote.*.tagopt",
  "remote.*.mirror",
  "remote.*.prune",
  "branch.*.remote",
  "branch.*.merge",
  "branch.*.rebase",
  "branch.*.pushremote",
  "branch.*.description",
  "submodule.*.url",
  "submodule.*.active",
  "pull.rebase",
  "pull.ff",
  "push.default",
  "push.autosetupremote",
  "fetch.prune",
  "merge.ff",
  "merge.conflictstyle",
  "rebase.autostash",
  "status.showuntrackedfiles",
  "color.ui",
]);

interface Entry {
  /** As git lists it: section and key in lower case, a subsection as written. */
  name: string;
  /** null: the key stands alone (`[core] bare`), which git reads as true. */
  value: string | null;
}

/** What a check took out of one git dir. */
export interface Neutralised {
  gitDir: string;
  /** Config keys, `hooks/<name>`, `config.worktree`, `hooks (a link)`, `config (a link)`, `config (unreadable)`. */
  removed: string[];
  /** Where they are kept. */
  quarantine: string;
}

/** A config key as the allow-list names it: its subsection, if any, as `*`. */
function listedAs(name: string): string {
  const first = name.indexOf(".");
  const last = name.lastIndexOf(".");
  return first === last ? name.toLowerCase() : `${name.slice(0, first)}.*.${name.slice(last + 1)}`.toLowerCase();
}

/**
 * Makes `gitDir` run nothing. Null when it held nothing to take out. Throws only when the git dir
 * cannot be changed (the caller then says so): a failure must not leave it as it was unnoticed.
 */
export async function neutraliseGitDir(gitDir: string): Promise<Neutralised | null> {
  const removed: string[] = [];
  const moves: Array<{ from: string; name: string }> = [];
  const config = path.join(gitDir, "config");
  const configStat = lstat(config);
  let rewrite: Entry[] | null = null;
  if (configStat) {
    // git reads a config through a link; a link would also let a later write elsewhere change it.
    const entries = configStat.isDirectory() ? null : await readConfig(config);
    const kept = (entries ?? []).filter((e) => ALLOWED.has(listedAs(e.name)));
    if (configStat.isSymbolicLink()) removed.push("config (a link)");
    else if (!entries) removed.push("config (unreadable)");
    else removed.push(...new Set(entries.filter((e) => !ALLOWED.has(listedAs(e.name))).map((e) => e.name)));
    if (removed.length) {
      rewrite = kept;
      moves.push({ from: config, name: "config" });
    }
  }
  const worktreeConfig = path.join(gitDir, "config.worktree");
  if (lstat(worktreeConfig)) {
    removed.push("config.worktree");
    moves.push({ from: worktreeConfig, name: "config.worktree" });
  }
  const hooks = path.join(gitDir, "hooks");
  const hooksStat = lstat(hooks);
  if (hooksStat && !hooksStat.isDirectory()) {
    removed.push("hooks (a link)");
    moves.push({ from: hooks, name: "hooks" });
  } else if (hooksStat) {
    for (const name of fs.readdirSync(hooks)) {
      if (name.endsWith(".sample")) continue;
      removed.push(`hooks/${name}`);
      moves.push({ from: path.join(hooks, name), name: path.join("hooks", name) });
    }
  }
  if (!removed.length) return null;
  const quarantine = makeQuarantine(gitDir);
  for (const move of moves) fs.renameSync(move.from, path.join(quarantine, move.name));
  if (rewrite) fs.writeFileSync(config, formatConfig(rewrite), { flag: "wx" });
  return { gitDir, removed, quarantine };
}

/**
 * A new, empty folder in `gitDir`'s `orca-quarantine/`, made without following a link: the git dir
 * is the agent's, and orca (outside the sandbox) moving files through a link it planted would put
 * them anywhere the user can write — a `<time>` link to the user's own `.git` would make the
 * agent's hook the user's. `orca-quarantine` that is not a plain folder is taken away first; the
 * folder's real path is checked to be where it was asked for, so a git dir swapped for a link
 * since the caller resolved it is refused.
 */
function makeQuarantine(gitDir: string): string {
  const base = path.join(gitDir, "orca-quarantine");
  const stat = lstat(base);
  if (stat && !stat.isDirectory()) fs.unlinkSync(base);
  if (!stat?.isDirectory()) fs.mkdirSync(base);
  // mkdtemp makes a fresh folder (never an existing name, never through a link at the last step).
  const quarantine = fs.mkdtempSync(path.join(base, `${new Date().toISOString().replace(/[:.]/g, "-")}-`));
  const expected = path.join(fs.realpathSync(gitDir), "orca-quarantine", path.basename(quarantine));
  if (fs.realpathSync(quarantine) !== expected || fs.realpathSync(gitDir) !== path.resolve(gitDir)) throw new Error(`${quarantine} is not inside ${gitDir} (a link was swapped in)`);
  fs.mkdirSync(path.join(quarantine, "hooks"));
  return quarantine;
}

/** The config file's entries as git reads them (includes not followed: `include.path` is itself a key), or null. */
function readConfig(file: string): Promise<Entry[] | null> {
  const binary = gitBinary();
  if (!binary) return Promise.resolve(null);
  return new Promise((resolve) => {
    execFile(
      binary,
      ["config", "--no-includes", "--file", file, "--list", "-z"],
      // From "/": no repository found around it (the one the file belongs to is the agent's), and
      // with --file git lists that file alone, not the contained config of the environment.
      { cwd: "/", env: containedEnvironment(), encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) => {
        if (error) return resolve(null);
        resolve(
          stdout
            .split("\0")
            .filter(Boolean)
            .map((item) => {
              const nl = item.indexOf("\n");
              return nl < 0 ? { name: item, value: null } : { name: item.slice(0, nl), value: item.slice(nl + 1) };
            }),
        );
      },
    );
  });
}

/** A config file git reads back as exactly these entries. */
export function formatConfig(entries: readonly Entry[]): string {
  let out = "";
  let section: string | null = null;
  for (const { name, value } of entries) {
    const first = name.indexOf(".");
    const last = name.lastIndexOf(".");
    const head = first === last ? `[${name.slice(0, first)}]` : `[${name.slice(0, first)} "${name.slice(first + 1, last).replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"]`;
    if (head !== section) {
      out += `${head}\n`;
      section = head;
    }
    const key = name.slice(last + 1);
    out += value === null ? `\t${key}\n` : `\t${key} = "${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\t/g, "\\t")}"\n`;
  }
  return out;
}

const lstat = (p: string): fs.Stats | undefined => fs.lstatSync(p, { throwIfNoEntry: false });
