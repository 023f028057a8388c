#!/usr/bin/env node
// Lists the files changed in a git working tree, with added/removed line counts, so a review can
// start from what actually changed. Node 20, no dependencies.
//
//   node scripts/changed-files.mjs [--base REF] [--staged] [DIR]
//
//   (default)     working tree and index against HEAD, plus untracked files
//   --staged      only what is staged (index against HEAD)
//   --base REF    everything since the branch left REF (merge-base of REF and HEAD), plus
//                 uncommitted and untracked changes: "the whole branch"
//   DIR           a folder inside the repository to look at (default: the current directory);
//                 the whole repository is listed either way
//
// Without git, or outside a repository, it says so on one line and exits 0 so the review can go
// on from the files the user named. Exit 2 means bad arguments or a bad --base.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const MAX_LISTED = 200;

function usage(message) {
  process.stderr.write(`${message}\nusage: node scripts/changed-files.mjs [--base REF] [--staged] [DIR]\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
let base = null;
let staged = false;
let dir = ".";
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--base") {
    base = argv[++i];
    if (!base) usage("--base needs a ref (a branch, tag or commit)");
  } else if (a === "--staged" || a === "--cached") staged = true;
  else if (a === "-h" || a === "--help") usage("Lists changed files and a diff stat for a git working tree.");
  else if (a.startsWith("-")) usage(`unknown option ${a}`);
  else dir = a;
}
if (base && staged) usage("--base and --staged cannot be used together");
if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) usage(`no such directory: ${dir}`);

function git(args, input) {
  const r = spawnSync("git", args, { cwd: dir, encoding: "utf8", input, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) return { ok: false, missing: r.error.code === "ENOENT", out: "", err: r.error.message };
  return { ok: r.status === 0, missing: false, out: r.stdout, err: r.stderr.trim() };
}

const probe = git(["rev-parse", "--show-toplevel"]);
if (probe.missing) {
  console.log("git is not installed: cannot list changed files. Review the files the user named instead.");
  process.exit(0);
}
if (!probe.ok) {
  console.log(`${path.resolve(dir)} is not inside a git repository: cannot list changed files. Review the files the user named instead.`);
  process.exit(0);
}
const top = probe.out.trim();

const head = git(["rev-parse", "--verify", "--quiet", "HEAD"]);
const hasHead = head.ok;
const branch = git(["symbolic-ref", "--short", "-q", "HEAD"]).out.trim() || "(detached HEAD)";

// A repository without commits diffs against the empty tree.
const emptyTree = () => git(["hash-object", "-t", "tree", "--stdin"], "").out.trim();

let against;
let label;
if (base) {
  const mb = git(["merge-base", base, "HEAD"]);
  if (!mb.ok) {
    process.stderr.write(`cannot compare with ${base}: ${mb.err || "no common ancestor with HEAD"}\n`);
    process.exit(2);
  }
  against = mb.out.trim();
  label = `everything since ${base} (merge-base ${against.slice(0, 7)}): commits, uncommitted and untracked changes`;
} else {
  against = hasHead ? "HEAD" : emptyTree();
  label = staged
    ? `staged changes against ${hasHead ? "HEAD" : "an empty repository"}`
    : `working tree and index against ${hasHead ? "HEAD" : "an empty repository (no commits yet)"}, plus untracked files`;
}

const diffArgs = staged ? ["diff", "--cached", "--no-renames", "-z"] : ["diff", "--no-renames", "-z"];
const statusOut = git([...diffArgs, "--name-status", against]);
const numstatOut = git([...diffArgs, "--numstat", against]);
if (!statusOut.ok || !numstatOut.ok) {
  process.stderr.write(`git diff failed: ${statusOut.err || numstatOut.err}\n`);
  process.exit(2);
}

/** path → { status, added, deleted, binary } */
const files = new Map();
const nameStatus = statusOut.out.split("\0").filter(Boolean);
for (let i = 0; i + 1 < nameStatus.length; i += 2) {
  files.set(nameStatus[i + 1], { status: nameStatus[i][0], added: 0, deleted: 0, binary: false });
}
for (const record of numstatOut.out.split("\0").filter(Boolean)) {
  const [added, deleted, ...rest] = record.split("\t");
  const file = rest.join("\t");
  const entry = files.get(file) ?? { status: "M", added: 0, deleted: 0, binary: false };
  if (added === "-") entry.binary = true;
  else {
    entry.added = Number(added);
    entry.deleted = Number(deleted);
  }
  files.set(file, entry);
}
if (!staged) {
  // From the top level, so untracked files anywhere in the repository count, like the diff.
  const untracked = git(["-C", top, "ls-files", "--others", "--exclude-standard", "-z"]);
  for (const file of untracked.out.split("\0").filter(Boolean)) {
    files.set(file, { status: "?", ...countLines(path.join(top, file)) });
  }
}

function countLines(abs) {
  try {
    const stat = fs.statSync(abs);
    if (stat.size > 4 * 1024 * 1024) return { added: 0, deleted: 0, binary: true };
    const buf = fs.readFileSync(abs);
    if (buf.includes(0)) return { added: 0, deleted: 0, binary: true };
    const text = buf.toString("utf8");
    const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    return { added: lines, deleted: 0, binary: false };
  } catch {
    return { added: 0, deleted: 0, binary: false };
  }
}

const STATUS = { A: "added", M: "modified", D: "deleted", T: "type changed", U: "unmerged", "?": "untracked" };

console.log(`Repository: ${top}`);
console.log(`Branch: ${branch}${hasHead ? ` (HEAD ${head.out.trim().slice(0, 7)})` : " (no commits yet)"}`);
console.log(`Comparing: ${label}`);
if (files.size === 0) {
  console.log("No changes.");
  process.exit(0);
}
const sorted = [...files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
const width = Math.min(60, Math.max(...sorted.map(([f]) => f.length)));
let totalAdded = 0;
let totalDeleted = 0;
console.log(`Changed files (${sorted.length}, paths relative to the repository root):`);
sorted.forEach(([file, e], i) => {
  totalAdded += e.added;
  totalDeleted += e.deleted;
  if (i >= MAX_LISTED) return;
  const stat = e.binary ? "binary" : `+${e.added} -${e.deleted}`;
  const status = (STATUS[e.status] ?? e.status).padEnd(10);
  console.log(`  ${status} ${file.padEnd(width)}  ${stat}`);
});
if (sorted.length > MAX_LISTED) console.log(`  … and ${sorted.length - MAX_LISTED} more`);
console.log(`Total: ${sorted.length} file${sorted.length === 1 ? "" : "s"}, +${totalAdded} -${totalDeleted}`);
